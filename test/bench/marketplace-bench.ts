/**
 * The marketplace directory case of `npm run bench` (module-cases.ts runs it beside GET /v1/pets/:id):
 *   GET /v1/providers?category=walking&minRating=4 over 2,000 approved marketplace providers (each
 *   with two listings) and 50,000 reviews, checked against 0.3 × GET /v1/pets/:id in the same run.
 * The rows go in by direct SQLite inserts into the server's file (WAL lets that happen while it
 * runs); the review inserts fire the same triggers the API does, so each provider's rating and
 * rating_count are what the ratings route would have left. The directory filters on those columns.
 */
import type autocannon from 'autocannon';
import path from 'node:path';
import { accessToken, benchAdmin, expectStatus, type GatewayServer } from './bench-servers.js';
import type { ModuleBenchCase, PreparedCase } from './module-cases.js';

const providers = 2_000;
const reviews = 50_000;
const categories = ['walking', 'sitting', 'boarding', 'daycare', 'training', 'grooming', 'transport', 'other'] as const;

async function prepare(gateway: GatewayServer): Promise<PreparedCase> {
  const [{ default: SQLite }, { newId }] = await Promise.all([import('better-sqlite3'), import('../../src/db/ids.js')]);
  const url = gateway.url;
  const admin = await accessToken(url, benchAdmin.clientId, benchAdmin.clientSecret);
  const location = await expectStatus(url, 'POST', '/v1/locations', 201, { name: 'Bench marketplace', timezone: 'Europe/London', currency: 'USD' }, admin);
  const parent = await expectStatus(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench marketplace owner', locationId: location.id }, admin);
  const pet = await expectStatus(
    url,
    'POST',
    '/v1/pets',
    201,
    { name: 'Bench walker dog', breed: 'Mixed', species: 'dog', ownerId: parent.id, locationId: location.id },
    admin,
  );
  const client = await expectStatus(
    url,
    'POST',
    '/v1/clients',
    201,
    { name: 'bench directory', role: 'staff', scopes: ['bookings.read'], rateLimitPerMinute: 100_000_000 },
    admin,
  );
  const token = await accessToken(url, String(client.clientId), String(client.clientSecret));

  const db = new SQLite(path.join(gateway.dataDir, 'live.sqlite'));
  try {
    db.pragma('busy_timeout = 10000');
    const tenantId = (db.prepare('select id from tenants limit 1').get() as { id: string }).id;
    const at = new Date().toISOString();
    const inChunks = (count: number, insert: (i: number) => void) => {
      for (let first = 0; first < count; first += 2_000) {
        db.transaction(() => {
          for (let i = first; i < Math.min(count, first + 2_000); i++) insert(i);
        })();
      }
    };
    const insertProvider = db.prepare(
      `insert into providers (id, tenant_id, name, kind, status, services, rating, rating_count, created_at, updated_at) values (?, ?, ?, 'walker', 'approved', '[]', null, 0, ?, ?)`,
    );
    const insertLocation = db.prepare(`insert into provider_locations (provider_id, location_id, tenant_id) values (?, ?, ?)`);
    const insertProfile = db.prepare(
      `insert into provider_marketplace_profiles (provider_id, tenant_id, bio, service_area, commission_bps, approved_at, suspended_at, created_at, updated_at) values (?, ?, ?, 'Bench town', null, ?, null, ?, ?)`,
    );
    const insertListing = db.prepare(
      `insert into marketplace_listings (id, tenant_id, provider_id, name, category, amount, currency, duration_minutes, status, created_at, updated_at) values (?, ?, ?, ?, ?, ?, 'USD', 60, 'active', ?, ?)`,
    );
    const providerIds: string[] = [];
    inChunks(providers, (i) => {
      const id = newId('prv');
      providerIds.push(id);
      insertProvider.run(id, tenantId, `Bench provider ${i}`, at, at);
      insertLocation.run(id, location.id, tenantId);
      insertProfile.run(id, tenantId, `Walks and visits, provider ${i}.`, at, at, at);
      for (const offset of [0, 3]) {
        const category = categories[(i + offset) % categories.length]!;
        insertListing.run(newId('lst'), tenantId, id, `${category} with ${i}`, category, 1_000 + (i % 50) * 100, at, at);
      }
    });
    // Each review stands on a completed marketplace booking; a provider's stars lean by its group of 8
    // (averages 2.5, 3.5, 4.5, 5), across categories: minRating=4 keeps half of the walkers.
    const insertBooking = db.prepare(
      `insert into bookings (id, tenant_id, kind, status, pet_id, parent_id, location_id, provider_id, starts_at, ends_at, amount, currency, invoice_id, created_at, updated_at)
       values (?, ?, 'marketplace', 'completed', ?, ?, ?, ?, ?, ?, 2500, 'USD', null, ?, ?)`,
    );
    const insertReview = db.prepare(
      `insert into provider_reviews (id, tenant_id, provider_id, booking_id, parent_id, pet_id, location_id, stars, comment, reply, replied_at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?)`,
    );
    const past = Date.now() - 400 * 86_400_000;
    inChunks(reviews, (i) => {
      const p = i % providers;
      const providerId = providerIds[p]!;
      const bookingId = newId('bkg');
      const start = new Date(past + i * 600_000).toISOString();
      const end = new Date(past + i * 600_000 + 3_600_000).toISOString();
      insertBooking.run(bookingId, tenantId, pet.id, parent.id, location.id, providerId, start, end, at, at);
      const stars = Math.min(5, 2 + (Math.floor(p / 8) % 4) + (Math.floor(i / providers) % 2));
      insertReview.run(newId('rev'), tenantId, providerId, bookingId, parent.id, pet.id, location.id, stars, i % 3 === 0 ? 'Great walk' : null, end);
    });
  } finally {
    db.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 200));

  const pathname = '/v1/providers?category=walking&minRating=4';
  const probe = await expectStatus(url, 'GET', pathname, 200, undefined, token);
  const data = probe.data as Array<{ rating: number; ratingCount: number; marketplace?: { listings: unknown[] } }>;
  if (data.length !== 25 || data.some((p) => p.rating < 4 || !p.marketplace))
    throw new Error(`the directory bench answer is not the expected page: ${JSON.stringify(probe).slice(0, 300)}`);
  return {
    options: (): autocannon.Options => ({ url: url + pathname, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }),
    report: () =>
      `one answer: ${data.length} providers (first rated ${data[0]!.rating} from ${data[0]!.ratingCount} reviews, with profile and listings), ` +
      `of ${providers.toLocaleString('en')} providers and ${reviews.toLocaleString('en')} reviews`,
  };
}

export const marketplaceDirectoryCase: ModuleBenchCase = {
  key: 'j',
  label: 'GET /v1/providers (2,000 providers, 50,000 reviews, category + minRating)',
  targetOverGet: 0.3,
  prepare,
};
