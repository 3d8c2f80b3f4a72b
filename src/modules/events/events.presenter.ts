import type { EventsTable } from '../../db/database.js';
import type { EventEnvelope } from './events.schema.js';

/** The seed envelope; `type` may be the alias a caller asked by (DESIGN §6). */
export const presentEvent = (row: Pick<EventsTable, 'id' | 'type' | 'created_at' | 'data'>, type: string = row.type): EventEnvelope => ({
  id: row.id,
  type,
  createdAt: row.created_at,
  data: JSON.parse(row.data) as Record<string, unknown>,
});

/**
 * The envelope as the exact bytes a webhook signs: `data` is spliced in as stored, so the body
 * needs no re-serialisation per delivery.
 */
export const envelopeJson = (row: Pick<EventsTable, 'id' | 'created_at' | 'data'>, type: string): string =>
  `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(type)},"createdAt":${JSON.stringify(row.created_at)},"data":${row.data}}`;
