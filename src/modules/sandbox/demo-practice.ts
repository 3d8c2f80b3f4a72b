import { DateTime } from 'luxon';
import { isoAt } from '../../clock.js';
import { addDays, dayMs, localDate, utcDate } from '../../calendar-dates.js';
import { accounts, taxOf } from '../payments/index.js';
import { DemoRandom } from './demo-random.js';

/**
 * The sandbox's demo practice (DESIGN §18): three clinics in three time zones, their parents and
 * pets, three months of appointments and grooms behind and a month booked ahead, vaccinations up to
 * date, due and overdue, invoices paid, open and refunded with their journal entries, wallets,
 * boarding stays with care plans, marketplace orders with commission and reviews, and a knowledge
 * service with a document. Built as plain rows by a seeded PRNG, dated from `now`, so a reset at
 * the same instant writes the same practice and it always looks current. Money rows follow the
 * payments module's postings line for line (the ledger's triggers refuse anything unbalanced).
 */

type Row = Record<string, unknown>;

interface DemoLocation {
  id: string;
  name: string;
  timezone: string;
  currency: string;
  tax_rate_bps: number;
  /** Scales the practice's price list into the location's currency. */
  priceFactor: number;
  prefix: string;
}

const practiceLocations: readonly DemoLocation[] = [
  {
    id: 'loc_demo_downtown',
    name: 'Downtown Veterinary Clinic',
    timezone: 'America/New_York',
    currency: 'USD',
    tax_rate_bps: 825,
    priceFactor: 1,
    prefix: 'DVC',
  },
  {
    id: 'loc_demo_riverside',
    name: 'Riverside Grooming & Boarding',
    timezone: 'Europe/London',
    currency: 'GBP',
    tax_rate_bps: 2000,
    priceFactor: 0.8,
    prefix: 'RGB',
  },
  {
    id: 'loc_demo_harbour',
    name: 'Harbour Animal Hospital',
    timezone: 'Australia/Sydney',
    currency: 'AUD',
    tax_rate_bps: 1000,
    priceFactor: 1.5,
    prefix: 'HAH',
  },
];

/** The parents, pets, providers and vaccinations docs and tutorials name; the rest of the practice is generated around them. */
const fixedParents = [
  { id: 'usr_demo_alex', name: 'Alex Morgan', email: 'alex@example.com', phone: '+1 555 0100', location_id: 'loc_demo_downtown', reminder_consent: 1 },
  { id: 'usr_demo_sam', name: 'Sam Patel', email: 'sam@example.com', phone: '+1 555 0101', location_id: 'loc_demo_downtown', reminder_consent: 0 },
  { id: 'usr_demo_jo', name: 'Jo Williams', email: 'jo@example.org', phone: '+44 20 7946 0000', location_id: 'loc_demo_riverside', reminder_consent: 1 },
] as const;

const fixedPets = [
  {
    id: 'pet_demo_bella',
    name: 'Bella',
    breed: 'Labrador Retriever',
    species: 'dog',
    size: 'large',
    owner_id: 'usr_demo_alex',
    location_id: 'loc_demo_downtown',
    birth_date: '2020-03-14',
  },
  {
    id: 'pet_demo_milo',
    name: 'Milo',
    breed: 'Maine Coon',
    species: 'cat',
    size: 'medium',
    owner_id: 'usr_demo_alex',
    location_id: 'loc_demo_downtown',
    birth_date: '2019-07-01',
  },
  {
    id: 'pet_demo_luna',
    name: 'Luna',
    breed: 'Border Collie',
    species: 'dog',
    size: 'medium',
    owner_id: 'usr_demo_sam',
    location_id: 'loc_demo_downtown',
    birth_date: '2022-01-20',
  },
  {
    id: 'pet_demo_oscar',
    name: 'Oscar',
    breed: 'Holland Lop',
    species: 'rabbit',
    size: 'small',
    owner_id: 'usr_demo_jo',
    location_id: 'loc_demo_riverside',
    birth_date: null,
  },
  {
    id: 'pet_demo_daisy',
    name: 'Daisy',
    breed: 'Cavalier King Charles Spaniel',
    species: 'dog',
    size: 'small',
    owner_id: 'usr_demo_jo',
    location_id: 'loc_demo_riverside',
    birth_date: '2018-11-05',
  },
] as const;

const clinicalServices = ['checkup', 'vaccination', 'vet_consultation', 'dental', 'surgery'];

interface DemoProvider {
  id: string;
  name: string;
  kind: 'vet' | 'groomer' | 'walker' | 'sitter' | 'trainer';
  services: readonly string[];
  location_ids: readonly string[];
}

/** Providers with working hours (in each location's zone), so availability shows slots at once. */
const practiceProviders: readonly DemoProvider[] = [
  { id: 'prv_demo_chen', name: 'Dr. Maya Chen', kind: 'vet', services: [], location_ids: ['loc_demo_downtown'] },
  {
    id: 'prv_demo_okafor',
    name: 'Dr. Samuel Okafor',
    kind: 'vet',
    services: ['checkup', 'vaccination', 'vet_consultation'],
    location_ids: ['loc_demo_downtown', 'loc_demo_riverside'],
  },
  { id: 'prv_demo_rosa', name: 'Rosa Lindqvist', kind: 'groomer', services: ['grooming'], location_ids: ['loc_demo_riverside'] },
  { id: 'prv_demo_nair', name: 'Dr. Priya Nair', kind: 'vet', services: clinicalServices, location_ids: ['loc_demo_harbour'] },
  { id: 'prv_demo_walsh', name: 'Dr. Fiona Walsh', kind: 'vet', services: ['checkup', 'vaccination', 'dental'], location_ids: ['loc_demo_riverside'] },
  { id: 'prv_demo_kim', name: 'Jin Kim', kind: 'groomer', services: ['grooming'], location_ids: ['loc_demo_harbour'] },
  { id: 'prv_demo_trails', name: 'Happy Trails Dog Walking', kind: 'walker', services: [], location_ids: ['loc_demo_downtown'] },
  { id: 'prv_demo_sitwell', name: 'Sitwell Pet Sitting', kind: 'sitter', services: [], location_ids: ['loc_demo_riverside'] },
  { id: 'prv_demo_barkley', name: 'Barkley Training Co.', kind: 'trainer', services: [], location_ids: ['loc_demo_harbour'] },
];

const weekdays = (days: readonly number[], start: string, end: string) => days.map((weekday) => ({ weekday, start, end }));

const practiceSchedules = [
  {
    id: 'sch_demo_chen_downtown',
    provider_id: 'prv_demo_chen',
    location_id: 'loc_demo_downtown',
    weekly: [...weekdays([1, 2, 3, 4, 5], '09:00', '12:30'), ...weekdays([1, 2, 3, 4, 5], '13:30', '17:00')],
  },
  { id: 'sch_demo_okafor_downtown', provider_id: 'prv_demo_okafor', location_id: 'loc_demo_downtown', weekly: weekdays([1, 3, 5], '10:00', '18:00') },
  {
    id: 'sch_demo_okafor_riverside',
    provider_id: 'prv_demo_okafor',
    location_id: 'loc_demo_riverside',
    weekly: [...weekdays([2, 4], '09:00', '17:00'), ...weekdays([6], '09:00', '13:00')],
  },
  { id: 'sch_demo_rosa_riverside', provider_id: 'prv_demo_rosa', location_id: 'loc_demo_riverside', weekly: weekdays([2, 3, 4, 5, 6], '08:30', '16:30') },
  { id: 'sch_demo_nair_harbour', provider_id: 'prv_demo_nair', location_id: 'loc_demo_harbour', weekly: weekdays([1, 2, 3, 4, 5], '08:00', '16:00') },
  { id: 'sch_demo_walsh_riverside', provider_id: 'prv_demo_walsh', location_id: 'loc_demo_riverside', weekly: weekdays([1, 3, 5], '09:00', '17:00') },
  { id: 'sch_demo_kim_harbour', provider_id: 'prv_demo_kim', location_id: 'loc_demo_harbour', weekly: weekdays([2, 3, 4, 5, 6], '09:00', '17:00') },
  { id: 'sch_demo_trails_downtown', provider_id: 'prv_demo_trails', location_id: 'loc_demo_downtown', weekly: weekdays([1, 2, 3, 4, 5, 6], '07:00', '19:00') },
  {
    id: 'sch_demo_sitwell_riverside',
    provider_id: 'prv_demo_sitwell',
    location_id: 'loc_demo_riverside',
    weekly: weekdays([1, 2, 3, 4, 5, 6], '08:00', '20:00'),
  },
  { id: 'sch_demo_barkley_harbour', provider_id: 'prv_demo_barkley', location_id: 'loc_demo_harbour', weekly: weekdays([1, 2, 3, 4, 5], '10:00', '18:00') },
] as const;

