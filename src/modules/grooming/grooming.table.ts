/** Tables of the grooming module (DESIGN §11), keyed by the shared booking id where they hold a booking's details. */

export interface GroomingPackagesTable {
  /** pkg_… */
  id: string;
  tenant_id: string;
  /** null: offered at every location of the group. */
  location_id: string | null;
  name: string;
  /** JSON list of service codes. */
  services: string;
  duration_small: number;
  duration_medium: number;
  duration_large: number;
  duration_xlarge: number;
  price_small: number;
  price_medium: number;
  price_large: number;
  price_xlarge: number;
  currency: string;
  /** > 1: a prepaid bundle. */
  sessions: number;
  valid_days: number | null;
  active: number;
  created_at: string;
  updated_at: string;
}

/** A grooming booking's own details; its facts (status, pet, stylist, times, amount, invoice) live in `bookings`. */
export interface GroomingAppointmentsTable {
  booking_id: string;
  tenant_id: string;
  package_id: string;
  size: string;
  duration_minutes: number;
  pay_with: string;
  /** The membership named on create (else the oldest active one is used at completion). */
  membership_id: string | null;
  notes: string | null;
}

export interface GroomingMembershipsTable {
  /** mbr_… */
  id: string;
  tenant_id: string;
  parent_id: string;
  pet_id: string | null;
  package_id: string;
  location_id: string;
  subscription_id: string;
  sessions_per_period: number;
  /** active | cancelled */
  status: string;
  created_at: string;
  updated_at: string;
  cancelled_at: string | null;
}

/** A prepaid bundle bought by a parent. */
export interface GroomingPackageCreditsTable {
  /** pcr_… */
  id: string;
  tenant_id: string;
  parent_id: string;
  package_id: string;
  location_id: string;
  invoice_id: string;
  sessions: number;
  expires_at: string | null;
  created_at: string;
}

/** One spent credit per completed booking, from a membership or a bundle. */
export interface GroomingCreditUsesTable {
  booking_id: string;
  tenant_id: string;
  membership_id: string | null;
  package_credit_id: string | null;
  created_at: string;
}

export interface GroomingTables {
  grooming_packages: GroomingPackagesTable;
  grooming_appointments: GroomingAppointmentsTable;
  grooming_memberships: GroomingMembershipsTable;
  grooming_package_credits: GroomingPackageCreditsTable;
  grooming_credit_uses: GroomingCreditUsesTable;
}
