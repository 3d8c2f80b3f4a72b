import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { Environment } from '../../config.js';
import { validationFailed } from '../../http/errors.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { parseInstant, toIso } from '../scheduling/index.js';
import { businessNow } from '../business-clock/index.js';
import { groomingAvailability } from './grooming-availability.service.js';
import { assignStylist, createGroomingAppointment, getGroomingAppointment, moveGroomingAppointment } from './grooming-appointments.service.js';
import { buyPackageCredits, cancelMembership, createMembership, getMembership, getPackageCredit } from './grooming-credits.service.js';
import { presentGroomingAppointment, presentMembership, presentPackage, presentPackageCredit } from './grooming.presenter.js';
import { listGroomingAppointments, listMemberships, listPackageCredits, listPackages } from './grooming.repository.js';
import {
  AssignStylistSchema,
  CreateGroomingAppointmentSchema,
  CreateMembershipSchema,
  CreatePackageCreditSchema,
  CreatePackageSchema,
  GroomingAppointmentSchema,
  GroomingAvailabilityQuery,
  GroomingAvailabilitySchema,
  IdParams,
  ListGroomingAppointmentsQuery,
  ListMembershipsQuery,
  ListPackageCreditsQuery,
  ListPackagesQuery,
  MembershipSchema,
  PackageCreditSchema,
  PackageSchema,
  UpdateGroomingAppointmentSchema,
  UpdatePackageSchema,
} from './grooming.schema.js';
import { createPackage, getPackage, patchPackage } from './packages.service.js';

const tags = ['Grooming'];
const access = 'Scope `bookings` to write, `bookings.read` to read; a location-scoped client sees its locations only (others answer 404). ';
const states =
  'States: confirmed → checked_in → in_progress → completed; confirmed → cancelled | no_show; any other move is 409 `invalid_state_transition` with `currentStatus`. ';
const busy =
  'Stylists are providers of kind `groomer` with schedules (PUT /v1/appointments/schedules/{providerId}); grooms and vet appointments share one busy time per provider, so neither can take time the other holds. ';
const assignRule =
  'Without a stylist the module picks the pet’s last stylist when free, else the free stylist with the fewest grooms that local day (then by id). ';

/** An ISO instant of a list filter, or 400 on the field. */
function instant(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = parseInstant(value);
  if (ms === null) throw validationFailed([{ field, message: 'is not a date-time with Z or an offset' }]);
  return toIso(ms);
}