/** Vaccinations of the named pets: Bella is due soon, Milo up to date, Luna overdue, Oscar has none, Daisy is up to date. */
const fixedVaccinations = [
  {
    id: 'vac_demo_bella_rabies',
    pet_id: 'pet_demo_bella',
    location_id: 'loc_demo_downtown',
    vaccine: 'Rabies',
    given: -345,
    due: 20,
    provider_id: 'prv_demo_chen',
  },
  {
    id: 'vac_demo_bella_dhpp',
    pet_id: 'pet_demo_bella',
    location_id: 'loc_demo_downtown',
    vaccine: 'DHPP',
    given: -100,
    due: 265,
    provider_id: 'prv_demo_chen',
  },
  {
    id: 'vac_demo_milo_fvrcp',
    pet_id: 'pet_demo_milo',
    location_id: 'loc_demo_downtown',
    vaccine: 'FVRCP',
    given: -60,
    due: 305,
    provider_id: 'prv_demo_okafor',
  },
  { id: 'vac_demo_luna_dhpp', pet_id: 'pet_demo_luna', location_id: 'loc_demo_downtown', vaccine: 'DHPP', given: -375, due: -10, provider_id: null },
  {
    id: 'vac_demo_daisy_rabies',
    pet_id: 'pet_demo_daisy',
    location_id: 'loc_demo_riverside',
    vaccine: 'Rabies',
    given: -30,
    due: 700,
    provider_id: 'prv_demo_okafor',
  },
] as const;

const firstNames = [
  'Olivia',
  'Liam',
  'Emma',
  'Noah',
  'Ava',
  'Ethan',
  'Sophia',
  'Mason',
  'Isabella',
  'Lucas',
  'Mia',
  'Oliver',
  'Amelia',
  'Elijah',
  'Harper',
  'James',
  'Evelyn',
  'Benjamin',
  'Abigail',
  'Henry',
  'Emily',
  'Jack',
  'Ella',
  'Leo',
  'Grace',
  'Ruby',
  'Oscar',
  'Chloe',
  'Arjun',
  'Hana',
];
const lastNames = [
  'Johnson',
  'Garcia',
  'Nguyen',
  'Brown',
  'Okonkwo',
  'Smith',
  'Kowalski',
  'Rossi',
  'Tanaka',
  'Murphy',
  "O'Brien",
  'Schmidt',
  'Lopez',
  'Walker',
  'Haddad',
  'Fischer',
  'Silva',
  'Clarke',
  'Evans',
  'Kaur',
  'Cohen',
  'Dubois',
  'Novak',
  'Reid',
  'Singh',
  'Young',
  'Wright',
];
const petNames = [
  'Max',
  'Charlie',
  'Cooper',
  'Bailey',
  'Lucy',
  'Rocky',
  'Sadie',
  'Molly',
  'Buddy',
  'Coco',
  'Teddy',
  'Rosie',
  'Bear',
  'Loki',
  'Nala',
  'Ziggy',
  'Pepper',
  'Willow',
  'Finn',
  'Hazel',
  'Murphy',
  'Olive',
  'Biscuit',
  'Maple',
  'Winston',
  'Penny',
  'Jasper',
  'Kiwi',
  'Tilly',
  'Archie',
  'Smokey',
  'Simba',
  'Cleo',
  'Tiger',
  'Felix',
  'Misty',
  'Shadow',
  'Ginger',
  'Mochi',
  'Pumpkin',
  'Thumper',
  'Clover',
  'Hopper',
  'Juniper',
  'Poppy',
];
const dogBreeds: ReadonlyArray<readonly [string, string]> = [
  ['Labrador Retriever', 'large'],
  ['French Bulldog', 'small'],
  ['Golden Retriever', 'large'],
  ['German Shepherd', 'xlarge'],
  ['Beagle', 'medium'],
  ['Dachshund', 'small'],
  ['Poodle', 'medium'],
  ['Border Collie', 'medium'],
  ['Boxer', 'large'],
  ['Cocker Spaniel', 'medium'],
  ['Shih Tzu', 'small'],
  ['Great Dane', 'xlarge'],
  ['Jack Russell Terrier', 'small'],
  ['Australian Shepherd', 'medium'],
  ['Mixed breed', 'medium'],
];
const catBreeds = ['Domestic Shorthair', 'Maine Coon', 'Siamese', 'Ragdoll', 'British Shorthair', 'Bengal', 'Domestic Longhair', 'Sphynx'];
const rabbitBreeds = ['Holland Lop', 'Netherland Dwarf', 'Rex', 'Lionhead'];
const vaccinesOf: Record<string, ReadonlyArray<readonly [string, number]>> = {
  dog: [
    ['Rabies', 365],
    ['DHPP', 365],
    ['Bordetella', 180],
  ],
  cat: [
    ['Rabies', 365],
    ['FVRCP', 365],
  ],
  rabbit: [['RHDV2', 365]],
};

/** The price list in USD cents (scaled per location): what a visit bills. */
const visitLines: Record<string, ReadonlyArray<readonly [string, number]>> = {
  checkup: [['Wellness examination', 6500]],
  vaccination: [
    ['Vaccine administration', 2500],
    ['Vaccine', 3200],
  ],
  vet_consultation: [['Consultation', 8500]],
  dental: [
    ['Dental cleaning', 32000],
    ['Anaesthesia', 12000],
  ],
  surgery: [
    ['Surgery', 95000],
    ['Anaesthesia', 15000],
    ['Post-operative medication', 4500],
  ],
};
const typeMinutes: Record<string, { duration: number; before: number; after: number }> = {
  checkup: { duration: 30, before: 0, after: 5 },
  vaccination: { duration: 15, before: 0, after: 5 },
  vet_consultation: { duration: 30, before: 0, after: 10 },
  dental: { duration: 60, before: 15, after: 15 },
  surgery: { duration: 120, before: 30, after: 30 },
};

const groomingPackages = [
  {
    key: 'full',
    name: 'Full groom',
    services: ['bath', 'haircut', 'nail_trim', 'ear_cleaning'],
    durations: [60, 90, 120, 150],
    prices: [5500, 7000, 8500, 10500],
    sessions: 1,
    valid_days: null,
  },
  {
    key: 'bath',
    name: 'Bath & tidy',
    services: ['bath', 'nail_trim'],
    durations: [30, 45, 60, 75],
    prices: [3000, 3800, 4600, 5500],
    sessions: 1,
    valid_days: null,
  },
  {
    key: 'bundle',
    name: 'Five-groom bundle',
    services: ['bath', 'haircut', 'nail_trim'],
    durations: [60, 90, 120, 150],
    prices: [24000, 31000, 38000, 46000],
    sessions: 5,
    valid_days: 180,
  },
] as const;

const sizes = ['small', 'medium', 'large', 'xlarge'] as const;

