import type { Executor } from '../../db/database.js';
import { VersionedCache } from '../../db/versioned-cache.js';
import type { Actor } from '../../http/actor.js';
import { AppError } from '../../http/errors.js';
import { pageRequest, toPage, type Page } from '../../http/paging.js';
import { withMarketplace } from './marketplace-providers.service.js';
import { presentProvider } from './providers.presenter.js';
import { directoryVersion, listProviders, type ProviderFilters, type ProviderRecord } from './providers.repository.js';
import type { ListProvidersFilters, ProviderOut } from './providers.schema.js';
import type { ListingCategory } from './providers.table.js';
import { bookableStatuses, openOn } from './provider-slots.service.js';

/** Rows the directory reads per round when `availableOn` filters after the query. */
const availabilityBatch = 200;

/**
 * Pages by database (environment), caller's view and query, with the change counter they were
 * computed under: everything a page shows changes only through writes whose triggers move the
 * counter (reviews move providers' rating columns), so a page is reused exactly while nothing it
 * reads changed; the directory is read far more often than providers change. `availableOn` answers
 * depend on the clock and on bookings, so they are always computed.
 */
const pages = new VersionedCache<Page<ProviderOut>>(1000);

/**
 * The directory: the bookable providers (approved marketplace, active staff) unless `status` names
 * another one (pending and suspended need the marketplace scope), filtered in SQL by location, kind,
 * service, category, minimum rating and text; `availableOn` then keeps those with an open slot that
 * day that starts at `earliest` or later (now plus the booking notice), reading on in batches until
 * the page is full. Newest first, cursor paged.
 */
export async function directoryPage(db: Executor, actor: Actor, query: ListProvidersFilters, earliest: number): Promise<Page<ProviderOut>> {
  if ((query.status === 'pending' || query.status === 'suspended') && !actor.scopes.has('marketplace')) {
    throw new AppError('insufficient_scope', `Listing ${query.status} providers needs the marketplace scope.`);
  }
  const page = pageRequest(query);
  if (query.availableOn !== undefined)
    return toPage(await withMarketplace(db, actor, await openRows(db, actor, query, page, query.availableOn, earliest)), page, presentProvider);
  const key = `${actor.tenantId}|${actor.locationIds?.join(',') ?? '*'}|${JSON.stringify(query)}`;
  const version = await directoryVersion(db);
  const cached = pages.get(db, key, version);
  if (cached) return cached;
  const rows = await listProviders(db, actor, page, filtersOf(query));
  const answer = toPage(await withMarketplace(db, actor, rows), page, presentProvider);
  pages.set(db, key, version, answer);
  return answer;
}

function filtersOf(query: ListProvidersFilters): ProviderFilters {
  return {
    locationId: query.locationId,
    kind: query.kind,
    service: query.service?.toLowerCase(),
    status: query.status,
    // A look-up by externalId finds the provider whatever its status (an import's check).
    statuses: query.status === undefined && query.externalId === undefined ? bookableStatuses : undefined,
    category: query.category as ListingCategory | undefined,
    minRating: query.minRating,
    q: query.q,
    externalId: query.externalId,
  };
}

/** Rows (one more than the page when there are more) with an open slot on `date`, read in batches. */
async function openRows(
  db: Executor,
  actor: Actor,
  query: ListProvidersFilters,
  page: ReturnType<typeof pageRequest>,
  date: string,
  earliest: number,
): Promise<ProviderRecord[]> {
  const filters = filtersOf(query);
  const rows: ProviderRecord[] = [];
  let afterId = page.afterId;
  for (;;) {
    const batch = await listProviders(db, actor, { limit: availabilityBatch - 1, afterId }, filters);
    const open = await openOn(
      db,
      actor,
      batch.map((r) => r.id),
      date,
      earliest,
      filters.category,
      query.locationId,
    );
    rows.push(...batch.filter((r) => open.has(r.id)));
    const last = batch[batch.length - 1];
    if (rows.length > page.limit || batch.length < availabilityBatch || !last) break;
    afterId = last.id;
  }
  return rows.slice(0, page.limit + 1);
}
