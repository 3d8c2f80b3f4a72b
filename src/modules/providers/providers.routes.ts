import type { Clock } from '../../clock.js';
import type { Config, Environment } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { addListing, approveProvider, changeListing, suspendProvider } from './marketplace-providers.service.js';
import { presentListing, presentProvider, presentReview } from './providers.presenter.js';
import { providerAvailability } from './provider-slots.service.js';
import {
  CreateProviderSchema,
  ListingInputSchema,
  ListingParams,
  ListingSchema,
  ListProvidersQuery,
  ProviderAvailabilityQuery,
  ProviderParams,
  ProviderSchema,
  ProviderSlotsSchema,
  UpdateListingSchema,
  UpdateProviderSchema,
} from './providers.schema.js';
import { createProvider, getProvider, patchProvider } from './providers.service.js';
import { directoryPage } from './directory.service.js';
import { listReviews } from './reviews.repository.js';
import { CreateRatingSchema, ListReviewsQuery, ReplySchema, ReviewParams, ReviewSchema } from './reviews.schema.js';
import { rateBooking, replyToReview } from './reviews.service.js';

const tags = ['Providers'];
const reviewTags = ['Provider reviews'];
const managers = ['admin', 'staff'] as const;
const admins = ['admin'] as const;

/** The app's shared dependencies these routes read. */
interface RouteDeps {
  clock: Clock;
  config: Pick<Config, 'bookingMinNoticeMinutes'>;
}

export function providerRoutes(deps: RouteDeps): AnyRoute[] {
  // The fixed paths first: /v1/providers/availability and /v1/providers/reviews must win over /v1/providers/:id.
  return [...marketplaceReadRoutes(deps), ...providerCoreRoutes(deps), ...lifecycleRoutes(deps)];
}

/** The caller's business now: the sandbox's test clock (DESIGN §9) moves the dates of bookings, so open slots follow it as orders do. */
const businessClock = (deps: RouteDeps) => (db: Executor, env: Environment) => businessNow(db, env, deps.clock);

