import type { Actor } from '../../http/actor.js';
import { AppError } from '../../http/errors.js';

/**
 * Events carry data of every location, and webhook endpoints receive all of them: a client
 * confined to locations may not read the stream nor manage endpoints (403, not a filtered view,
 * because not every event names a location). Jobs are tenant-wide too (a reminder run mails
 * every location's parents; a backup copies all of them).
 */
export function requireTenantWide(actor: Actor, what = 'Events and webhook endpoints span every location of the tenant'): void {
  if (actor.locationIds !== null) {
    throw new AppError('tenant_wide_only', `${what}; use a client that is not confined to locations.`);
  }
}
