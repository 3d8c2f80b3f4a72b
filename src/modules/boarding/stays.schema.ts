import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { DateOnly, IdParams, Nullable, RecordId, RoomType } from './boarding-fields.js';

export const stayStatuses = ['reserved', 'checked_in', 'checked_out', 'cancelled', 'no_show'] as const;
export type StayStatus = (typeof stayStatuses)[number];

const instant = (description: string) => Nullable(Type.String({ format: 'date-time', description }));

export const StaySchema = Type.Object(
  {
    id: Type.String({ description: 'Booking id (bkg_…).' }),
    kind: Type.Literal('boarding'),
    status: Type.Union(stayStatuses.map((s) => Type.Literal(s))),
    petId: Type.String(),
    parentId: Type.String({ description: "The pet's parent when booked: who is billed." }),
    locationId: Type.String(),
    roomType: Type.String(),
    roomId: Nullable(Type.String({ description: 'Assigned at check-in.' })),
    checkInOn: Type.String({ format: 'date', description: 'The first night.' }),
    checkOutOn: Type.String({ format: 'date', description: 'The day the pet leaves (its night is not included).' }),
    nights: Type.Integer({ description: 'Nights booked: checkInOn inclusive, checkOutOn exclusive.' }),
    amount: Type.Integer({
      description: 'As booked: nights × the lowest nightlyRate of the room type’s active rooms (integer minor units, before tax). The bill is the invoice.',
    }),
    currency: Type.String(),
    invoiceId: Nullable(Type.String({ description: 'The finalized invoice of the stay, once checked out.' })),
    notes: Nullable(Type.String()),
    vaccinationOverride: Nullable(
      Type.Object(
        {
          reason: Type.String(),
          clientId: Type.String({ description: 'The API client (cli_…) that overrode.' }),
          role: Type.String(),
          missing: Type.Array(Type.String(), { description: 'Required vaccines the pet lacked then.' }),
          at: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: false, description: 'Who let the pet in without the required vaccinations, and why.' },
      ),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    checkedInAt: instant('When the pet arrived.'),
    checkedOutAt: instant('When the pet left.'),
  },
  { additionalProperties: false },
);

export const CreateStaySchema = Type.Object(
  {
    petId: RecordId('pet', 'Pet id'),
    locationId: LocationId,
    roomType: RoomType,
    checkInOn: DateOnly('The first night; today or later at the location'),
    checkOutOn: DateOnly('The day the pet leaves; after checkInOn, at most 60 nights later'),
    notes: Type.Optional(Nullable(NonBlankText(2000))),
  },
  { additionalProperties: false },
);

export const CancelStaySchema = Type.Object({ reason: Type.Optional(Nullable(NonBlankText(500))) }, { additionalProperties: false });

const VaccinationOverride = Type.Object(
  { reason: NonBlankText(500) },
  {
    additionalProperties: false,
    description: 'Check in without the required vaccinations: role doctor or admin only (else 403); recorded on the stay and audited.',
  },
);

/** One object for both forms, so a missing or stray field is named in the 400 (a union would only say "no form matched"). */
export const CheckInSchema = Type.Object(
  {
    bookingId: Type.Optional(RecordId('bkg', 'The booked stay to check in; leave out for a walk-in')),
    roomId: Type.Optional(RecordId('room', 'A room to assign; else the cheapest room of the type with space every night is picked')),
    vaccinationOverride: Type.Optional(VaccinationOverride),
    petId: Type.Optional(RecordId('pet', 'Walk-in: the pet')),
    locationId: Type.Optional(LocationId),
    roomType: Type.Optional(RoomType),
    checkOutOn: Type.Optional(DateOnly('Walk-in: the day the pet leaves')),
    notes: Type.Optional(Nullable(NonBlankText(2000))),
  },
  {
    additionalProperties: false,
    description:
      'Either {bookingId, roomId?, vaccinationOverride?} for a booked stay, or a walk-in {petId, locationId, roomType, checkOutOn, roomId?, notes?, vaccinationOverride?} that books from today and checks in at once.',
  },
);

export const CheckOutSchema = Type.Object({ bookingId: RecordId('bkg', 'The booking to check out') }, { additionalProperties: false });

export const ListStaysQuery = Type.Object(
  {
    ...pageQueryFields,
    locationId: Type.Optional(LocationId),
    petId: Type.Optional(RecordId('pet', 'Pet id')),
    status: Type.Optional(Type.Union(stayStatuses.map((s) => Type.Literal(s)))),
    from: Type.Optional(DateOnly('Stays with a night on or after this date')),
    to: Type.Optional(DateOnly('Stays with a night on or before this date')),
  },
  { additionalProperties: false },
);

export const OccupancyQuery = Type.Object(
  {
    locationId: LocationId,
    from: DateOnly('First night'),
    to: DateOnly('Last night (inclusive; at most 92 nights from from)'),
  },
  { additionalProperties: false },
);

const Counts = {
  capacity: Type.Integer({ description: 'Places of the active rooms.' }),
  reserved: Type.Integer({ description: 'Stays booked for the night, not yet checked in.' }),
  checkedIn: Type.Integer({ description: 'Stays in house that night.' }),
  available: Type.Integer({ description: 'capacity − reserved − checkedIn (negative when rooms were deactivated under booked stays).' }),
};

export const OccupancySchema = Type.Object(
  {
    locationId: Type.String(),
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    nights: Type.Array(
      Type.Object(
        {
          date: Type.String({ format: 'date' }),
          ...Counts,
          byRoomType: Type.Array(Type.Object({ roomType: Type.String(), ...Counts }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const StayParams = IdParams('Booking id (bkg_…).');

export type CreateStayInput = Static<typeof CreateStaySchema>;
export type CheckInInput = Static<typeof CheckInSchema>;
export type ListStaysFilters = Static<typeof ListStaysQuery>;
export type Occupancy = Static<typeof OccupancySchema>;
