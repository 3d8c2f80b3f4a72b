import { publicBaseUrl } from '../../http/public-url.js';
import type { SecretBox } from '../../db/secret-box.js';
import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import { validationFailed } from '../../http/errors.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { definePublicRoute, defineRoute, type AnyRoute } from '../../http/route.js';
import { appointmentStatuses } from './appointments.schema.js';
import { presentAppointment, presentAppointment20250601, presentProviderRanking20250601, type AppointmentLinks } from './appointments.presenter.js';
import { listAppointments } from './appointments.repository.js';
import {
  AppointmentParams,
  AppointmentSchema,
  AppointmentSchema20250601,
  AvailabilityQuery,
  AvailabilitySchema,
  CreateAppointmentSchema,
  ListAppointmentsQuery,
  MatchProvidersSchema,
  MatchResultSchema,
  ProviderRankingSchema20250601,
  UpdateAppointmentSchema,
} from './appointments.schema.js';
import { createAppointment, getAppointment, parseStatus, patchAppointment } from './appointments.service.js';
import { availability, matchProviders } from './availability.service.js';
import { calendarFor } from './calendar.service.js';
import { toIso } from '../scheduling/index.js';

const tags = ['Appointments'];

export interface AppointmentDeps {
  config: Config;
  clock: Clock;
  stores: Stores;
  secretBox: SecretBox;
}

