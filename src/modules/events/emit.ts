import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { EventType } from './event-types.js';

export interface EmittedEvent {
  id: string;
  type: EventType;
  createdAt: string;
  data: Record<string, unknown>;
}

/**
 * The one way a domain change announces itself: the event row is written in the caller's
 * transaction (outbox), so it exists exactly when the change does. Delivery reads the table.
 * `now` is the service clock's instant of the change, so the event time matches the row it announces.
 */
export async function emit(trx: Executor, type: EventType, data: Record<string, unknown>, tenantId: string, now: number): Promise<EmittedEvent> {
  const event: EmittedEvent = { id: newId('evt', now), type, createdAt: new Date(now).toISOString(), data };
  await trx
    .insertInto('events')
    .values({ id: event.id, tenant_id: tenantId, type, data: JSON.stringify(data), created_at: event.createdAt })
    .execute();
  return event;
}
