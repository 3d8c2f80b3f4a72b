import { DateTime } from 'luxon';

export interface MailText {
  subject: string;
  body: string;
}

interface Place {
  name: string;
  timezone: string;
}

// en-US names zones by their abbreviation where one exists (EST, GMT), otherwise by offset (GMT+1).
const locale = 'en-US';

/** A zone luxon knows, else UTC (locations are validated on write; this only guards old rows). */
const zoneOf = (timezone: string): string => (DateTime.now().setZone(timezone).isValid ? timezone : 'UTC');

/** `vet_consultation` → `vet consultation`. */
export const humanType = (type: string): string => type.replace(/[_-]+/g, ' ').trim();

/** A date (YYYY-MM-DD) as the location's staff would write it: "Monday 14 December 2026". */
export function formatDate(date: string, timezone: string): string {
  return DateTime.fromISO(date, { zone: zoneOf(timezone) })
    .setLocale(locale)
    .toFormat('cccc d LLLL yyyy');
}

/** An instant in the location's time zone: "Tuesday 24 November 2026 at 10:00 GMT". */
export function formatDateTime(instant: string, timezone: string): string {
  return DateTime.fromISO(instant, { zone: 'utc' }).setZone(zoneOf(timezone)).setLocale(locale).toFormat("cccc d LLLL yyyy 'at' HH:mm ZZZZ");
}

/** One header line: names may hold line breaks, a subject never does. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 200);

const signOff = (place: Place) => `\n\nKind regards,\n${place.name}\n`;

export function vaccinationReminderText(input: { parentName: string; petName: string; vaccine: string; dueOn: string; today: string; place: Place }): MailText {
  const when = formatDate(input.dueOn, input.place.timezone);
  const overdue = input.dueOn < input.today;
  const subject = overdue
    ? `${input.petName}'s ${input.vaccine} vaccination is overdue (due ${when})`
    : `${input.petName}'s ${input.vaccine} vaccination is due on ${when}`;
  const line = overdue
    ? `${input.petName}'s ${input.vaccine} vaccination was due on ${when} and is now overdue.`
    : `${input.petName}'s ${input.vaccine} vaccination is due on ${when}.`;
  const body = `Hello ${input.parentName},\n\n${line}\nPlease contact ${input.place.name} to book a visit.${signOff(input.place)}`;
  return { subject: oneLine(subject), body };
}

/** `type` is the appointment type's display name, e.g. "Vet consultation". */
export function appointmentReminderText(input: { parentName: string; petName: string; type: string; startsAt: string; place: Place }): MailText {
  const when = formatDateTime(input.startsAt, input.place.timezone);
  const subject = `Reminder: ${input.petName}'s appointment on ${when} (${input.type})`;
  const body =
    `Hello ${input.parentName},\n\n` +
    `This is a reminder of ${input.petName}'s appointment at ${input.place.name}:\n\n` +
    `  ${input.type}\n  ${when}\n\n` +
    `If you cannot make it, please let us know so we can offer the time to someone else.${signOff(input.place)}`;
  return { subject: oneLine(subject), body };
}
