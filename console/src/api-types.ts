/**
 * The API's objects as the SDK's generated types give them (sdk/src/openapi-types.ts, from the
 * OpenAPI document): the console does not re-type them, so a route change that breaks a panel fails
 * the console's typecheck (`npm run build`). Type-only: nothing of the SDK is bundled.
 */
import type { Answer, ItemOf, Operation } from '../../sdk/src/types.js';

export type Appointment = ItemOf<Operation<'/v1/appointments', 'get'>>;
export type Pet = Answer<'/v1/pets/{id}'>;
export type AuditEvent = ItemOf<Operation<'/v1/audit-events', 'get'>>;
export type Metric = Answer<'/v1/analytics/summary'>['metrics'][number];
/** The JSON form (the route also answers CSV). */
export type Series = Extract<Answer<'/v1/analytics/metrics/{name}'>, object>;
export type Job = Answer<'/v1/jobs'>['data'][number];
export type JobDetail = Answer<'/v1/jobs/{name}'>;
export type JobRun = Answer<'/v1/jobs/{name}/run', 'post'>;
export type Location = ItemOf<Operation<'/v1/locations', 'get'>>;
export type Room = ItemOf<Operation<'/v1/boarding/rooms', 'get'>>;
export type Occupancy = Answer<'/v1/boarding/occupancy'>;
/** What a night, and each room type of it, counts. */
export type OccupancyCounts = Pick<Occupancy['nights'][number], 'capacity' | 'reserved' | 'checkedIn' | 'available'>;
export type EventReplay = Answer<'/v1/events/{id}/replay', 'post'>;
export type Endpoint = ItemOf<Operation<'/v1/webhook-endpoints', 'get'>>;
export type Attempt = ItemOf<Operation<'/v1/webhook-endpoints/{id}/deliveries', 'get'>>;
export type PetListItem = ItemOf<Operation<'/v1/pets', 'get'>>;
export type PetParent = Answer<'/v1/pet-parents/{id}'>;
export type Vaccination = ItemOf<Operation<'/v1/pets/{id}/vaccinations', 'get'>>;
export type Invoice = Answer<'/v1/invoices/{id}'>;
export type Payment = ItemOf<Operation<'/v1/payments', 'get'>>;
export type Refund = ItemOf<Operation<'/v1/refunds', 'get'>>;
