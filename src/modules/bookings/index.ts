/** The table of facts every kind of booking shares (DESIGN §7): ids, the two booking events, the state check. */
export type { BookingKind, BookingsTable } from './bookings.table.js';
export { deleteTenantBookings, findBooking, insertBooking, updateBooking } from './bookings.repository.js';
export { emitBookingCancelled, emitBookingCreated } from './booking-events.js';
export { assertTransition, type StateMachine } from './booking-states.js';
export { bookingsModule } from './bookings.module.js';