const boardingRooms = [
  { location_id: 'loc_demo_riverside', name: 'Garden Suites', room_type: 'suite', species: 'dog', capacity: 6, rate: 4500 },
  { location_id: 'loc_demo_riverside', name: 'Cattery', room_type: 'cattery', species: 'cat', capacity: 6, rate: 2500 },
  { location_id: 'loc_demo_harbour', name: 'Kennel Runs', room_type: 'kennel', species: 'dog', capacity: 8, rate: 6000 },
  { location_id: 'loc_demo_harbour', name: 'Cat Condos', room_type: 'condo', species: 'cat', capacity: 4, rate: 3500 },
] as const;

const listings = [
  { provider_id: 'prv_demo_trails', name: '30-minute neighbourhood walk', category: 'walking', amount: 2500, minutes: 30 },
  { provider_id: 'prv_demo_trails', name: 'One-hour park adventure', category: 'walking', amount: 4500, minutes: 60 },
  { provider_id: 'prv_demo_sitwell', name: 'Home visit and feed', category: 'sitting', amount: 1800, minutes: 45 },
  { provider_id: 'prv_demo_sitwell', name: 'Overnight house sitting', category: 'sitting', amount: 6500, minutes: 720 },
  { provider_id: 'prv_demo_barkley', name: 'Puppy training session', category: 'training', amount: 7500, minutes: 60 },
] as const;
const marketplaceCommissionBps = 1500;

const reviewComments = [
  'Lovely with our dog, will book again.',
  'On time and sent photos during the visit.',
  'Very patient and kind.',
  'Great communication, highly recommend.',
  'Good service, a little late to arrive.',
  null,
];

export const knowledgeDocumentText = `Clinic handbook: policies and aftercare

Opening hours. Downtown Veterinary Clinic is open Monday to Friday, 9:00 to 17:00 New York time. Riverside Grooming & Boarding opens Tuesday to Saturday, 8:30 to 16:30 London time, with boarding check-in from 14:00 and check-out by 11:00. Harbour Animal Hospital is open Monday to Friday, 8:00 to 16:00 Sydney time.

Vaccination policy. Dogs need current Rabies and DHPP vaccinations; Bordetella (kennel cough) is renewed every six months for dogs that board or visit daycare. Cats need Rabies and FVRCP; rabbits need RHDV2 once a year. A vaccination is overdue the day after its due date; we send reminders thirty days before.

Boarding. Bring your pet's own food in labelled portions. Medications are given at the times on the care plan and each dose is recorded; a missed dose alerts the duty manager. Cancellations more than 48 hours before check-in are free.

After surgery. Keep the wound clean and dry, prevent licking with a cone, and give all prescribed medication with food. Call us at once for bleeding, swelling, vomiting or lethargy. Stitches come out after 10 to 14 days.

Dental aftercare. Offer soft food for 48 hours after a dental cleaning and brush daily with pet toothpaste from the third day.

Payments. Invoices are due within 14 days. We accept card, cash and bank transfer, and prepaid wallet credit. Wellness plans are billed monthly from the wallet; a refund goes back to the way it was paid.
`;

interface Pet {
  id: string;
  owner_id: string;
  location_id: string;
  species: string;
  size: string | null;
  created: number;
  fixed: boolean;
}

/** What the practice seeds besides the plain rows: subscriptions and memberships go through the payments and grooming services. */
export interface PracticePlan {
  /** Plain rows per table, in the order they are inserted. */
  tables: Array<[table: string, rows: Row[]]>;
  /** Invoices written as drafts (their lines need a draft), then moved to their final state. */
  finalize: Row[];
  counters: Row[];
  /** Each billed as it would have been: created on its start date, every later period at its start (the location's zone). */
  wellnessPlans: Array<{
    parentId: string;
    petId: string;
    locationId: string;
    timezone: string;
    amount: number;
    startDate: string;
    collection: 'wallet' | 'send_invoice';
  }>;
  memberships: Array<{ parentId: string; petId: string; locationId: string; packageId: string; price: number }>;
}

