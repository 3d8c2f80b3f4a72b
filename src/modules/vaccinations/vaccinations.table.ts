/** Other modules (reminders, analytics) rely on these columns; add more, never rename them. */
export interface VaccinationsTable {
  id: string;
  tenant_id: string;
  /** The pet's location when recorded (for location-scoped queries). */
  location_id: string;
  pet_id: string;
  vaccine: string;
  /** YYYY-MM-DD */
  administered_on: string;
  /** YYYY-MM-DD: when the next dose is due. */
  due_on: string;
  lot_number: string | null;
  provider_id: string | null;
  created_at: string;
}

export interface VaccinationsTables {
  vaccinations: VaccinationsTable;
}
