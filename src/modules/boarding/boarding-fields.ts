import { Type, type TSchema } from '@sinclair/typebox';
import { boardingSpecies } from '../locations/index.js';

/** Species a room may take: the same list the location's boardingRequiredVaccines names (the pets module's species). */
export const Species = Type.Union(boardingSpecies.map((s) => Type.Literal(s)));

export { RecordId } from '../../http/schema-fields.js';
export const IdParams = (what: string) => Type.Object({ id: Type.String({ maxLength: 100, description: what }) });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const DateOnly = (description: string) => Type.String({ format: 'date', description: `${description} (YYYY-MM-DD).`, examples: ['2026-12-01'] });
export const RoomType = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: '^[a-z0-9][a-z0-9_-]*$',
  description: 'A room type of the location, lower-case, e.g. standard, suite, cattery.',
  examples: ['suite'],
});
/** Longest stay one booking may be (DESIGN: more nights → 400). */
export const maxNights = 60;
/** Longest occupancy window (DESIGN: ≤ 92 nights). */
export const maxOccupancyNights = 92;
