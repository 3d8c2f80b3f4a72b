import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { occupancy } from './occupancy.service.js';
import { presentStay } from './stays.presenter.js';
import { listStays } from './stays.repository.js';
import {
  CancelStaySchema,
  CheckInSchema,
  CheckOutSchema,
  CreateStaySchema,
  ListStaysQuery,
  OccupancyQuery,
  OccupancySchema,
  StayParams,
  StaySchema,
} from './stays.schema.js';
import { checkIn, checkOut, createStay, endReservation, getStay } from './stays.service.js';

const tags = ['Boarding'];
const access = 'Scope `bookings` to write, `bookings.read` to read; a location-scoped client sees the stays of its locations only (others answer 404). ';
const states =
  'States: reserved → checked_in → checked_out; reserved → cancelled | no_show. A forbidden move is 409 `invalid_state_transition` with `currentStatus`. ';
const capacity =
  'Capacity per night and room type = the sum of the capacities of the type’s active rooms that take the pet’s species (rooms taking several species are shared fairly: ' +
  'every set of species must fit in the rooms that take them). A stay that does not fit on some night is 409 `no_vacancy` with `reason` ' +
  '(`full`, with the full `nights`; `room_type_not_offered` when the location has no active room of the type; `species_not_accepted` when none of them takes the species). ' +
  'Checked and booked in one write transaction, so parallel bookings never oversell. ';

