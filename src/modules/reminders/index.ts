export { appointmentRemindersJob, vaccinationRemindersJob } from './reminder-jobs.js';
// Shared with recall campaigns (POST /v1/ai/recall): one ledger, one consent rule, one message.
export { previewVaccinationReminder, remindVaccination, type Outcome as ReminderOutcome } from './reminder-jobs.js';
export { vaccinationReminderKey, type DueVaccination } from './reminders.repository.js';
export { remindersModule } from './reminders.module.js';
