import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { wholeTenant, type Actor } from '../../http/actor.js';
import { foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { emit } from '../events/index.js';
import { missingLocations } from '../locations/index.js';
// A file, not the appointments index: that module builds on this one, and the catalogue query needs nothing else.
import { unknownAppointmentTypes } from '../scheduling/index.js';
import { allLocationsOf, findProvider, insertProvider, replaceProviderLocations, updateProvider, type ProviderRecord } from './providers.repository.js';
import type { CreateProviderInput, UpdateProviderInput } from './providers.schema.js';
import type { ProvidersTable } from './providers.table.js';
import { AppError } from '../../http/errors.js';
import { isMarketplaceStatus, onboardMarketplace, patchMarketplaceProfile, requireMarketplaceScope, withMarketplace } from './marketplace-providers.service.js';

async function checkLocations(db: Executor, actor: Actor, ids: readonly string[]): Promise<void> {
  const missing = await missingLocations(db, actor, ids);
  const first = missing[0];
  if (first !== undefined) throw missingReference(`locationIds[${ids.indexOf(first)}]`, 'location', first);
}

/** Lower-cased, de-duplicated codes that exist in the tenant's catalogue (else 400 on the first unknown one). */
async function checkServices(db: Executor, actor: Actor, services: readonly string[]): Promise<string[]> {
  const codes = [...new Set(services.map((s) => s.toLowerCase()))];
  const unknown = await unknownAppointmentTypes(db, actor, codes);
  if (unknown.length > 0) {
    throw validationFailed(
      unknown.map((code) => ({ field: `services[${services.findIndex((s) => s.toLowerCase() === code)}]`, message: `unknown appointment type '${code}'` })),
    );
  }
  return codes.sort();
}

/**
 * A staff provider starts `active`; one onboarded with `marketplace` (needs the marketplace scope)
 * starts `pending` with its profile and listings, and waits for an approval.
 */
export async function createProvider(db: Executor, actor: Actor, input: CreateProviderInput, now: number): Promise<ProviderRecord> {
  if (input.marketplace !== undefined) requireMarketplaceScope(actor, 'Onboarding a marketplace provider');
  await checkLocations(db, actor, input.locationIds);
  const services = await checkServices(db, actor, input.services ?? []);
  const at = new Date(now).toISOString();
  const row: ProvidersTable = {
    id: newId('prv'),
    tenant_id: actor.tenantId,
    name: input.name,
    kind: input.kind,
    status: input.marketplace === undefined ? 'active' : 'pending',
    services: JSON.stringify(services),
    rating: null,
    rating_count: 0,
    created_at: at,
    updated_at: at,
  };
  const locationIds = [...input.locationIds].sort();
  await insertProvider(db, actor, row, locationIds);
  const marketplace = input.marketplace === undefined ? undefined : await onboardMarketplace(db, actor, row, locationIds, input.marketplace, now);
  await emit(db, 'provider.onboarded', { providerId: row.id, name: row.name, kind: row.kind, status: row.status, locationIds, services }, actor.tenantId, now);
  return { ...row, locationIds, marketplace };
}

/** A provider the caller can see, with its marketplace profile and listings when it has them. */
export async function getProvider(db: Executor, actor: Actor, id: string): Promise<ProviderRecord> {
  const row = foundOr404(await findProvider(db, actor, id), 'provider', id);
  return (await withMarketplace(db, actor, [row]))[0]!;
}

export async function patchProvider(db: Executor, actor: Actor, id: string, input: UpdateProviderInput, now: number): Promise<ProviderRecord> {
  const existing = await getProvider(db, actor, id);
  const patch: Partial<ProvidersTable> = { updated_at: new Date(now).toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.kind !== undefined) patch.kind = input.kind;
  if (input.status !== undefined) {
    // Marketplace providers move only through approve and suspend.
    if (isMarketplaceStatus(existing.status)) {
      throw new AppError(
        'invalid_state_transition',
        `Provider ${id} is a marketplace provider (${existing.status}); use /approve or /suspend to change its status.`,
        {
          extensions: { currentStatus: existing.status },
        },
      );
    }
    patch.status = input.status;
  }
  await patchMarketplaceProfile(db, actor, existing, input, now);
  if (input.services !== undefined) patch.services = JSON.stringify(await checkServices(db, actor, input.services));
  let locationIds = existing.locationIds;
  if (input.locationIds !== undefined) {
    await checkLocations(db, actor, input.locationIds);
    // A location-scoped caller replaces only the part it can see; locations outside its view stay.
    const hidden = actor.locationIds === null ? [] : (await allLocationsOf(db, wholeTenant(actor), id)).filter((l) => !actor.locationIds?.includes(l));
    await replaceProviderLocations(db, wholeTenant(actor), id, [...new Set([...input.locationIds, ...hidden])]);
    locationIds = [...input.locationIds].sort();
  }
  await updateProvider(db, wholeTenant(actor), id, patch);
  return (await withMarketplace(db, actor, [{ ...existing, ...patch, locationIds, marketplace: undefined }]))[0]!;
}