export function appointmentRoutes(deps: AppointmentDeps): AnyRoute[] {
  const { config, clock, secretBox } = deps;
  const settings = { bookingMinNoticeMinutes: config.bookingMinNoticeMinutes, secrets: secretBox };
  const linksOf = (ctx: Parameters<typeof publicBaseUrl>[1]): AppointmentLinks => ({ base: publicBaseUrl(config, ctx), secrets: secretBox });
  const notice = `${config.bookingMinNoticeMinutes} minutes (PETCARE_BOOKING_MIN_NOTICE_MINUTES)`;
  return [
    // Fixed paths under /v1/appointments come before /v1/appointments/:id, which would match them too.
    defineRoute({
      method: 'get',
      path: '/v1/appointments/availability',
      operationId: 'getAvailability',
      summary: 'Find bookable slots',
      description:
        'Slots for `type` at `locationId`: working hours of each provider who works there, is active and offers the type, minus time off, ' +
        `existing appointments with their buffers (before and after, at any location) and the minimum notice of ${notice}. ` +
        "Slots step by the type's duration from the start of each working window, and restart right after a booked visit or time off. " +
        "`from`/`to` are dates in the location's time zone (or date-times with offset); the window spans at most 31 days. Earliest first, " +
        'then by providerId; at most `limit` slots (`hasMore`, `nextFrom` when cut).',
      tags,
      access: { scope: 'bookings.read' },
      query: AvailabilityQuery,
      response: { status: 200, description: 'Free slots', schema: AvailabilitySchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, query }) => ({ body: await availability(db, actor, query, clock.now(), config.bookingMinNoticeMinutes) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/appointments',
      operationId: 'createAppointment',
      emits: ['appointment.created'],
      summary: 'Book an appointment',
      description:
        "The seed's request: petId, providerId, type (case-insensitive: VET_CONSULTATION = vet_consultation), startsAt (Z or a numeric offset), " +
        "notes. `locationId` is optional: by default the location whose schedule covers the time, else the pet's location. The answer carries " +
        'both forms of the seed object (providerId and provider {id, name}, createdAt, calendarUrl); times are UTC. Rules: the pet, provider and ' +
        'location must be visible to the caller (else 400 `resource_missing`); the type must exist and be offered by the provider (400 ' +
        '`validation_failed` on `type`); a start in the past is 400 on `startsAt`; a start sooner than the minimum notice of ' +
        `${notice}, outside the provider's working hours or in their time off (when the provider has a schedule at that location; a provider ` +
        "without one there is bookable at any time, though availability offers only scheduled hours), or overlapping another of the provider's " +
        'appointments at any location (buffers included), is 409 `slot_unavailable`. Concurrent bookings of one slot: exactly one wins. Emits `appointment.created`.',
      tags,
      access: { scope: 'bookings' },
      body: CreateAppointmentSchema,
      response: { status: 201, description: 'The confirmed appointment', schema: AppointmentSchema },
      errors: ['resource_missing', 'slot_unavailable'],
      handler: async ({ db, actor, body, ctx }) => ({
        body: presentAppointment(await createAppointment(db, actor, body, clock.now(), settings), linksOf(ctx)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/appointments',
      operationId: 'listAppointments',
      summary: 'List appointments',
      description: `Newest booking first; filter by from/to (on startsAt), providerId, petId, locationId, status (${appointmentStatuses.join(', ')}; any case).`,
      tags,
      access: { scope: 'bookings.read' },
      query: ListAppointmentsQuery,
      response: { status: 200, description: 'A page of appointments', schema: pageSchema(AppointmentSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query, ctx }) => {
        const page = pageRequest(query);
        const from = query.from === undefined ? undefined : Date.parse(query.from);
        const to = query.to === undefined ? undefined : Date.parse(query.to);
        if (from !== undefined && to !== undefined && to <= from) throw validationFailed([{ field: 'to', message: 'must be after from' }]);
        const rows = await listAppointments(db, actor, page, {
          from: from === undefined ? undefined : toIso(from),
          to: to === undefined ? undefined : toIso(to),
          providerId: query.providerId,
          petId: query.petId,
          locationId: query.locationId,
          status: query.status === undefined ? undefined : parseStatus(query.status),
          externalId: query.externalId,
        });
        const links = linksOf(ctx);
        return { body: toPage(rows, page, (row) => presentAppointment(row, links)) };
      },
    }),
    definePublicRoute({
      method: 'get',
      path: '/v1/calendar/:id.ics',
      operationId: 'getAppointmentCalendar',
      summary: 'Calendar entry of an appointment (ICS)',
      description:
        'The `calendarUrl` of an appointment: an RFC 5545 VCALENDAR with one VEVENT (UID, DTSTAMP, DTSTART/DTEND in UTC, SUMMARY, LOCATION, ' +
        'STATUS: CANCELLED once cancelled or a no-show, SEQUENCE bumped by each change). No bearer token: the `token` in the link is the ' +
        'credential (its prefix ct_live_/ct_test_ names the environment), so treat the link as a secret. A wrong or missing token answers 404.',
      tags,
      params: AppointmentParams,
      query: Type.Object(
        { token: Type.Optional(Type.String({ maxLength: 200, description: 'The secret from calendarUrl.' })) },
        { additionalProperties: false },
      ),
      response: { status: 200, description: 'The calendar', schema: Type.String(), contentType: 'text/calendar; charset=utf-8' },
      errors: ['not_found'],
      handler: async ({ params, query }) => ({
        body: await calendarFor(deps.stores, params.id, query.token, secretBox),
        headers: { 'Content-Disposition': `inline; filename="${params.id}.ics"`, 'Cache-Control': 'private, no-cache' },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/appointments/:id',
      operationId: 'getAppointment',
      summary: 'Get an appointment',
      tags,
      access: { scope: 'bookings.read' },
      params: AppointmentParams,
      response: { status: 200, description: 'The appointment', schema: AppointmentSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, ctx }) => ({ body: presentAppointment(await getAppointment(db, actor, params.id), linksOf(ctx)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/appointments/:id',
      operationId: 'updateAppointment',
      emits: ['appointment.completed'],
      summary: 'Reschedule, reassign, annotate or move an appointment',
      description:
        '`startsAt` reschedules (confirmed appointments only), `providerId` reassigns (confirmed or checked_in); both run every booking rule ' +
        'again against the other appointments (409 `slot_unavailable`), keeping the duration and buffers the visit was booked with; the minimum ' +
        'notice applies to a new time only. `status` (any case) moves the state: confirmed → checked_in → in_progress → completed; confirmed or ' +
        'checked_in → cancelled; confirmed → no_show. Any other move is 409 `invalid_state_transition`; the current status is a no-op. Send ' +
        "status in its own request. Completing sets the pet's lastVisit (the visit's date in the location's time zone) and emits " +
        '`appointment.completed`. `notes` may change at any time.',
      tags,
      access: { scope: 'bookings' },
      params: AppointmentParams,
      body: UpdateAppointmentSchema,
      response: { status: 200, description: 'The updated appointment', schema: AppointmentSchema },
      versions: {
        '2025-06-01': {
          description: 'The appointment with `providerId` only (no `provider` object) and upper-case `status` and `type`.',
          schema: AppointmentSchema20250601,
          response: presentAppointment20250601,
        },
      },
      errors: ['not_found', 'resource_missing', 'slot_unavailable', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body, ctx }) => ({
        body: presentAppointment(await patchAppointment(db, actor, params.id, body, clock.now(), settings), linksOf(ctx)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/providers/match',
      operationId: 'matchProviders',
      summary: 'Rank providers for a visit',
      description:
        "Providers who work at the location (default: the pet's), are active and offer `type`, ranked by who can do it soonest in the window " +
        '(default: the next 14 days, at most 31), then by rating (unrated last), then name; each with its next free slot and the reasons for its ' +
        'rank. Read-only: nothing is written, so it runs outside a transaction and an Idempotency-Key is accepted but not stored; a retry simply ' +
        'ranks again with the current calendar.',
      tags: ['Providers'],
      access: { scope: 'bookings.read' },
      transactional: false,
      body: MatchProvidersSchema,
      response: { status: 200, description: 'Providers, best first', schema: MatchResultSchema },
      versions: {
        '2025-06-01': {
          description: 'A bare array of the ranked providers `[{id, name, kind, rating}]`, best first (no rank, slot or reasons).',
          schema: ProviderRankingSchema20250601,
          response: presentProviderRanking20250601,
        },
      },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => {
        const result = await matchProviders(db, actor, body, clock.now(), config.bookingMinNoticeMinutes);
        return {
          body: {
            data: result.matches.map((m, index) => ({
              rank: index + 1,
              providerId: m.provider.id,
              provider: { id: m.provider.id, name: m.provider.name, kind: m.provider.kind },
              nextSlot: m.slot ? { providerId: m.provider.id, startsAt: toIso(m.slot.from), endsAt: toIso(m.slot.to) } : null,
              rating: m.provider.rating,
              reasons: m.reasons,
            })),
            petId: result.petId,
            type: result.type,
            locationId: result.locationId,
            from: toIso(result.window.from),
            to: toIso(result.window.to),
          },
        };
      },
    }),
  ];
}
