/**
 * The pets module's own columns on the foundation `pets` table, declared here by interface merging
 * so the foundation file stays as it is: `size` (migration add_pet_size; grooming times and prices
 * by it) and `vaccination_earliest_due` (migration denormalize_pet_earliest_due).
 */
export const petSizes = ['small', 'medium', 'large', 'xlarge'] as const;
export type PetSize = (typeof petSizes)[number];

declare module '../../db/database.js' {
  interface PetsTable {
    /** small | medium | large | xlarge, or null when not recorded (optional in inserts). */
    size?: string | null;
    /**
     * Earliest due date of the pet's latest dose of each vaccine, null without records: the input
     * of vaccinationStatus. Kept by triggers on vaccinations; code never writes it.
     */
    vaccination_earliest_due?: string | null;
    /** The source system's id of an imported pet (imports module), null otherwise; unique per tenant. */
    external_id?: string | null;
  }
}
