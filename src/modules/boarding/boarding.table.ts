/** Tables of the boarding module (DESIGN §10). A stay's facts (status, pet, dates, amount, invoice) live in `bookings`; its details here. */

export interface BoardingRoomsTable {
  /** room_… */
  id: string;
  tenant_id: string;
  location_id: string;
  name: string;
  room_type: string;
  /** Pets it holds at once. */
  capacity: number;
  /** JSON array of species, e.g. ["dog","cat"]. */
  species: string;
  nightly_rate: number;
  currency: string;
  /** 1 or 0: inactive rooms keep their history but add no capacity and take no check-ins. */
  active: number;
  created_at: string;
  updated_at: string;
}

export interface BoardingStaysTable {
  /** bkg_… (the shared bookings row). */
  booking_id: string;
  tenant_id: string;
  location_id: string;
  room_type: string;
  /** The pet's species when booked: the capacity it takes is counted per species. */
  species: string;
  /** Assigned at check-in. */
  room_id: string | null;
  /** YYYY-MM-DD, the first night. */
  check_in_on: string;
  /** YYYY-MM-DD, the day it leaves (exclusive). */
  check_out_on: string;
  nights: number;
  notes: string | null;
  checked_in_at: string | null;
  checked_out_at: string | null;
  /** Nights billed at check-out (nights actually stayed). */
  billed_nights: number | null;
  /** A vaccination override at check-in: why, who (client id and role), what it waived (JSON array), when. */
  vaccination_override_reason: string | null;
  vaccination_override_by: string | null;
  vaccination_override_role: string | null;
  vaccination_override_missing: string | null;
  vaccination_override_at: string | null;
}

/** Places taken per location, night, room type and species (counts of stays). */
export interface BoardingNightsTable {
  location_id: string;
  night: string;
  room_type: string;
  species: string;
  tenant_id: string;
  reserved: number;
  checked_in: number;
}

/** boarding_nights summed over species: what occupancy reads. */
export interface BoardingNightTotalsTable {
  location_id: string;
  night: string;
  room_type: string;
  tenant_id: string;
  reserved: number;
  checked_in: number;
}

export interface BoardingCarePlansTable {
  /** cpl_… */
  id: string;
  tenant_id: string;
  location_id: string;
  booking_id: string;
  pet_id: string;
  /** JSON array of {time, food, portion, notes}. */
  feeding: string;
  /** JSON array of {name, dose, times, withFood, notes, administrationAmount}. */
  medications: string;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * The dose log: append-only (triggers refuse UPDATE and DELETE). One entry per medication and
 * scheduled time that supersedes nothing (a UNIQUE index); corrections chain through `supersedes`.
 */
export interface BoardingDosesTable {
  /** dos_… */
  id: string;
  tenant_id: string;
  care_plan_id: string;
  booking_id: string;
  medication: string;
  /** lower(trim(medication)). */
  medication_key: string;
  /** ISO 8601 UTC. */
  scheduled_for: string;
  outcome: 'given' | 'refused' | 'skipped';
  given_by: string;
  notes: string | null;
  recorded_by_client_id: string;
  created_at: string;
  /** The dos_… entry this one corrects (same plan, medication and time; each entry is corrected at most once), or null. */
  supersedes: string | null;
}

/** One row per overdue dose announced: the UNIQUE key that makes boarding.dose_overdue happen once. */
export interface BoardingDoseAlertsTable {
  care_plan_id: string;
  medication_key: string;
  scheduled_for: string;
  tenant_id: string;
  created_at: string;
}

export interface BoardingErasuresTable {
  tenant_id: string;
  reason: string;
}

/** The change counter of rooms and night totals (one row, bumped by triggers): occupancy answers are reused while it stands still. */
export interface BoardingVersionTable {
  id: number;
  version: number;
}

export interface BoardingTables {
  boarding_version: BoardingVersionTable;
  boarding_rooms: BoardingRoomsTable;
  boarding_stays: BoardingStaysTable;
  boarding_nights: BoardingNightsTable;
  boarding_night_totals: BoardingNightTotalsTable;
  boarding_care_plans: BoardingCarePlansTable;
  boarding_doses: BoardingDosesTable;
  boarding_dose_alerts: BoardingDoseAlertsTable;
  boarding_erasures: BoardingErasuresTable;
}
