/**
 * The table of facts every kind of booking shares (DESIGN §7). Each kind keeps its details in a
 * table of its own keyed by `booking_id`; other modules (analytics, the care coordinator) rely on
 * these columns: add more, never rename them.
 */
export type BookingKind = 'boarding' | 'grooming' | 'marketplace';

export interface BookingsTable {
  /** bkg_… */
  id: string;
  tenant_id: string;
  kind: BookingKind;
  /** The kind's own state (boarding: reserved | checked_in | checked_out | cancelled | no_show; grooming: confirmed | checked_in | in_progress | completed | cancelled | no_show). */
  status: string;
  pet_id: string;
  /** The pet's parent when booked (usr_…): who is billed. */
  parent_id: string;
  location_id: string;
  /** The provider whose time it takes (a grooming stylist, a marketplace provider); null for boarding. */
  provider_id: string | null;
  /** ISO 8601 UTC. A boarding stay: the start of its check-in day at the location. */
  starts_at: string;
  /** ISO 8601 UTC, after starts_at. A boarding stay: the start of its check-out day. */
  ends_at: string;
  /** Integer minor units: what the booking costs as booked. */
  amount: number;
  currency: string;
  /** The invoice that billed it, once billed. */
  invoice_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface BookingsTables {
  bookings: BookingsTable;
}