/** Offsets of (zone, date) at local noon: daytime slots never straddle a DST change (at night), and luxon per slot cost most of the plan's time. */
const offsets = new Map<string, number>();
function localInstant(date: string, time: string, zone: string): number {
  const key = `${zone}|${date}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = DateTime.fromISO(`${date}T12:00`, { zone }).offset;
    offsets.set(key, offset);
  }
  return Date.parse(`${date}T${time}:00Z`) - offset * 60_000;
}
/** The local date of a daytime instant, from the same cached offsets (luxon per call cost more than the rest of the plan). */
function localDay(ms: number, zone: string): string {
  const date = utcDate(ms);
  localInstant(date, '12:00', zone);
  return utcDate(ms + offsets.get(`${zone}|${date}`)! * 60_000);
}
const weekdayOf = (date: string): number => new Date(`${date}T00:00:00Z`).getUTCDay() || 7;
const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const timeOf = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Days of history and of bookings ahead. */
const pastDays = 90;
const aheadDays = 30;
/**
 * Around the day of seeding the named providers and pets keep their mornings free: tutorials and
 * tests book them at once (Dr. Chen at 09:00, Rosa at 10:30…), and must find the slot open.
 */
const keepFreeFrom = -3;
const keepFreeTo = 5;
const keepFreeUntilLocal = 14 * 60;
const namedProviders = new Set(['prv_demo_chen', 'prv_demo_okafor', 'prv_demo_rosa']);

export function planPractice(tenantId: string, now: number): PracticePlan {
  const r = new DemoRandom(0x5eed_2026);
  const at = (ms: number) => isoAt(ms);
  const loc = new Map(practiceLocations.map((l) => [l.id, l]));
  const price = (usd: number, locationId: string) => Math.round((usd * loc.get(locationId)!.priceFactor) / 50) * 50;
  const todayAt = (locationId: string) => localDate(now, loc.get(locationId)!.timezone);
  const tenant = { tenant_id: tenantId };

  // Locations opened just before the history starts (the settlement job closes every day since: a few hundred closes, not years of them).
  const locationsCreated = now - (pastDays + 5) * dayMs;
  const locations: Row[] = practiceLocations.map(({ priceFactor: _, prefix: __, ...l }) => ({
    ...l,
    ...tenant,
    created_at: at(locationsCreated),
    updated_at: at(locationsCreated),
  }));

  // Parents: the three named ones, then 27 more spread over the clinics.
  const parents: Row[] = fixedParents.map((p) => ({ ...p, ...tenant, created_at: at(locationsCreated + dayMs), updated_at: at(locationsCreated + dayMs) }));
  const parentCreated = new Map<string, number>(parents.map((p) => [p.id as string, locationsCreated + dayMs]));
  const parentLocation = new Map<string, string>(fixedParents.map((p) => [p.id, p.location_id]));
  const spread = ['loc_demo_downtown', 'loc_demo_downtown', 'loc_demo_riverside', 'loc_demo_harbour'];
  for (let i = 0; i < 27; i++) {
    const first = firstNames[i % firstNames.length]!;
    const last = r.pick(lastNames);
    const locationId = spread[i % spread.length]!;
    const created = now - r.int(30, pastDays) * dayMs - r.int(0, dayMs);
    const phone =
      locationId === 'loc_demo_riverside'
        ? `+44 20 7946 ${String(100 + i).padStart(4, '0')}`
        : locationId === 'loc_demo_harbour'
          ? `+61 2 5550 ${String(100 + i).padStart(4, '0')}`
          : `+1 555 ${String(200 + i).padStart(4, '0')}`;
    const id = r.id('usr', created);
    parents.push({
      id,
      ...tenant,
      location_id: locationId,
      name: `${first} ${last}`,
      email: r.chance(0.92) ? `${first}.${last.replace(/[^A-Za-z]/g, '')}@example.com`.toLowerCase() : null,
      phone,
      reminder_consent: r.chance(0.75) ? 1 : 0,
      created_at: at(created),
      updated_at: at(created),
    });
    parentCreated.set(id, created);
    parentLocation.set(id, locationId);
  }

  // Pets: the five named ones, then 95 more; a few joined this month.
  const pets: Pet[] = fixedPets.map((p) => ({
    id: p.id,
    owner_id: p.owner_id,
    location_id: p.location_id,
    species: p.species,
    size: p.size,
    created: locationsCreated + dayMs,
    fixed: true,
  }));
  const petRows: Row[] = fixedPets.map((p) => ({
    ...p,
    ...tenant,
    last_visit: null,
    created_at: at(locationsCreated + dayMs),
    updated_at: at(locationsCreated + dayMs),
  }));
  const generatedParents = parents.slice(fixedParents.length);
  for (let i = 0; i < 95; i++) {
    // The named parents keep exactly their named pets (tutorials list Alex's two).
    const owner = i < generatedParents.length ? generatedParents[i]! : r.pick(generatedParents);
    const ownerId = owner.id as string;
    const species = r.weighted([
      ['dog', 55],
      ['cat', 35],
      ['rabbit', 10],
    ] as const);
    const recent = i % 12 === 5;
    const ownerSince = parentCreated.get(ownerId)!;
    const created = recent
      ? now - r.int(1, 25) * dayMs - r.int(0, dayMs)
      : ownerSince + r.int(0, Math.max(1, Math.floor((now - ownerSince) / dayMs) - 30)) * dayMs;
    let breed: string;
    let size: string;
    if (species === 'dog') [breed, size] = r.pick(dogBreeds);
    else if (species === 'cat') [breed, size] = [r.pick(catBreeds), r.chance(0.3) ? 'medium' : 'small'];
    else [breed, size] = [r.pick(rabbitBreeds), 'small'];
    const id = r.id('pet', created);
    const birth = addDays(utcDate(now), -r.int(200, 14 * 365));
    pets.push({ id, owner_id: ownerId, location_id: parentLocation.get(ownerId)!, species, size, created, fixed: false });
    petRows.push({
      id,
      ...tenant,
      location_id: parentLocation.get(ownerId)!,
      owner_id: ownerId,
      name: petNames[i % petNames.length]!,
      breed,
      species,
      size,
      birth_date: r.chance(0.9) ? birth : null,
      last_visit: null,
      created_at: at(created),
      updated_at: at(created),
    });
  }
  const petById = new Map(pets.map((p) => [p.id, p]));
  const petsByKey = new Map<string, Pet[]>();
  const petsAt = (locationId: string, species?: readonly string[]): Pet[] => {
    const key = `${locationId}|${species?.join() ?? ''}`;
    let list = petsByKey.get(key);
    if (list === undefined) {
      list = pets.filter((p) => p.location_id === locationId && (species === undefined || species.includes(p.species)));
      petsByKey.set(key, list);
    }
    return list;
  };
  /** A pet of the list that existed a day before `start` (and, if asked, is not one of the named five); undefined after a few misses. */
  const petFor = (list: readonly Pet[], start: number, skipFixed = false): Pet | undefined => {
    for (let tries = 0; tries < 12; tries++) {
      const pet = r.pick(list);
      if (pet.created < start - dayMs && !(skipFixed && pet.fixed)) return pet;
    }
    return undefined;
  };
  const lastVisit = new Map<string, string>();

  // Providers, their locations and working hours; the marketplace ones with a profile and listings.
  const providers: Row[] = practiceProviders.map(({ location_ids: _, services, ...p }) => ({
    ...p,
    ...tenant,
    status: p.kind === 'vet' || p.kind === 'groomer' ? 'active' : 'approved',
    services: JSON.stringify(services),
    rating: null,
    rating_count: 0,
    created_at: at(locationsCreated),
    updated_at: at(locationsCreated),
  }));
  const providerLocations: Row[] = practiceProviders.flatMap((p) => p.location_ids.map((location_id) => ({ provider_id: p.id, location_id, ...tenant })));
  const schedules: Row[] = practiceSchedules.map(({ weekly, ...s }) => ({
    ...s,
    ...tenant,
    weekly: JSON.stringify(weekly),
    time_off: '[]',
    created_at: at(locationsCreated),
    updated_at: at(locationsCreated),
  }));
  const marketplaceIds = ['prv_demo_trails', 'prv_demo_sitwell', 'prv_demo_barkley'];
  const profiles: Row[] = marketplaceIds.map((id) => ({
    provider_id: id,
    ...tenant,
    bio: `${practiceProviders.find((p) => p.id === id)!.name}: insured, background-checked and loved by local pets.`,
    service_area: 'Within 5 km of the clinic',
    commission_bps: marketplaceCommissionBps,
    approved_at: at(locationsCreated + dayMs),
    suspended_at: null,
    created_at: at(locationsCreated),
    updated_at: at(locationsCreated + dayMs),
  }));
  const providerLocation = new Map(practiceProviders.map((p) => [p.id, p.location_ids[0]!]));
  const listingRows: Row[] = listings.map((l) => {
    const locationId = providerLocation.get(l.provider_id)!;
    return {
      id: r.id('lst', locationsCreated + dayMs),
      ...tenant,
      provider_id: l.provider_id,
      name: l.name,
      category: l.category,
      amount: price(l.amount, locationId),
      currency: loc.get(locationId)!.currency,
      duration_minutes: l.minutes,
      status: 'active',
      created_at: at(locationsCreated + dayMs),
      updated_at: at(locationsCreated + dayMs),
    };
  });

  // Money: invoices (as drafts, finalized below), lines, payments, refunds and the journal.
  const invoices: Row[] = [];
  const invoiceLines: Row[] = [];
  const payments: Row[] = [];
  const refunds: Row[] = [];
  const ledgerEntries: Row[] = [];
  const ledgerLines: Row[] = [];
  const finalize: Row[] = [];
  const numbers = new Map<string, number>();
  const post = (
    locationId: string | null,
    sourceType: string,
    sourceId: string,
    currency: string,
    memo: string,
    when: number,
    lines: Array<[string, number]>,
  ) => {
    const kept = lines.filter(([, amount]) => amount !== 0);
    const id = r.id('je', when);
    kept.forEach(([account, amount], position) => ledgerLines.push({ entry_id: id, position, ...tenant, account, amount }));
    ledgerEntries.push({ id, ...tenant, location_id: locationId, source_type: sourceType, source_id: sourceId, currency, memo, created_at: at(when) });
  };
  /**
   * One invoice for a visit, a groom, a stay or an order, finalized at `when` and then paid, left
   * open or paid and refunded, as the payments module's services post it.
   */
  const bill = (
    opts: { locationId: string; parentId: string; petId: string | null; when: number; lines: ReadonlyArray<readonly [string, number]>; sourceId?: string },
    outcome: 'paid' | 'open' | 'refunded' | 'partly_refunded',
    method: 'card_terminal' | 'cash' | 'bank_transfer' = 'card_terminal',
  ): { id: string; total: number; subtotal: number; paidAt: number | null } => {
    const l = loc.get(opts.locationId)!;
    const id = r.id('inv', opts.when);
    let subtotal = 0;
    let tax = 0;
    opts.lines.forEach(([description, amount], position) => {
      const lineTax = taxOf(amount, l.tax_rate_bps);
      subtotal += amount;
      tax += lineTax;
      invoiceLines.push({
        id: r.id('inl', opts.when),
        invoice_id: id,
        ...tenant,
        position,
        description,
        quantity: 1,
        unit_amount: amount,
        amount,
        tax_rate_bps: l.tax_rate_bps,
        tax_amount: lineTax,
        source_id: opts.sourceId ?? null,
      });
    });
    const total = subtotal + tax;
    invoices.push({
      id,
      ...tenant,
      location_id: l.id,
      parent_id: opts.parentId,
      pet_id: opts.petId,
      number: null,
      status: 'draft',
      currency: l.currency,
      subtotal,
      tax,
      total,
      amount_paid: 0,
      amount_refunded: 0,
      due_on: null,
      subscription_id: null,
      created_at: at(opts.when - 60_000),
      updated_at: at(opts.when - 60_000),
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      uncollectible_at: null,
    });
    // Numbered once every invoice is known, in the order they were finalized (below).
    const number = `{${id}}`;
    post(l.id, 'invoice', id, l.currency, `invoice ${number} finalized`, opts.when, [
      [accounts.receivable(opts.parentId), total],
      [accounts.revenue(l.id), -subtotal],
      [accounts.taxPayable(l.id), -tax],
    ]);
    const dueOn = addDays(localDay(opts.when, l.timezone), 14);
    if (outcome === 'open') {
      finalize.push({
        id,
        number,
        status: 'open',
        amount_paid: 0,
        amount_refunded: 0,
        due_on: dueOn,
        updated_at: at(opts.when),
        finalized_at: at(opts.when),
        paid_at: null,
      });
      return { id, total, subtotal, paidAt: null };
    }
    const paidAt = Math.min(opts.when + r.int(2, 30) * 60_000, now - 60_000);
    const paymentId = r.id('pay', paidAt);
    let refunded = 0;
    let refundAt = 0;
    if (outcome !== 'paid') {
      refunded = outcome === 'refunded' ? total : Math.max(100, Math.round(total / 4 / 100) * 100);
      refundAt = Math.min(paidAt + r.int(1, 6) * dayMs, now - 30_000);
    }
    payments.push({
      id: paymentId,
      ...tenant,
      location_id: l.id,
      parent_id: opts.parentId,
      invoice_id: id,
      wallet_id: null,
      amount: total,
      amount_refunded: refunded,
      currency: l.currency,
      method,
      reference: method === 'card_terminal' ? `TERM-${r.int(100000, 999999)}` : null,
      status: 'succeeded',
      settlement_id: null,
      created_at: at(paidAt),
    });
    post(l.id, 'payment', paymentId, l.currency, `payment of invoice ${number} by ${method}`, paidAt, [
      [accounts.cash(method), total],
      [accounts.receivable(opts.parentId), -total],
    ]);
    if (refunded > 0) {
      const refundId = r.id('ref', refundAt);
      refunds.push({
        id: refundId,
        ...tenant,
        location_id: l.id,
        payment_id: paymentId,
        invoice_id: id,
        amount: refunded,
        currency: l.currency,
        reason: outcome === 'refunded' ? 'Appointment cancelled by the clinic' : 'Goodwill discount',
        status: 'succeeded',
        settlement_id: null,
        created_at: at(refundAt),
      });
      post(l.id, 'refund', refundId, l.currency, `refund of payment ${paymentId} by ${method}`, refundAt, [
        [accounts.receivable(opts.parentId), refunded],
        [accounts.cash(method), -refunded],
      ]);
      // creditedSoFar: the tax share of a refund is round-half-up(refunded × tax / total).
      const creditedTax = Number((BigInt(refunded) * BigInt(tax) * 2n + BigInt(total)) / (2n * BigInt(total)));
      post(l.id, 'invoice', id, l.currency, `invoice ${number}: credit for refund ${refundId}`, refundAt, [
        [accounts.revenue(l.id), refunded - creditedTax],
        [accounts.taxPayable(l.id), creditedTax],
        [accounts.receivable(opts.parentId), -refunded],
      ]);
    }
    finalize.push({
      id,
      number,
      status: 'paid',
      amount_paid: total,
      amount_refunded: refunded,
      due_on: dueOn,
      updated_at: at(refunded > 0 ? refundAt : paidAt),
      finalized_at: at(opts.when),
      paid_at: at(paidAt),
    });
    return { id, total, subtotal, paidAt };
  };
  // Refunds by count rather than chance, so every clinic shows some in any month of the history.
  let settled = 0;
  const outcomeFor = (when: number): 'paid' | 'open' | 'refunded' | 'partly_refunded' => {
    const age = (now - when) / dayMs;
    if (age < 21 && r.chance(0.3)) return 'open';
    if (age >= 21 && r.chance(0.03)) return 'open';
    settled++;
    if (settled % 29 === 0) return 'refunded';
    if (settled % 13 === 0) return 'partly_refunded';
    return 'paid';
  };
  const methodFor = () =>
    r.weighted([
      ['card_terminal', 70],
      ['cash', 20],
      ['bank_transfer', 10],
    ] as const);

  // Appointments of the vets: a grid of slots per working window, filled less as it gets further ahead.
  const appointments: Row[] = [];
  const vetSchedules = practiceSchedules.filter((s) => practiceProviders.find((p) => p.id === s.provider_id)!.kind === 'vet');
  for (const schedule of vetSchedules) {
    const l = loc.get(schedule.location_id)!;
    const today = todayAt(l.id);
    for (let d = -pastDays; d <= aheadDays; d++) {
      const date = addDays(today, d);
      const windows = schedule.weekly.filter((w) => w.weekday === weekdayOf(date));
      for (const window of windows) {
        for (let m = minutesOf(window.start); m + 45 <= minutesOf(window.end); m += 45) {
          const keepFree = namedProviders.has(schedule.provider_id) && d >= keepFreeFrom && d <= keepFreeTo;
          if (keepFree && m < keepFreeUntilLocal) continue;
          if (!r.chance(d < 0 ? 0.13 : d <= 7 ? 0.25 : 0.08)) continue;
          const start = localInstant(date, timeOf(m), l.timezone);
          const pet = petFor(petsAt(l.id), start, keepFree);
          if (!pet) continue;
          const type = r.weighted([
            ['checkup', 40],
            ['vaccination', 30],
            ['vet_consultation', 30],
          ] as const);
          const minutes = typeMinutes[type]!;
          const end = start + minutes.duration * 60_000;
          let status: string;
          if (end <= now)
            status = r.weighted([
              ['completed', 84],
              ['no_show', 8],
              ['cancelled', 8],
            ] as const);
          else if (start <= now) status = 'in_progress';
          else status = r.chance(0.05) ? 'cancelled' : 'confirmed';
          const created = Math.max(pet.created + 60_000, start - r.int(1, 21) * dayMs);
          const id = r.id('apt', Math.min(created, now - 120_000));
          appointments.push({
            id,
            ...tenant,
            location_id: l.id,
            pet_id: pet.id,
            provider_id: schedule.provider_id,
            type,
            status,
            starts_at: at(start),
            ends_at: at(end),
            notes: null,
            created_at: at(Math.min(created, now - 120_000)),
            updated_at: at(Math.min(status === 'completed' || status === 'no_show' ? end : created, now - 60_000)),
            blocked_from: at(start - minutes.before * 60_000),
            blocked_until: at(end + minutes.after * 60_000),
            calendar_token: '',
            sequence: 0,
          });
          if (status === 'completed') {
            const visit = localDay(start, l.timezone);
            if ((lastVisit.get(pet.id) ?? '') < visit) lastVisit.set(pet.id, visit);
            const lines = visitLines[type]!.map(([description, usd]) => [description, price(usd, l.id)] as const);
            bill({ locationId: l.id, parentId: pet.owner_id, petId: pet.id, when: end + 5 * 60_000, lines, sourceId: id }, outcomeFor(end), methodFor());
          }
        }
      }
    }
  }

  // Vaccinations: the named pets' five, then per pet the vaccines of its species, due, overdue or current.
  const vaccinations: Row[] = fixedVaccinations.map(({ given, due, ...row }) => ({
    ...row,
    ...tenant,
    vaccine_key: row.vaccine.toLowerCase(),
    administered_on: addDays(utcDate(now), given),
    due_on: addDays(utcDate(now), due),
    lot_number: `DEMO-${row.vaccine.toUpperCase()}-1`,
    recorded_by_client_id: 'demo-data',
    recorded_by_role: 'admin',
    created_at: at(now + given * dayMs),
  }));
  const vetsAt = (locationId: string) => practiceProviders.filter((p) => p.kind === 'vet' && p.location_ids.includes(locationId)).map((p) => p.id);
  for (const pet of pets) {
    if (pet.fixed) continue;
    const l = loc.get(pet.location_id)!;
    const today = todayAt(l.id);
    const state = r.weighted([
      ['current', 70],
      ['due_soon', 15],
      ['overdue', 15],
    ] as const);
    for (const [vaccine, interval] of vaccinesOf[pet.species]!) {
      if (!r.chance(0.85)) continue;
      const sinceGiven = state === 'overdue' ? interval + r.int(3, 60) : state === 'due_soon' ? interval - r.int(2, 28) : r.int(10, interval - 45);
      const doses = r.chance(0.15) ? 2 : 1;
      for (let k = doses - 1; k >= 0; k--) {
        const givenOn = addDays(today, -(sinceGiven + k * interval));
        const givenAt = localInstant(givenOn, '11:00', l.timezone);
        vaccinations.push({
          id: r.id('vac', Math.min(givenAt, now - 60_000)),
          ...tenant,
          location_id: l.id,
          pet_id: pet.id,
          vaccine,
          vaccine_key: vaccine.toLowerCase(),
          administered_on: givenOn,
          due_on: addDays(givenOn, interval),
          lot_number: `${vaccine.toUpperCase().slice(0, 4)}-${r.int(10000, 99999)}`,
          provider_id: r.pick(vetsAt(l.id)),
          recorded_by_client_id: 'demo-data',
          recorded_by_role: 'doctor',
          created_at: at(Math.min(givenAt, now - 60_000)),
        });
      }
    }
  }

  // Boarding: rooms, stays that respect capacity night by night, their booked nights and care plans.
  const rooms: Row[] = [];
  const bookings: Row[] = [];
  const stays: Row[] = [];
  const carePlans: Row[] = [];
  const nights = new Map<string, { location_id: string; night: string; room_type: string; species: string; reserved: number; checked_in: number }>();
  for (const room of boardingRooms) {
    const l = loc.get(room.location_id)!;
    const roomId = r.id('room', locationsCreated + 2 * dayMs);
    const rate = price(room.rate, l.id);
    rooms.push({
      id: roomId,
      ...tenant,
      location_id: l.id,
      name: room.name,
      room_type: room.room_type,
      capacity: room.capacity,
      // A room's species are a JSON array (boarding_rooms.species), a stay's one species is plain text.
      species: JSON.stringify([room.species]),
      nightly_rate: rate,
      currency: l.currency,
      active: 1,
      created_at: at(locationsCreated + 2 * dayMs),
      updated_at: at(locationsCreated + 2 * dayMs),
    });
    const today = todayAt(l.id);
    const taken = new Map<string, number>();
    const petBusyUntil = new Map<string, string>();
    const guests = petsAt(l.id, [room.species]);
    for (let d = -60; d <= aheadDays; d++) {
      const arrivals = (r.chance(0.4) ? 1 : 0) + (room.capacity > 5 && r.chance(0.15) ? 1 : 0);
      for (let k = 0; k < arrivals; k++) {
        const checkIn = addDays(today, d);
        const length = r.int(2, 7);
        const checkOut = addDays(checkIn, length);
        const nightsList = Array.from({ length }, (_, i) => addDays(checkIn, i));
        if (nightsList.some((n) => (taken.get(n) ?? 0) >= room.capacity)) continue;
        const start = localInstant(checkIn, '14:00', l.timezone);
        const end = localInstant(checkOut, '11:00', l.timezone);
        const pet = r.pick(guests.filter((p) => p.created < start - dayMs && (petBusyUntil.get(p.id) ?? '') <= checkIn && !p.fixed));
        if (!pet) continue;
        let status: string;
        if (checkOut <= today)
          status = r.weighted([
            ['checked_out', 90],
            ['cancelled', 6],
            ['no_show', 4],
          ] as const);
        else if (checkIn <= today) status = 'checked_in';
        else status = r.chance(0.06) ? 'cancelled' : 'reserved';
        if (checkIn === today && status === 'checked_in' && start > now) status = 'reserved';
        const created = Math.min(start - r.int(3, 40) * dayMs, now - 3_600_000);
        const id = r.id('bkg', Math.max(created, pet.created + 60_000));
        const holds = status === 'reserved' || status === 'checked_in' || status === 'checked_out';
        if (holds) {
          petBusyUntil.set(pet.id, checkOut);
          for (const n of nightsList) {
            taken.set(n, (taken.get(n) ?? 0) + 1);
            const key = `${n}|${room.room_type}|${room.species}`;
            const row = nights.get(key) ?? { location_id: l.id, night: n, room_type: room.room_type, species: room.species, reserved: 0, checked_in: 0 };
            if (status === 'reserved') row.reserved++;
            else row.checked_in++;
            nights.set(key, row);
          }
        }
        let invoiceId: string | null = null;
        if (status === 'checked_out') {
          invoiceId = bill(
            {
              locationId: l.id,
              parentId: pet.owner_id,
              petId: pet.id,
              when: Math.min(end, now - 120_000),
              lines: [[`Boarding: ${length} nights, ${room.name}`, rate * length]],
              sourceId: id,
            },
            outcomeFor(end),
            methodFor(),
          ).id;
        }
        const updated = status === 'checked_out' ? Math.min(end, now - 60_000) : status === 'checked_in' ? start : created;
        bookings.push({
          id,
          ...tenant,
          kind: 'boarding',
          status,
          pet_id: pet.id,
          parent_id: pet.owner_id,
          location_id: l.id,
          provider_id: null,
          starts_at: at(start),
          ends_at: at(end),
          amount: rate * length,
          currency: l.currency,
          invoice_id: invoiceId,
          created_at: at(Math.max(created, pet.created + 60_000)),
          updated_at: at(Math.max(updated, created)),
        });
        stays.push({
          booking_id: id,
          ...tenant,
          location_id: l.id,
          room_type: room.room_type,
          species: room.species,
          room_id: status === 'checked_in' || status === 'checked_out' ? roomId : null,
          check_in_on: checkIn,
          check_out_on: checkOut,
          nights: length,
          notes: r.chance(0.2) ? 'Nervous with other dogs; walk separately.' : null,
          checked_in_at: status === 'checked_in' || status === 'checked_out' ? at(start) : null,
          checked_out_at: status === 'checked_out' ? at(Math.min(end, now - 60_000)) : null,
          billed_nights: status === 'checked_out' ? length : null,
          vaccination_override_reason: null,
          vaccination_override_by: null,
          vaccination_override_role: null,
          vaccination_override_missing: null,
          vaccination_override_at: null,
        });
        if (status === 'checked_in' || (status === 'reserved' && d <= 10) || (status === 'checked_out' && r.chance(0.5))) {
          const medicated = status === 'reserved' && r.chance(0.5);
          carePlans.push({
            id: r.id('cpl', Math.max(created, pet.created + 60_000) + 1000),
            ...tenant,
            location_id: l.id,
            booking_id: id,
            pet_id: pet.id,
            feeding: JSON.stringify([
              {
                time: '08:00',
                food: room.species === 'cat' ? 'Own wet food' : 'Own kibble',
                portion: room.species === 'cat' ? '1 pouch' : '1 cup',
                notes: null,
              },
              {
                time: '18:00',
                food: room.species === 'cat' ? 'Own dry food' : 'Own kibble',
                portion: room.species === 'cat' ? '30 g' : '1 cup',
                notes: 'Soak in warm water',
              },
            ]),
            medications: JSON.stringify(
              medicated
                ? [
                    {
                      name: room.species === 'cat' ? 'Methimazole' : 'Apoquel',
                      dose: room.species === 'cat' ? '2.5 mg' : '16 mg',
                      times: ['08:00'],
                      withFood: true,
                      notes: null,
                      administrationAmount: 0,
                    },
                  ]
                : [],
            ),
            notes: null,
            created_at: at(Math.max(created, pet.created + 60_000) + 1000),
            updated_at: at(Math.max(created, pet.created + 60_000) + 1000),
          });
        }
      }
    }
  }
  const boardingNights: Row[] = [...nights.values()].filter((n) => n.reserved + n.checked_in > 0).map((n) => ({ ...n, ...tenant }));
  const totals = new Map<string, Row & { reserved: number; checked_in: number }>();
  for (const n of nights.values()) {
    const key = `${n.location_id}|${n.night}|${n.room_type}`;
    const row = totals.get(key) ?? { location_id: n.location_id, night: n.night, room_type: n.room_type, ...tenant, reserved: 0, checked_in: 0 };
    row.reserved += n.reserved;
    row.checked_in += n.checked_in;
    totals.set(key, row);
  }

  // Grooming: packages per grooming location, grooms by Rosa and Jin behind and ahead.
  const packages: Row[] = [];
  const packageIds = new Map<string, string>();
  for (const locationId of ['loc_demo_riverside', 'loc_demo_harbour']) {
    const l = loc.get(locationId)!;
    for (const p of groomingPackages) {
      const id = r.id('pkg', locationsCreated + 3 * dayMs);
      packageIds.set(`${locationId}|${p.key}`, id);
      packages.push({
        id,
        ...tenant,
        location_id: locationId,
        name: p.name,
        services: JSON.stringify(p.services),
        duration_small: p.durations[0],
        duration_medium: p.durations[1],
        duration_large: p.durations[2],
        duration_xlarge: p.durations[3],
        price_small: price(p.prices[0], locationId),
        price_medium: price(p.prices[1], locationId),
        price_large: price(p.prices[2], locationId),
        price_xlarge: price(p.prices[3], locationId),
        currency: l.currency,
        sessions: p.sessions,
        valid_days: p.valid_days,
        active: 1,
        created_at: at(locationsCreated + 3 * dayMs),
        updated_at: at(locationsCreated + 3 * dayMs),
      });
    }
  }
  const grooms: Row[] = [];
  for (const schedule of practiceSchedules.filter((s) => s.provider_id === 'prv_demo_rosa' || s.provider_id === 'prv_demo_kim')) {
    const l = loc.get(schedule.location_id)!;
    const today = todayAt(l.id);
    for (let d = -pastDays; d <= aheadDays; d++) {
      const date = addDays(today, d);
      for (const window of schedule.weekly.filter((w) => w.weekday === weekdayOf(date))) {
        let m = minutesOf(window.start);
        while (m < minutesOf(window.end)) {
          const keepFree = namedProviders.has(schedule.provider_id) && d >= keepFreeFrom && d <= keepFreeTo && m < keepFreeUntilLocal;
          const pet = r.pick(petsAt(l.id, ['dog', 'cat']));
          const pkg = r.chance(0.65) ? groomingPackages[0] : groomingPackages[1];
          const sizeIndex = sizes.indexOf((pet.size ?? 'medium') as (typeof sizes)[number]);
          const minutes = pkg.durations[sizeIndex]!;
          if (m + minutes > minutesOf(window.end)) break;
          const start = localInstant(date, timeOf(m), l.timezone);
          const fill = d < 0 ? 0.14 : d <= 7 ? 0.3 : 0.1;
          if (keepFree || !r.chance(fill) || pet.created > start - dayMs || (keepFree && pet.fixed)) {
            m += 30;
            continue;
          }
          const end = start + minutes * 60_000;
          let status: string;
          if (end <= now)
            status = r.weighted([
              ['completed', 88],
              ['no_show', 5],
              ['cancelled', 7],
            ] as const);
          else if (start <= now) status = 'in_progress';
          else status = r.chance(0.05) ? 'cancelled' : 'confirmed';
          const amount = price(pkg.prices[sizeIndex]!, l.id);
          const created = Math.min(Math.max(pet.created + 60_000, start - r.int(2, 30) * dayMs), now - 120_000);
          const id = r.id('bkg', created);
          const invoiceId =
            status === 'completed'
              ? bill(
                  {
                    locationId: l.id,
                    parentId: pet.owner_id,
                    petId: pet.id,
                    when: end + 5 * 60_000,
                    lines: [[`Grooming: ${pkg.name} (${pet.size ?? 'medium'})`, amount]],
                    sourceId: id,
                  },
                  outcomeFor(end),
                  methodFor(),
                ).id
              : null;
          bookings.push({
            id,
            ...tenant,
            kind: 'grooming',
            status,
            pet_id: pet.id,
            parent_id: pet.owner_id,
            location_id: l.id,
            provider_id: schedule.provider_id,
            starts_at: at(start),
            ends_at: at(end),
            amount,
            currency: l.currency,
            invoice_id: invoiceId,
            created_at: at(created),
            updated_at: at(status === 'completed' || status === 'no_show' ? Math.min(end, now - 60_000) : created),
          });
          grooms.push({
            booking_id: id,
            ...tenant,
            package_id: packageIds.get(`${l.id}|${pkg.key}`)!,
            size: pet.size ?? 'medium',
            duration_minutes: minutes,
            pay_with: 'invoice',
            membership_id: null,
            notes: r.chance(0.15) ? 'Short on the paws, leave the ears long.' : null,
          });
          m += minutes + 15;
        }
      }
    }
  }

  // Marketplace: orders of walks, sits and training, paid through their invoice, commission accrued, reviews.
  const orders: Row[] = [];
  const orderLines: Row[] = [];
  const commissionLines: Row[] = [];
  const reviews: Row[] = [];
  for (let i = 0; i < 45; i++) {
    // Each listing in turn, one order about every two days: every clinic's marketplace has orders in any month.
    const listing = listingRows[i % listingRows.length]!;
    const locationId = providerLocation.get(listing.provider_id as string)!;
    const l = loc.get(locationId)!;
    const ordered = now - (2 * i + 1) * dayMs - r.int(0, dayMs);
    const pet = r.pick(petsAt(locationId, ['dog', 'cat']).filter((p) => p.created < ordered - dayMs));
    if (!pet) continue;
    const serviceDate = addDays(localDay(ordered, l.timezone), r.int(1, 12));
    const start = localInstant(serviceDate, timeOf(r.int(8, 16) * 60), l.timezone);
    const end = start + (listing.duration_minutes as number) * 60_000;
    const orderId = r.id('ord', ordered);
    const bookingId = r.id('bkg', ordered);
    const lineId = r.id('oln', ordered);
    const amount = listing.amount as number;
    const commission = taxOf(amount, marketplaceCommissionBps);
    const tax = taxOf(amount, l.tax_rate_bps);
    const invoice = bill(
      { locationId, parentId: pet.owner_id, petId: pet.id, when: ordered, lines: [[listing.name as string, amount]], sourceId: bookingId },
      'paid',
      'card_terminal',
    );
    const paidAt = invoice.paidAt!;
    const completed = end < now - 3_600_000;
    bookings.push({
      id: bookingId,
      ...tenant,
      kind: 'marketplace',
      status: completed ? 'completed' : 'confirmed',
      pet_id: pet.id,
      parent_id: pet.owner_id,
      location_id: locationId,
      provider_id: listing.provider_id,
      starts_at: at(start),
      ends_at: at(end),
      amount,
      currency: l.currency,
      invoice_id: invoice.id,
      created_at: at(ordered),
      updated_at: at(completed ? end : paidAt),
    });
    orders.push({
      id: orderId,
      ...tenant,
      location_id: locationId,
      parent_id: pet.owner_id,
      pet_id: pet.id,
      status: completed ? 'fulfilled' : 'paid',
      currency: l.currency,
      subtotal: amount,
      tax,
      total: amount + tax,
      amount_refunded: 0,
      invoice_id: invoice.id,
      created_at: at(ordered),
      updated_at: at(completed ? end : paidAt),
      paid_at: at(paidAt),
      cancelled_at: null,
    });
    orderLines.push({
      id: lineId,
      ...tenant,
      order_id: orderId,
      position: 0,
      provider_id: listing.provider_id,
      listing_id: listing.id,
      listing_name: listing.name,
      category: listing.category,
      booking_id: bookingId,
      starts_at: at(start),
      ends_at: at(end),
      amount,
      tax_rate_bps: l.tax_rate_bps,
      currency: l.currency,
      commission_bps: marketplaceCommissionBps,
      commission_amount: commission,
      amount_refunded: 0,
      completed_at: completed ? at(end) : null,
      tax_refunded: 0,
    });
    commissionLines.push({
      id: r.id('cml', paidAt),
      ...tenant,
      order_id: orderId,
      order_line_id: lineId,
      provider_id: listing.provider_id,
      kind: 'sale',
      refund_id: null,
      gross: amount,
      rate_bps: marketplaceCommissionBps,
      commission,
      currency: l.currency,
      status: 'accrued',
      settlement_id: null,
      created_at: at(paidAt),
    });
    post(locationId, 'order', orderId, l.currency, `marketplace order ${orderId} paid: owed to providers and commission`, paidAt, [
      [accounts.revenue(locationId), amount],
      [accounts.providerPayable(listing.provider_id as string), -(amount - commission)],
      [accounts.commission(locationId), -commission],
    ]);
    if (completed && r.chance(0.7)) {
      const reviewed = Math.min(end + r.int(2, 48) * 3_600_000, now - 60_000);
      reviews.push({
        id: r.id('rev', reviewed),
        ...tenant,
        provider_id: listing.provider_id,
        booking_id: bookingId,
        parent_id: pet.owner_id,
        pet_id: pet.id,
        location_id: locationId,
        stars: r.weighted([
          [5, 60],
          [4, 30],
          [3, 8],
          [2, 2],
        ] as const),
        comment: r.pick(reviewComments),
        reply: null,
        replied_at: null,
        created_at: at(reviewed),
      });
    }
  }

  // Wallets: prepaid credit of the parents on plans, topped up at the desk (cash in, the wallet owes it).
  const wallets: Row[] = [];
  const walletTransactions: Row[] = [];
  const wellnessPlans: PracticePlan['wellnessPlans'] = [];
  const memberships: PracticePlan['memberships'] = [];
  const planParents = parents.filter((_, i) => i % 3 === 1).slice(0, 10);
  for (const parent of planParents) {
    const locationId = parent.location_id as string;
    const l = loc.get(locationId)!;
    const pet = pets.find((p) => p.owner_id === parent.id);
    if (!pet) continue;
    const opened = Math.max(parentCreated.get(parent.id as string)!, now - 200 * dayMs) + dayMs;
    const walletId = r.id('wal', opened);
    wallets.push({ id: walletId, ...tenant, parent_id: parent.id, currency: l.currency, balance: 0, created_at: at(opened), updated_at: at(opened) });
    const grooming = locationId !== 'loc_demo_downtown' && memberships.length < 4 && (pet.species === 'dog' || pet.species === 'cat');
    const monthly = grooming ? price(6000, locationId) : price(3900, locationId);
    // Enough for what the plan has billed so far and the next two months, except one wallet left short.
    const topUp = wellnessPlans.length === 2 ? monthly : Math.ceil((monthly * 7) / 1000) * 1000;
    let balance = 0;
    for (const [k, amount] of [
      [0, topUp],
      [1, Math.ceil(monthly / 1000) * 1000],
    ] as const) {
      const when = opened + k * 30 * dayMs + 3_600_000;
      if (when >= now - 60_000) continue;
      balance += amount;
      const txId = r.id('wtx', when);
      walletTransactions.push({
        id: txId,
        tenant_id: tenantId,
        wallet_id: walletId,
        type: 'top_up',
        amount,
        balance_after: balance,
        source_id: null,
        method: 'card_terminal',
        reference: null,
        reason: null,
        created_at: at(when),
      });
      post(locationId, 'wallet_transaction', txId, l.currency, `top-up of wallet ${walletId} by card_terminal`, when, [
        [accounts.cash('card_terminal'), amount],
        [accounts.wallet(walletId), -amount],
      ]);
    }
    if (grooming) {
      memberships.push({ parentId: parent.id as string, petId: pet.id, locationId, packageId: packageIds.get(`${locationId}|full`)!, price: monthly });
    } else {
      // Started on a day of month a few months back, so the next bill falls within the coming month.
      const startDate = addDays(todayAt(locationId), -(r.int(2, 4) * 30 + r.int(1, 26)));
      wellnessPlans.push({
        parentId: parent.id as string,
        petId: pet.id,
        locationId,
        timezone: l.timezone,
        amount: monthly,
        startDate,
        collection: wellnessPlans.length === 4 ? 'send_invoice' : 'wallet',
      });
    }
  }

  // The pets' last visit follows their completed appointments.
  for (const row of petRows) row.last_visit = lastVisit.get(row.id as string) ?? null;

  // Knowledge: a service with the clinic handbook, indexed by the ai-indexing job (lexical; no LLM needed).
  const serviceCreated = now - 30 * dayMs;
  const serviceId = 'ais_demo_handbook';
  const aiServices: Row[] = [
    {
      id: serviceId,
      ...tenant,
      name: 'Clinic handbook',
      description: 'Opening hours, vaccination policy, boarding and aftercare instructions for the front desk.',
      location_ids: null,
      embedding_model: null,
      dimension: null,
      created_by: 'demo-data',
      created_at: at(serviceCreated),
      updated_at: at(serviceCreated),
    },
  ];

  // Each location's invoices numbered in the order they were finalized, as takeInvoiceNumber does.
  const numberOf = new Map<string, string>();
  const locationOf = new Map(invoices.map((i) => [i.id as string, loc.get(i.location_id as string)!]));
  for (const row of [...finalize].sort((a, b) => ((a.finalized_at as string) < (b.finalized_at as string) ? -1 : 1))) {
    const l = locationOf.get(row.id as string)!;
    const n = (numbers.get(l.id) ?? 0) + 1;
    numbers.set(l.id, n);
    row.number = `${l.prefix}-${String(n).padStart(6, '0')}`;
    numberOf.set(`{${row.id as string}}`, row.number as string);
  }
  for (const entry of ledgerEntries) entry.memo = (entry.memo as string).replace(/\{inv_[0-9a-z]+\}/, (token) => numberOf.get(token) ?? token);
  const counters: Row[] = [...numbers].map(([locationId, last]) => ({
    tenant_id: tenantId,
    location_id: locationId,
    prefix: loc.get(locationId)!.prefix,
    last_number: last,
  }));
  const sortById = (rows: Row[]) => rows.sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : 1));
  return {
    tables: [
      ['locations', locations],
      ['pet_parents', parents],
      ['pets', petRows],
      ['providers', providers],
      ['provider_locations', providerLocations],
      ['provider_schedules', schedules],
      ['provider_marketplace_profiles', profiles],
      ['marketplace_listings', listingRows],
      ['vaccinations', vaccinations],
      ['appointments', appointments],
      ['invoices', invoices],
      ['invoice_lines', invoiceLines],
      ['boarding_rooms', rooms],
      ['grooming_packages', packages],
      ['bookings', bookings],
      ['boarding_stays', stays],
      ['boarding_nights', boardingNights],
      ['boarding_night_totals', [...totals.values()]],
      ['boarding_care_plans', carePlans],
      ['grooming_appointments', grooms],
      ['marketplace_orders', orders],
      ['marketplace_order_lines', orderLines],
      ['marketplace_commission_lines', commissionLines],
      ['provider_reviews', reviews],
      ['wallets', wallets],
      ['wallet_transactions', sortById(walletTransactions)],
      ['payments', payments],
      ['refunds', refunds],
      ['ledger_lines', ledgerLines],
      ['ledger_entries', ledgerEntries],
      ['ai_services', aiServices],
    ],
    finalize,
    counters,
    wellnessPlans,
    memberships,
  };
}
