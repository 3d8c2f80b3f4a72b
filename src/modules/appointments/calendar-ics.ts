/**
 * One appointment as an RFC 5545 calendar: CRLF line endings, TEXT values escaped (§3.3.11),
 * content lines folded at 75 octets without splitting a UTF-8 character (§3.1).
 */

export interface CalendarEvent {
  uid: string;
  /** Epoch ms. Without a METHOD property DTSTAMP is the last revision (RFC 5545 §3.8.7.2). */
  stamp: number;
  created: number;
  lastModified: number;
  start: number;
  end: number;
  summary: string;
  location: string;
  description: string | null;
  status: 'CONFIRMED' | 'CANCELLED';
  sequence: number;
}

/** 20261201T143000Z */
export const icsTime = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');

export const escapeText = (value: string): string =>
  value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');

/** Splits a content line into ≤ 75-octet pieces; continuation lines start with one space (which counts). */
export function foldLine(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let size = 0;
  let limit = 75;
  for (const char of line) {
    const length = Buffer.byteLength(char, 'utf8');
    if (size + length > limit) {
      parts.push(current);
      current = '';
      size = 0;
      limit = 74; // the leading space of a continuation line is one of its 75 octets
    }
    current += char;
    size += length;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

export function renderCalendar(event: CalendarEvent, productId = '-//Pet-Care Platform//Appointments//EN'): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:${productId}`,
    'CALSCALE:GREGORIAN',
    'BEGIN:VEVENT',
    `UID:${event.uid}`,
    `DTSTAMP:${icsTime(event.stamp)}`,
    `CREATED:${icsTime(event.created)}`,
    `LAST-MODIFIED:${icsTime(event.lastModified)}`,
    `SEQUENCE:${event.sequence}`,
    `DTSTART:${icsTime(event.start)}`,
    `DTEND:${icsTime(event.end)}`,
    `SUMMARY:${escapeText(event.summary)}`,
    `LOCATION:${escapeText(event.location)}`,
    ...(event.description ? [`DESCRIPTION:${escapeText(event.description)}`] : []),
    `STATUS:${event.status}`,
    'TRANSP:OPAQUE',
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return `${lines.map(foldLine).join('\r\n')}\r\n`;
}
