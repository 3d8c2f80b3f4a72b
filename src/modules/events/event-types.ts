/** Both event lists of seed part 6. Aliases map to their canonical name (DESIGN §6). */
export const canonicalEventTypes = [
  'pet.registered',
  'appointment.created',
  'appointment.completed',
  'pet.vaccination_due',
  'boarding.checked_in',
  'boarding.checked_out',
  'payment.completed',
  'provider.onboarded',
  'provider.approved',
  'booking.created',
  'booking.cancelled',
  'marketplace.booking_created',
] as const;

export type EventType = (typeof canonicalEventTypes)[number];

export const eventTypeAliases = {
  'payment.succeeded': 'payment.completed',
  'vaccination.due': 'pet.vaccination_due',
} as const satisfies Record<string, EventType>;