function marketplaceReadRoutes(deps: RouteDeps): AnyRoute[] {
  const now = businessClock(deps);
  return [
    defineRoute({
      method: 'get',
      path: '/v1/providers/availability',
      operationId: 'listProviderAvailability',
      summary: 'Open slots across providers',
      description:
        'Slots `{providerId, startsAt, endsAt}` earliest first, across the bookable providers (approved marketplace providers, active staff) ' +
        'chosen by `category` (those with an active listing of it) or `providerIds` (comma-separated, up to 50; an id the caller cannot see ' +
        'is 400 `resource_missing`), optionally at one `locationId`. A slot is working hours (schedules, per location and time zone) minus ' +
        "time off minus busy time (appointments and bookings holding the provider). Slot length: `durationMinutes`, else each provider's " +
        'shortest active listing (of the category), else 30 minutes. Pending, suspended and inactive providers have no open slots; their ' +
        'existing bookings stay. Window: `from` (default now) to `to` (default 7 days later, at most 31); no slot starts sooner than PETCARE_BOOKING_MIN_NOTICE_MINUTES ' +
        "from now, as orders refuse those (now is the sandbox test clock's in the sandbox). A location-scoped client sees its " +
        "locations' slots.",
      tags,
      access: { scope: 'bookings.read' },
      query: ProviderAvailabilityQuery,
      response: { status: 200, description: 'Open slots', schema: ProviderSlotsSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, query }) => ({
        body: await providerAvailability(db, actor, query, await now(db, actor.env), deps.config.bookingMinNoticeMinutes),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/providers/reviews',
      operationId: 'listProviderReviews',
      summary: 'List reviews of marketplace providers',
      description:
        'Verified reviews (each from a completed marketplace booking), newest first; filter by providerId. A location-scoped client sees ' +
        'the reviews of bookings at its locations.',
      tags: reviewTags,
      access: { scope: ['marketplace.read', 'bookings.read'] },
      query: ListReviewsQuery,
      response: { status: 200, description: 'A page of reviews', schema: pageSchema(ReviewSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listReviews(db, actor, page, { providerId: query.providerId }), page, presentReview) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/providers/ratings',
      operationId: 'rateProvider',
      summary: 'Rate a completed marketplace booking',
      description:
        "The booking's pet parent rates it: `bookingId` must be a marketplace booking at a location the caller sees, else 404. `parentId` is optional; " +
        "when sent, it must be a parent the caller sees (else 400 `resource_missing`) and the booking must be theirs, else 404 (another parent's booking looks unknown). One rating per booking: " +
        'a second one, even sent in parallel, is 409 `already_rated`; a booking not `completed` is 422 `booking_not_completed`. Stars 1–5, ' +
        "comment up to 5,000 characters. The provider's `rating` (average, 1 decimal) and `ratingCount` move in the same transaction.",
      tags: reviewTags,
      access: { scope: ['marketplace', 'bookings'] },
      body: CreateRatingSchema,
      response: { status: 201, description: 'The new review', schema: ReviewSchema },
      errors: ['not_found', 'resource_missing', 'already_rated', 'booking_not_completed'],
      handler: async ({ db, actor, body }) => ({ body: presentReview(await rateBooking(db, actor, body, await now(db, actor.env))) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/providers/reviews/:id/reply',
      operationId: 'replyToProviderReview',
      summary: "Answer a review on the provider's behalf",
      description: 'Admin clients with the marketplace scope. A review takes one reply: a second one is 409 `already_replied`.',
      tags: reviewTags,
      access: { scope: 'marketplace', roles: admins },
      params: ReviewParams,
      body: ReplySchema,
      response: { status: 200, description: 'The review with its reply', schema: ReviewSchema },
      errors: ['not_found', 'already_replied'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentReview(await replyToReview(db, actor, params.id, body.reply, await now(db, actor.env))),
      }),
    }),
  ];
}

function providerCoreRoutes(deps: RouteDeps): AnyRoute[] {
  const now = businessClock(deps);
  return [
    defineRoute({
      method: 'post',
      path: '/v1/providers',
      operationId: 'createProvider',
      emits: ['provider.onboarded'],
      summary: 'Onboard a provider',
      description:
        'A vet, groomer, sitter, walker or trainer working at one or more locations (each visible to the caller). `services` lists the ' +
        'appointment type codes the provider offers (case-insensitive; an empty or absent list means every type). Clinic staff providers ' +
        'start `active`. With `marketplace` (needs the marketplace scope, else 403) the provider is a marketplace provider: it starts ' +
        "`pending` with its listings (lst_ ids; currency defaults to its first location's), bio, service area and commission override, " +
        'and takes bookings once approved (`POST /v1/providers/{id}/approve`). Emits `provider.onboarded`.',
      tags,
      access: { scope: 'bookings', roles: managers },
      body: CreateProviderSchema,
      response: { status: 201, description: 'The new provider', schema: ProviderSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => ({ body: presentProvider(await createProvider(db, actor, body, deps.clock.now())) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/providers',
      operationId: 'listProviders',
      summary: 'The provider directory',
      description:
        'Newest first. By default the bookable providers: approved marketplace providers and active staff. Filters: locationId, kind, ' +
        'service (an appointment type code; providers offering every type match too), category (an active listing of it), minRating ' +
        '(unrated providers drop out), q (text in the name or bio), availableOn (a local date with at least one open slot, slot length as ' +
        'in /v1/providers/availability), status (`inactive` and `approved`/`active` for any reader; `pending` and `suspended` need the ' +
        'marketplace scope, else 403). Each provider carries `rating` (average of its reviews, 1 decimal, or null) and `ratingCount`, and ' +
        'marketplace providers their profile and listings. A location-scoped client sees the providers working at its locations. Pages ' +
        'without availableOn are reused while no provider, listing, profile or review changed (a change counter kept by triggers).',
      tags,
      access: { scope: 'bookings.read' },
      query: ListProvidersQuery,
      response: { status: 200, description: 'A page of providers', schema: pageSchema(ProviderSchema) },
      errors: ['invalid_cursor'],
      // availableOn counts slots an order could still take: from now plus the booking notice.
      handler: async ({ db, actor, query }) => ({
        body: await directoryPage(db, actor, query, (await now(db, actor.env)) + deps.config.bookingMinNoticeMinutes * 60_000),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/providers/:id',
      operationId: 'getProvider',
      summary: 'Get a provider',
      description: '`locationIds` lists the locations the caller can see; marketplace providers carry their profile and every listing.',
      tags,
      access: { scope: 'bookings.read' },
      params: ProviderParams,
      response: { status: 200, description: 'The provider', schema: ProviderSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentProvider(await getProvider(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/providers/:id',
      operationId: 'updateProvider',
      summary: 'Update a provider',
      description:
        'Renames, changes kind, services or status (staff providers: `inactive` providers take no new bookings), or replaces the ' +
        'locations. A location-scoped caller replaces only the locations it can see; the provider keeps the others. A marketplace ' +
        "provider's status moves only through /approve and /suspend (409 `invalid_state_transition`); its bio, serviceArea and " +
        'commissionBps change here with the marketplace scope (403 without; 400 on a staff provider).',
      tags,
      access: { scope: 'bookings', roles: managers },
      params: ProviderParams,
      body: UpdateProviderSchema,
      response: { status: 200, description: 'The updated provider', schema: ProviderSchema },
      errors: ['not_found', 'resource_missing', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body }) => ({ body: presentProvider(await patchProvider(db, actor, params.id, body, deps.clock.now())) }),
    }),
  ];
}

function lifecycleRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/providers/:id/approve',
      operationId: 'approveProvider',
      emits: ['provider.approved'],
      summary: 'Approve a marketplace provider',
      description:
        'Admin. pending → approved, and suspended → approved (the way back from a suspension). Refuses 422 `onboarding_incomplete` ' +
        '(naming what is `missing`) without an active listing or a weekly schedule (PUT /v1/appointments/schedules/{providerId}) at one ' +
        'of its locations; 409 `invalid_state_transition` from any other state (staff providers included). Emits `provider.approved`.',
      tags,
      access: { scope: 'marketplace', roles: admins },
      params: ProviderParams,
      response: { status: 200, description: 'The approved provider', schema: ProviderSchema },
      errors: ['not_found', 'onboarding_incomplete', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => ({ body: presentProvider(await approveProvider(db, actor, params.id, deps.clock.now())) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/providers/:id/suspend',
      operationId: 'suspendProvider',
      summary: 'Suspend a marketplace provider',
      description:
        'Admin. approved → suspended: the provider leaves the directory, its open slots disappear and it takes no new orders (422 ' +
        '`provider_not_bookable`); its existing bookings stay. Only an approved provider (409 `invalid_state_transition` otherwise). ' +
        '`POST /v1/providers/{id}/approve` reinstates it.',
      tags,
      access: { scope: 'marketplace', roles: admins },
      params: ProviderParams,
      response: { status: 200, description: 'The suspended provider', schema: ProviderSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => ({ body: presentProvider(await suspendProvider(db, actor, params.id, deps.clock.now())) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/providers/:id/listings',
      operationId: 'createProviderListing',
      summary: 'Add a listing to a marketplace provider',
      description:
        'Admin with the marketplace scope. A service the provider sells (lst_ id): name, category, amount (minor units), currency ' +
        "(default: its first location's), durationMinutes. 409 `conflict` for a clinic staff provider.",
      tags,
      access: { scope: 'marketplace', roles: admins },
      params: ProviderParams,
      body: ListingInputSchema,
      response: { status: 201, description: 'The new listing', schema: ListingSchema },
      errors: ['not_found', 'conflict'],
      handler: async ({ db, actor, params, body }) => ({ body: presentListing(await addListing(db, actor, params.id, body, deps.clock.now())) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/providers/:id/listings/:listingId',
      operationId: 'updateProviderListing',
      summary: 'Change or deactivate a listing',
      description:
        'Admin with the marketplace scope. Renames, re-prices, re-times or recategorises a listing; `status: inactive` deactivates it (no new ' +
        'orders; existing bookings keep their price), `active` brings it back. Prices of existing orders never change.',
      tags,
      access: { scope: 'marketplace', roles: admins },
      params: ListingParams,
      body: UpdateListingSchema,
      response: { status: 200, description: 'The listing', schema: ListingSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentListing(await changeListing(db, actor, params.id, params.listingId, body, deps.clock.now())),
      }),
    }),
  ];
}
