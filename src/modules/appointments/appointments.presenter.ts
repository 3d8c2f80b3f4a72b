import type { AppointmentRecord } from './appointments.repository.js';
import type { SecretBox } from '../../db/secret-box.js';
import type { AppointmentOut, AppointmentOut20250601, AppointmentStatus, MatchResultOut, ProviderRankingOut20250601 } from './appointments.schema.js';

/** What links need: the public base URL of this request, and the box the calendar token is sealed in. */
export interface AppointmentLinks {
  base: string;
  secrets: Pick<SecretBox, 'open'>;
}

/** The calendar link of an appointment: `<base>/v1/calendar/<id>.ics?token=<ct_live_…|ct_test_…>`. */
export const calendarUrl = (links: AppointmentLinks, row: Pick<AppointmentRecord, 'id' | 'calendar_token'>): string =>
  `${links.base}/v1/calendar/${row.id}.ics?token=${links.secrets.open(row.calendar_token)}`;

/** The seed's object in both of its forms at once: providerId and provider {id, name}, createdAt and calendarUrl. */
export const presentAppointment = (row: AppointmentRecord, links: AppointmentLinks): AppointmentOut => ({
  id: row.id,
  status: row.status as AppointmentStatus,
  petId: row.pet_id,
  providerId: row.provider_id,
  provider: { id: row.provider_id, name: row.provider_name },
  type: row.type,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
  locationId: row.location_id,
  notes: row.notes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  calendarUrl: calendarUrl(links, row),
  externalId: row.external_id ?? null,
});

/** API version 2025-06-01's appointment (PATCH answer), from the current one: no `provider`, upper-case status and type. */
export const presentAppointment20250601 = (current: AppointmentOut): AppointmentOut20250601 => ({
  id: current.id,
  status: current.status.toUpperCase() as AppointmentOut20250601['status'],
  petId: current.petId,
  providerId: current.providerId,
  type: current.type.toUpperCase(),
  startsAt: current.startsAt,
  endsAt: current.endsAt,
  locationId: current.locationId,
  notes: current.notes,
  createdAt: current.createdAt,
  updatedAt: current.updatedAt,
  calendarUrl: current.calendarUrl,
  externalId: current.externalId,
});

/** API version 2025-06-01's provider match: the ranked providers as a bare array, best first. */
export const presentProviderRanking20250601 = (current: MatchResultOut): ProviderRankingOut20250601 =>
  current.data.map((match) => ({ id: match.provider.id, name: match.provider.name, kind: match.provider.kind, rating: match.rating }));
