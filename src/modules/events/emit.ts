import { isoAt } from '../../clock.js';
import { acrossTenants } from '../../db/access-policy.js';
import { runStatement, type Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { EventData, EventType } from './event-types.js';

export interface EmittedEvent {
  id: string;
  type: EventType;
  createdAt: string;
  data: Record<string, unknown>;
}

// Every write that announces itself runs this: SQL text prepared once, not built per event (the
// gateway's measured hot path, issue 10 §1). The row's tenant is the caller's, written in the text's values.
const insertSql = 'insert into events (id, tenant_id, type, data, created_at) values (?, ?, ?, ?, ?)';

/**
 * The one way a domain change announces itself: the event row is written in the caller's
 * transaction (outbox), so it exists exactly when the change does. Delivery reads the table.
 * `now` is the service clock's instant of the change, so the event time matches the row it announces.
 */
export async function emit<T extends EventType>(trx: Executor, type: T, data: EventData<T>, tenantId: string, now: number): Promise<EmittedEvent> {
  const event: EmittedEvent = { id: newId('evt'), type, createdAt: isoAt(now), data };
  await runStatement(acrossTenants(trx, 'hand-written: tenant_id in its text'), insertSql, [event.id, tenantId, type, JSON.stringify(data), event.createdAt]);
  return event;
}
