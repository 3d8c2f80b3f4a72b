import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';

/** One data row of an import file, its columns already renamed by the mapping; empty cells are left out. */
export interface SourceRow {
  /** Where it is in the file: CSV counts the header as row 1 (a spreadsheet's row number); NDJSON counts lines. */
  row: number;
  values: Record<string, string>;
  /** Why the row could not be read at all (a CSV record of the wrong width, an NDJSON line that is no object). */
  unreadable?: { field: string; message: string };
}

export type ImportFormat = 'csv' | 'ndjson';

const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** CSV unless the first character (after a UTF-8 byte order mark and blanks) opens a JSON object. */
export function formatOf(head: Buffer): ImportFormat {
  return withoutBom(head.toString('utf8')).trimStart().startsWith('{') ? 'ndjson' : 'csv';
}

const renamed = (name: string, mapping: Readonly<Record<string, string>>): string => mapping[name.trim()] ?? name.trim();

/**
 * The column names of the file's first row (CSV: the header; NDJSON: the keys of the first object),
 * renamed by the mapping, from the first bytes of the file; null when they cannot be read there.
 */
export function headerOf(head: Buffer, format: ImportFormat, mapping: Readonly<Record<string, string>>): string[] | null {
  const text = withoutBom(head.toString('utf8'));
  if (format === 'ndjson') {
    const line = text.trimStart().split('\n', 1)[0] ?? '';
    try {
      const first = JSON.parse(line) as unknown;
      return first && typeof first === 'object' && !Array.isArray(first) ? Object.keys(first).map((k) => renamed(k, mapping)) : null;
    } catch {
      return null;
    }
  }
  try {
    const [header] = parseSync(text, { to_line: 1, relax_quotes: false, skip_empty_lines: true }) as string[][];
    return header ? header.map((name) => renamed(name, mapping)) : null;
  } catch {
    return null;
  }
}

const cellText = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
};

const csvOptions = { bom: true, relax_column_count: true, skip_empty_lines: true } as const;

/**
 * The records of a CSV file (csv-parse's streaming parser, fed the file a chunk at a time), handed
 * over as arrays: all the records each chunk of the file completed. The parser gives each record to
 * `on_record` while it parses a chunk, which keeps it here instead of queueing it in the stream for
 * an async iterator to take one at a time (a promise per record was a tenth of a pets import).
 * A file the parser refuses (an unclosed quote) throws its CsvError.
 */
async function* csvRecords(file: string): AsyncGenerator<string[][]> {
  let parsed: string[][] = [];
  const parser = parse({
    ...csvOptions,
    on_record: (record: string[]) => {
      parsed.push(record);
      return null;
    },
  });
  // An error is read from `errored` after each write; a listener so it is not also thrown as an event.
  parser.on('error', () => undefined);
  const input = createReadStream(file);
  try {
    for await (const chunk of input) {
      parser.write(chunk as Buffer);
      if (parser.errored) throw parser.errored;
      if (parsed.length > 0) {
        const records = parsed;
        parsed = [];
        yield records;
      }
    }
    await new Promise<void>((resolve, reject) => parser.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (parser.errored) throw parser.errored;
    if (parsed.length > 0) yield parsed;
  } finally {
    input.destroy();
    parser.destroy();
  }
}

/**
 * The data rows of a stored import file, streamed (csv-parse's streaming parser for CSV, one line at a
 * time for NDJSON) in arrays of `size` rows (the last one shorter): memory stays flat whatever the
 * file's size. `skip` data rows are passed over unread (a resumed import). A CSV record whose width
 * differs from the header's is given as unreadable.
 */
export async function* readRows(
  file: string,
  format: ImportFormat,
  mapping: Readonly<Record<string, string>>,
  skip: number,
  size: number,
): AsyncGenerator<SourceRow[]> {
  let batch: SourceRow[] = [];
  if (format === 'csv') {
    let header: string[] | null = null;
    let index = 0;
    for await (const records of csvRecords(file)) {
      for (const cells of records) {
        if (header === null) {
          header = cells.map((name) => renamed(name, mapping));
          continue;
        }
        index += 1;
        if (index <= skip) continue;
        const row = index + 1;
        if (cells.length !== header.length) {
          batch.push({ row, values: {}, unreadable: { field: 'row', message: `has ${cells.length} fields; the header row has ${header.length}` } });
        } else {
          const values: Record<string, string> = {};
          for (let i = 0; i < header.length; i += 1) {
            const value = cells[i] as string;
            if (value !== '') values[header[i] as string] = value;
          }
          batch.push({ row, values });
        }
        if (batch.length === size) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
    return;
  }
  const input = createReadStream(file);
  try {
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let line = 0;
    let index = 0;
    for await (const raw of lines) {
      line += 1;
      const text = line === 1 ? withoutBom(raw) : raw;
      if (text.trim() === '') continue;
      index += 1;
      if (index <= skip) continue;
      batch.push(ndjsonRow(line, text, mapping));
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    input.destroy();
  }
}

function ndjsonRow(line: number, text: string, mapping: Readonly<Record<string, string>>): SourceRow {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { row: line, values: {}, unreadable: { field: 'row', message: 'is not valid JSON' } };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { row: line, values: {}, unreadable: { field: 'row', message: 'is not a JSON object' } };
  }
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const cell = cellText(value);
    if (cell !== undefined) values[renamed(key, mapping)] = cell;
  }
  return { row: line, values };
}

/**
 * Reads one column (after the mapping) of every data row, in file order: `visit` gets its value
 * (undefined where the cell is empty or the row unreadable) and the row's number as readRows gives
 * it. The validation pass, which counts the rows and finds repeated externalIds, reads this instead
 * of a whole row object per row.
 */
export async function scanColumn(
  file: string,
  format: ImportFormat,
  mapping: Readonly<Record<string, string>>,
  column: string,
  visit: (value: string | undefined, row: number) => void,
): Promise<void> {
  if (format === 'csv') {
    let width = -1;
    let index = -1;
    let row = 1;
    for await (const records of csvRecords(file)) {
      for (const cells of records) {
        if (width < 0) {
          width = cells.length;
          index = cells.findIndex((name) => renamed(name, mapping) === column);
          continue;
        }
        row += 1;
        visit(cells.length !== width || index < 0 ? undefined : cellText(cells[index]), row);
      }
    }
    return;
  }
  const input = createReadStream(file);
  try {
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let line = 0;
    for await (const raw of lines) {
      line += 1;
      const text = line === 1 ? withoutBom(raw) : raw;
      if (text.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        visit(undefined, line);
        continue;
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
        visit(undefined, line);
        continue;
      }
      let value: string | undefined;
      for (const key in parsed) if (renamed(key, mapping) === column) value = cellText((parsed as Record<string, unknown>)[key]);
      visit(value, line);
    }
  } finally {
    input.destroy();
  }
}
