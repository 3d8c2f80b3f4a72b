import type { ModuleManifest } from '../../module-manifest.js';
import { appointmentRemindersJob, vaccinationRemindersJob } from './reminder-jobs.js';
import { remindersEvents } from './reminders.events.js';

/**
 * The reminder jobs (cron, UTC): `vaccination-reminders` daily at 06:00, `appointment-reminders`
 * hourly; their ledger is the notifications module's.
 */
export const remindersModule: ModuleManifest<unknown> = {
  name: 'reminders',
  events: remindersEvents,
  jobs: () => [vaccinationRemindersJob(), appointmentRemindersJob()],
};