export function stayRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/boarding/bookings',
      operationId: 'createBoardingBooking',
      emits: ['booking.created'],
      summary: 'Book a boarding stay by room type',
      description:
        access +
        'Nights: checkInOn inclusive, checkOutOn exclusive; checkInOn today or later at the location; at most 60 nights (else 400). ' +
        capacity +
        'amount = nights × the lowest nightlyRate of the type’s active rooms that take the species (before tax; check-out bills the assigned room’s rate for the nights actually stayed). ' +
        'A pet with a reserved or checked-in stay on any of the nights is 409 `conflict` (with that `bookingId`). A room is assigned at check-in. Emits `booking.created` (service `boarding`).',
      tags,
      access: { scope: 'bookings' },
      body: CreateStaySchema,
      response: { status: 201, description: 'The reserved stay', schema: StaySchema },
      errors: ['resource_missing', 'no_vacancy', 'conflict'],
      handler: async ({ db, actor, body }) => ({ body: presentStay(await createStay(db, actor, body, await businessNow(db, actor.env, deps.clock))) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/bookings',
      operationId: 'listBoardingBookings',
      summary: 'List boarding stays',
      description: access + 'Newest booked first; filters locationId, petId, status, and from/to (stays with a night in [from, to]).',
      tags,
      access: { scope: 'bookings.read' },
      query: ListStaysQuery,
      response: { status: 200, description: 'A page of stays', schema: pageSchema(StaySchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listStays(db, actor, page, query), page, presentStay) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/bookings/:id',
      operationId: 'getBoardingBooking',
      summary: 'Get a boarding stay',
      description: access + states,
      tags,
      access: { scope: 'bookings.read' },
      params: StayParams,
      response: { status: 200, description: 'The stay', schema: StaySchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentStay(await getStay(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/boarding/bookings/:id/cancel',
      operationId: 'cancelBoardingBooking',
      emits: ['booking.cancelled'],
      summary: 'Cancel a reserved stay',
      description: access + states + 'Frees its nights. Emits `booking.cancelled` (status cancelled, with the reason).',
      tags,
      access: { scope: 'bookings' },
      params: StayParams,
      body: CancelStaySchema,
      response: { status: 200, description: 'The cancelled stay', schema: StaySchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentStay(await endReservation(db, actor, params.id, 'cancelled', body.reason ?? null, await businessNow(db, actor.env, deps.clock))),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/boarding/bookings/:id/no-show',
      operationId: 'markBoardingNoShow',
      emits: ['booking.cancelled'],
      summary: 'Mark a reserved stay as a no-show',
      description:
        access +
        states +
        'From the check-in day on (before it: 409 `conflict`; cancel instead). Frees its nights. Emits `booking.cancelled` with status no_show.',
      tags,
      access: { scope: 'bookings' },
      params: StayParams,
      body: CancelStaySchema,
      response: { status: 200, description: 'The stay, no_show', schema: StaySchema },
      errors: ['not_found', 'invalid_state_transition', 'conflict'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentStay(await endReservation(db, actor, params.id, 'no_show', body.reason ?? null, await businessNow(db, actor.env, deps.clock))),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/boarding/check-in',
      operationId: 'checkInBoarding',
      emits: ['boarding.checked_in'],
      summary: 'Check a pet in (a booked stay, or a walk-in)',
      description:
        access +
        'A booked stay: {bookingId, roomId?, vaccinationOverride?}, on a day from checkInOn to before checkOutOn (else 409 `conflict`). A walk-in: {petId, locationId, roomType, checkOutOn, roomId?, notes?} ' +
        'books from today (same rules and 409 `no_vacancy` as POST /v1/boarding/bookings, emitting `booking.created`) and checks in at once. ' +
        'The pet must have every vaccine the location requires for its species (boardingRequiredVaccines on the location; names matched case-insensitively) with a dueOn on or after checkOutOn, ' +
        'else 422 `vaccinations_required` with `missing: [names]`. vaccinationOverride {reason} lets it in anyway: role doctor or admin only (403 `forbidden_role` for staff); ' +
        'who, their role, why and what was missing are kept on the stay (vaccinationOverride) and the call is in the audit trail under the booking id. ' +
        'roomId names a room (409 `room_unavailable` when it is of another type or location, inactive, does not take the species or is full on a night of the stay); ' +
        'without it the cheapest room of the type with a free place every night is picked (409 `room_unavailable` when none). Emits `boarding.checked_in`.',
      tags,
      access: { scope: 'bookings' },
      body: CheckInSchema,
      response: { status: 200, description: 'The stay, checked_in', schema: StaySchema },
      errors: [
        'not_found',
        'resource_missing',
        'invalid_state_transition',
        'conflict',
        'no_vacancy',
        'room_unavailable',
        'vaccinations_required',
        'forbidden_role',
      ],
      handler: async ({ db, actor, body }) => {
        const stay = await checkIn(db, actor, body, await businessNow(db, actor.env, deps.clock));
        return { body: presentStay(stay), resourceId: stay.id };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/boarding/check-out',
      operationId: 'checkOutBoarding',
      emits: ['boarding.checked_out', 'invoice.finalized'],
      summary: 'Check a pet out and bill the stay',
      description:
        access +
        'Only a checked_in stay (else 409 `invalid_state_transition`). Bills, as one finalized invoice to the pet’s parent at the stay’s location (tax at the location’s taxRateBps): ' +
        'the nights actually stayed — from the local date of check-in to the local date of check-out, at least 1 — at the assigned room’s nightlyRate, and the care items: ' +
        'each care-plan medication with an administrationAmount, once per dose logged as given. Every line’s sourceId is the booking id; invoiceId is set on the stay. ' +
        'Nights booked after the check-out day are freed. Emits `boarding.checked_out` {bookingId, petId, invoiceId, nights, amount (the invoice total), currency} and the invoice’s events.',
      tags,
      access: { scope: 'bookings' },
      body: CheckOutSchema,
      response: { status: 200, description: 'The stay, checked_out', schema: StaySchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, body }) => ({
        body: presentStay(await checkOut(db, actor, body.bookingId, await businessNow(db, actor.env, deps.clock))),
        resourceId: body.bookingId,
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/occupancy',
      operationId: 'getBoardingOccupancy',
      summary: 'Occupancy per night and room type',
      description:
        access +
        'Nights from `from` to `to` inclusive (at most 92). Per night and per room type: capacity (active rooms), reserved (stays booked, not yet checked in), ' +
        'checkedIn (pets in house that night; past nights of checked-out stays count here too), available = capacity − reserved − checkedIn. ' +
        'An unknown or out-of-scope location answers 404.',
      tags,
      access: { scope: 'bookings.read' },
      query: OccupancyQuery,
      response: { status: 200, description: 'Occupancy', schema: OccupancySchema },
      errors: ['not_found'],
      handler: async ({ db, actor, query }) => ({ body: await occupancy(db, actor, query) }),
    }),
  ];
}
