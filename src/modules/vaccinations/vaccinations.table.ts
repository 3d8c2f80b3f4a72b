/** Other modules (reminders, analytics) rely on these columns; add more, never rename them. */
export interface VaccinationsTable {
  id: string;
  tenant_id: string;
  /** The pet's location when recorded (for location-scoped queries). */
  location_id: string;
  pet_id: string;
  /** As entered (trimmed), e.g. "Rabies". */
  vaccine: string;
  /** lower(vaccine): one vaccine regardless of letter case (status, filter). */
  vaccine_key: string;
  /** YYYY-MM-DD */
  administered_on: string;
  /** YYYY-MM-DD: when the next dose is due. */
  due_on: string;
  lot_number: string | null;
  provider_id: string | null;
  /** The API client (cli_…) that recorded it, and its role then. */
  recorded_by_client_id: string;
  recorded_by_role: string;
  created_at: string;
  /** The source system's id of an imported row (imports module), null otherwise; unique per tenant. */
  external_id?: string | null;
}

export interface VaccinationsTables {
  vaccinations: VaccinationsTable;
}
