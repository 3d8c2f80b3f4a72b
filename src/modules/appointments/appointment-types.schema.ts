import { Type, type Static } from '@sinclair/typebox';
import { NonBlankText } from '../../http/schema-fields.js';
import { TypeCode } from '../providers/index.js';
import { maxBufferMinutes, maxDurationMinutes } from '../scheduling/index.js';

const Duration = Type.Integer({ minimum: 5, maximum: maxDurationMinutes, description: `Length of the visit in minutes (5–${maxDurationMinutes}).` });
const Buffer = (when: string) =>
  Type.Integer({ minimum: 0, maximum: maxBufferMinutes, description: `Minutes the provider stays blocked ${when} the visit (0–${maxBufferMinutes}).` });
const Name = NonBlankText(100);

export const AppointmentTypeSchema = Type.Object(
  {
    code: Type.String({ description: 'Lower-case code, e.g. vet_consultation.' }),
    name: Type.String(),
    durationMinutes: Type.Integer(),
    bufferBeforeMinutes: Type.Integer(),
    bufferAfterMinutes: Type.Integer(),
    active: Type.Boolean({ description: 'Inactive types keep their appointments but cannot be booked.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateAppointmentTypeSchema = Type.Object(
  {
    code: TypeCode,
    name: Name,
    durationMinutes: Duration,
    bufferBeforeMinutes: Type.Optional(Buffer('before')),
    bufferAfterMinutes: Type.Optional(Buffer('after')),
  },
  { additionalProperties: false },
);

export const UpdateAppointmentTypeSchema = Type.Object(
  {
    name: Type.Optional(Name),
    durationMinutes: Type.Optional(Duration),
    bufferBeforeMinutes: Type.Optional(Buffer('before')),
    bufferAfterMinutes: Type.Optional(Buffer('after')),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AppointmentTypeParams = Type.Object({ code: Type.String({ maxLength: 50 }) });
export const ListAppointmentTypesQuery = Type.Object(
  { includeInactive: Type.Optional(Type.Boolean({ default: false, description: 'Also list deactivated types.' })) },
  { additionalProperties: false },
);

export type AppointmentTypeOut = Static<typeof AppointmentTypeSchema>;
export type CreateAppointmentTypeInput = Static<typeof CreateAppointmentTypeSchema>;
export type UpdateAppointmentTypeInput = Static<typeof UpdateAppointmentTypeSchema>;
