import { Type, type TSchema } from '@sinclair/typebox';
import { RecordId } from '../../http/schema-fields.js';

/** Id fields of the payments module's bodies and filters: `prefix_` + the id alphabet. */
export { RecordId };

export const ParentId = RecordId('usr', 'Pet parent id');
export const PetId = RecordId('pet', 'Pet id');
export const InvoiceId = RecordId('inv', 'Invoice id');
export const PaymentId = RecordId('pay', 'Payment id');

/** Path `:id` of a record: any text up to 100 characters (an unknown id answers 404, not 400). */
export const IdParams = (what: string) => Type.Object({ id: Type.String({ maxLength: 100, description: what }) });

export const Reference = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'Free text for the reconciliation: receipt, terminal slip or transfer reference.',
});

export const DateOnly = (description: string) => Type.String({ format: 'date', description: `${description} (YYYY-MM-DD).`, examples: ['2026-12-01'] });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
