import type { JobDefinition } from '../../jobs/job-definition.js';
import { appointmentRemindersJob, vaccinationRemindersJob } from './reminder-jobs.js';

export { appointmentRemindersJob, vaccinationRemindersJob } from './reminder-jobs.js';
// Shared with recall campaigns (POST /v1/ai/recall): one ledger, one consent rule, one message.
export { previewVaccinationReminder, remindVaccination, type Outcome as ReminderOutcome } from './reminder-jobs.js';
export { vaccinationReminderKey, type DueVaccination } from './reminders.repository.js';

/**
 * The reminder jobs (cron, UTC): `vaccination-reminders` daily at 06:00, `appointment-reminders`
 * hourly. Lead times come from config (PETCARE_VACCINATION_REMINDER_DAYS, PETCARE_APPOINTMENT_REMINDER_HOURS).
 */
// deps is accepted for symmetry with other modules' jobs; the jobs read config from their context.
export function reminderJobs(_deps?: unknown): JobDefinition[] {
  return [vaccinationRemindersJob(), appointmentRemindersJob()];
}
export { remindersModule } from './reminders.module.js';
