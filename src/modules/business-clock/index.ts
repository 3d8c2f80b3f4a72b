/**
 * The business clock: what billing, settlements, reminders and bookings take as "now" (real time
 * in live, real time plus the sandbox test clock's offset in the sandbox). A module of its own,
 * importing no other module, so that every module can read it without loading the sandbox's routes
 * (whose reset reaches into every module and would make an import cycle).
 */
export type { SandboxClockTables } from './business-clock.table.js';
export { businessNow, clockOffset, maxClockLeadMs, resetClock, setClockOffset } from './business-clock.js';
export { businessClockModule } from './business-clock.module.js';