export function groomingRouteList(deps: { config: Config; clock: Clock }): AnyRoute[] {
  const settings = { bookingMinNoticeMinutes: deps.config.bookingMinNoticeMinutes };
  const now = (db: Executor, env: Environment) => businessNow(db, env, deps.clock);
  return [
    // ------------------------------------------------------------ packages
    defineRoute({
      method: 'post',
      path: '/v1/grooming/packages',
      operationId: 'createGroomingPackage',
      summary: 'Create a grooming package',
      description:
        access +
        'durationMinutes and price per pet size (small, medium, large, xlarge); currency defaults to the location’s (group-wide packages: USD). ' +
        'Without locationId the package is offered at every location (tenant-wide clients only). sessions > 1 makes it a prepaid bundle (POST /v1/grooming/package-credits), valid validDays after purchase.',
      tags,
      access: { scope: 'bookings' },
      body: CreatePackageSchema,
      response: { status: 201, description: 'The new package', schema: PackageSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => ({ body: presentPackage(await createPackage(db, actor, body, await now(db, actor.env))) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/packages',
      operationId: 'listGroomingPackages',
      summary: 'List grooming packages',
      description: access + 'Newest first; filter locationId (packages of that location and group-wide ones) and active.',
      tags,
      access: { scope: 'bookings.read' },
      query: ListPackagesQuery,
      response: { status: 200, description: 'A page of packages', schema: pageSchema(PackageSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listPackages(db, actor, page, {
          locationId: query.locationId,
          active: query.active === undefined ? undefined : query.active === 'true',
        });
        return { body: toPage(rows, page, presentPackage) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/packages/:id',
      operationId: 'getGroomingPackage',
      summary: 'Get a grooming package',
      description: access,
      tags,
      access: { scope: 'bookings.read' },
      params: IdParams,
      response: { status: 200, description: 'The package', schema: PackageSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentPackage(await getPackage(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/grooming/packages/:id',
      operationId: 'updateGroomingPackage',
      summary: 'Change a grooming package',
      description:
        access +
        'Rename, re-time, re-price, change sessions or validDays, or (de)activate (inactive packages take no new grooms). Booked grooms keep the duration and price they were booked with.',
      tags,
      access: { scope: 'bookings' },
      params: IdParams,
      body: UpdatePackageSchema,
      response: { status: 200, description: 'The package', schema: PackageSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, body }) => ({ body: presentPackage(await patchPackage(db, actor, params.id, body, await now(db, actor.env))) }),
    }),

    // ------------------------------------------------------------ appointments
    defineRoute({
      method: 'post',
      path: '/v1/grooming/appointments',
      operationId: 'createGroomingAppointment',
      emits: ['booking.created'],
      summary: 'Book a groom',
      description:
        access +
        busy +
        'size comes from the body or the pet’s size (neither: 400 on size); duration and amount from the package for that size. A named stylist must be a groomer offering the package at the location (else 400 on stylistId) and free for the whole groom (else 409 `slot_unavailable`). ' +
        assignRule +
        'Nobody free: 409 `no_stylist_available`. ' +
        `Needs PETCARE_BOOKING_MIN_NOTICE_MINUTES (${deps.config.bookingMinNoticeMinutes}) minutes' notice (else 409 slot_unavailable). payWith (default invoice) says how completion bills. Emits \`booking.created\` (service grooming).`,
      tags,
      access: { scope: 'bookings' },
      body: CreateGroomingAppointmentSchema,
      response: { status: 201, description: 'The new groom', schema: GroomingAppointmentSchema },
      errors: ['resource_missing', 'slot_unavailable', 'no_stylist_available'],
      handler: async ({ db, actor, body }) => ({
        body: presentGroomingAppointment(await createGroomingAppointment(db, actor, body, await now(db, actor.env), settings)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/appointments',
      operationId: 'listGroomingAppointments',
      summary: 'List grooms',
      description: access + 'Newest booked first; filters locationId, stylistId, petId, status, from and to (startsAt in [from, to)).',
      tags,
      access: { scope: 'bookings.read' },
      query: ListGroomingAppointmentsQuery,
      response: { status: 200, description: 'A page of grooms', schema: pageSchema(GroomingAppointmentSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listGroomingAppointments(db, actor, page, {
          locationId: query.locationId,
          stylistId: query.stylistId,
          petId: query.petId,
          status: query.status,
          from: instant(query.from, 'from'),
          to: instant(query.to, 'to'),
        });
        return { body: toPage(rows, page, presentGroomingAppointment) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/appointments/:id',
      operationId: 'getGroomingAppointment',
      summary: 'Get a groom',
      description: access,
      tags,
      access: { scope: 'bookings.read' },
      params: IdParams,
      response: { status: 200, description: 'The groom', schema: GroomingAppointmentSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentGroomingAppointment(await getGroomingAppointment(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/grooming/appointments/:id',
      operationId: 'updateGroomingAppointment',
      emits: ['booking.cancelled'],
      summary: 'Move a groom to another state',
      description:
        access +
        states +
        'cancelled and no_show emit `booking.cancelled` (reason optional). completed bills: payWith invoice → a finalized invoice (one line, sourceId = the booking id; invoiceId on the groom); ' +
        'membership → one credit of the parent’s active membership of the package (the one named on create, else the oldest with credits), 422 `no_membership_credit` when none is left; ' +
        'package_credit → one credit of an unexpired prepaid bundle (the one expiring first), 422 `no_package_credit`. ' +
        'A groom is completed from its startsAt on (the business clock: the sandbox test clock in the sandbox); before, 409 `invalid_state_transition` with `currentStatus` and `startsAt`. ' +
        'A refused completion leaves the status as it was.',
      tags,
      access: { scope: 'bookings' },
      params: IdParams,
      body: UpdateGroomingAppointmentSchema,
      response: { status: 200, description: 'The groom', schema: GroomingAppointmentSchema },
      errors: ['not_found', 'invalid_state_transition', 'no_membership_credit', 'no_package_credit'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentGroomingAppointment(await moveGroomingAppointment(db, actor, params.id, body, await now(db, actor.env))),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/grooming/stylists/assign',
      operationId: 'assignGroomingStylist',
      summary: 'Assign a stylist to a groom',
      description:
        access +
        'With stylistId: the stylist must be an active groomer at the groom’s location who offers the package, works the whole time and is free (appointments and grooms), else 409 `stylist_unavailable`. ' +
        assignRule +
        'Nobody free: 409 `no_stylist_available`. Only confirmed or checked-in grooms take another stylist (else 409 invalid_state_transition).',
      tags,
      access: { scope: 'bookings' },
      body: AssignStylistSchema,
      response: { status: 200, description: 'The groom with its stylist', schema: GroomingAppointmentSchema },
      errors: ['not_found', 'resource_missing', 'stylist_unavailable', 'no_stylist_available', 'invalid_state_transition'],
      handler: async ({ db, actor, body }) => ({ body: presentGroomingAppointment(await assignStylist(db, actor, body, await now(db, actor.env))) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/availability',
      operationId: 'getGroomingAvailability',
      summary: 'Free grooming slots',
      description:
        access +
        busy +
        'Slots of the package’s duration for the size, per stylist, from the same slot engine as appointments (stepped by the duration inside working hours, minus time off and every busy time, after the minimum notice). ' +
        'from and to are dates (inclusive) or date-times, at most 31 days apart. days lists each local day with its slot count and, for an empty day, why: no_stylist_working, fully_booked or outside_booking_window.',
      tags,
      access: { scope: 'bookings.read' },
      query: GroomingAvailabilityQuery,
      response: { status: 200, description: 'Free slots and a per-day summary', schema: GroomingAvailabilitySchema },
      errors: ['not_found', 'resource_missing'],
      handler: async ({ db, actor, query }) => ({ body: await groomingAvailability(db, actor, query, await now(db, actor.env), settings) }),
    }),

    // ------------------------------------------------------------ memberships
    defineRoute({
      method: 'post',
      path: '/v1/grooming/memberships',
      operationId: 'createGroomingMembership',
      summary: 'Start a grooming membership',
      description:
        access +
        'Billed by a subscription (POST /v1/subscriptions semantics: price per interval, collection wallet or send_invoice; the first period is invoiced at once). ' +
        'Each PAID period invoice grants sessionsPerPeriod credits of the package, usable at every location of the group (by petId only, when given); unused credits roll over while the membership is active. Emits `subscription.created`.',
      tags,
      access: { scope: 'bookings' },
      body: CreateMembershipSchema,
      response: { status: 201, description: 'The new membership', schema: MembershipSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => ({ body: presentMembership(await createMembership(db, actor, body, await now(db, actor.env))) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/memberships',
      operationId: 'listGroomingMemberships',
      summary: 'List grooming memberships',
      description: access + 'Newest first; filters parentId, packageId, status. A location-scoped client sees memberships billed at its locations.',
      tags,
      access: { scope: 'bookings.read' },
      query: ListMembershipsQuery,
      response: { status: 200, description: 'A page of memberships', schema: pageSchema(MembershipSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listMemberships(db, actor, page, { parentId: query.parentId, packageId: query.packageId, status: query.status });
        return { body: toPage(rows, page, presentMembership) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/memberships/:id',
      operationId: 'getGroomingMembership',
      summary: 'Get a grooming membership',
      description: access,
      tags,
      access: { scope: 'bookings.read' },
      params: IdParams,
      response: { status: 200, description: 'The membership', schema: MembershipSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentMembership(await getMembership(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/grooming/memberships/:id/cancel',
      operationId: 'cancelGroomingMembership',
      summary: 'Cancel a grooming membership',
      description:
        access +
        'Cancels its subscription now (emits `subscription.canceled`); its credits can no longer be spent. A cancelled membership answers 409 invalid_state_transition.',
      tags,
      access: { scope: 'bookings' },
      params: IdParams,
      response: { status: 200, description: 'The cancelled membership', schema: MembershipSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => ({ body: presentMembership(await cancelMembership(db, actor, params.id, await now(db, actor.env))) }),
    }),

    // ------------------------------------------------------------ prepaid bundles
    defineRoute({
      method: 'post',
      path: '/v1/grooming/package-credits',
      operationId: 'buyGroomingPackageCredits',
      summary: 'Sell a prepaid grooming bundle',
      description:
        access +
        'For a package with sessions > 1: a finalized invoice of sessions × the package price for the size (its line’s sourceId = the bundle id), and `sessions` credits at once, ' +
        'valid validDays (no expiry without). A groom with payWith package_credit spends one at completion. Emits `invoice.finalized`.',
      tags,
      access: { scope: 'bookings' },
      body: CreatePackageCreditSchema,
      response: { status: 201, description: 'The bundle with its credits', schema: PackageCreditSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => ({ body: presentPackageCredit(await buyPackageCredits(db, actor, body, await now(db, actor.env))) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/package-credits',
      operationId: 'listGroomingPackageCredits',
      summary: 'List prepaid grooming bundles',
      description: access + 'Newest first; filters parentId, packageId.',
      tags,
      access: { scope: 'bookings.read' },
      query: ListPackageCreditsQuery,
      response: { status: 200, description: 'A page of bundles', schema: pageSchema(PackageCreditSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return {
          body: toPage(await listPackageCredits(db, actor, page, { parentId: query.parentId, packageId: query.packageId }), page, presentPackageCredit),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/grooming/package-credits/:id',
      operationId: 'getGroomingPackageCredits',
      summary: 'Get a prepaid grooming bundle',
      description: access,
      tags,
      access: { scope: 'bookings.read' },
      params: IdParams,
      response: { status: 200, description: 'The bundle', schema: PackageCreditSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentPackageCredit(await getPackageCredit(db, actor, params.id)) }),
    }),
  ];
}
