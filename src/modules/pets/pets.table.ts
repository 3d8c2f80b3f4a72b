/**
 * The pets module's own column on the foundation `pets` table (migration add_pet_size), declared
 * here by interface merging so the foundation file stays as it is: grooming times and prices by it.
 */
export const petSizes = ['small', 'medium', 'large', 'xlarge'] as const;
export type PetSize = (typeof petSizes)[number];

declare module '../../db/database.js' {
  interface PetsTable {
    /** small | medium | large | xlarge, or null when not recorded (optional in inserts). */
    size?: string | null;
  }
}
