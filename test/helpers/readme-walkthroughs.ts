/**
 * The README's shell walkthroughs as data (issue 28.3): every ```sh / ```bash block is run, in
 * order, in one bash process, unless the line before its fence is `<!-- not run: why -->`.
 *
 * A block is a list of steps: a command (lines joined by a trailing `\`), then its comments. A
 * comment `# → [status] <JSON>` (continued on `#    ` lines) is what the command answers: the
 * status, when given, must be the HTTP status of the command's last curl, and the JSON a match of
 * the command's output where `…` stands for anything (inside a string: any text; as a value: any
 * value; as an array element: any further elements). Objects may carry more keys than shown. Prose
 * may follow the JSON. A curl without such a status must answer 2xx or 3xx.
 */

export interface Expectation {
  readonly status: number | null;
  /** The JSON pattern's text, or null when the comment states only a status. */
  readonly pattern: string | null;
  /** The README line of the `# →` comment. */
  readonly line: number;
}

export interface Step {
  readonly command: string;
  /** The README line the command starts on. */
  readonly line: number;
  readonly expectations: Expectation[];
}

export interface Block {
  /** The `##`/`###` heading the block sits under. */
  readonly section: string;
  readonly line: number;
  readonly steps: Step[];
}

/** The blocks the README runs, in order. */
export function readmeBlocks(readme: string): Block[] {
  const lines = readme.split('\n');
  const blocks: Block[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{2,3} (.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const fence = /^(\s*)```(sh|bash)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const indent = fence[1]!.length;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const skipped = before >= 0 && /^\s*<!-- not run: .+ -->\s*$/.test(lines[before]!);
    const body: Array<{ text: string; line: number }> = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push({ text: lines[j]!.slice(indent), line: j + 1 });
    if (!skipped) blocks.push({ section, line: i + 1, steps: stepsOf(body) });
    i = j;
  }
  return blocks;
}

function stepsOf(body: ReadonlyArray<{ text: string; line: number }>): Step[] {
  const steps: Array<{ command: string; line: number; expectations: Expectation[] }> = [];
  let open: { status: number | null; text: string; line: number } | null = null;
  const close = () => {
    if (open === null) return;
    const step = steps.at(-1);
    if (step === undefined) throw new Error(`README line ${open.line}: an answer with no command before it`);
    step.expectations.push({ status: open.status, pattern: jsonPrefix(open.text), line: open.line });
    open = null;
  };
  for (let k = 0; k < body.length; k++) {
    const { text, line } = body[k]!;
    const trimmed = text.trim();
    if (trimmed.startsWith('#')) {
      const answer = /^#\s*→\s*(?:(\d{3})\b\s*)?(.*)$/.exec(trimmed);
      if (answer) {
        close();
        open = { status: answer[1] ? Number(answer[1]) : null, text: answer[2]!, line };
      } else if (open !== null && /^#\s{3,}\S/.test(trimmed) && !balanced(open.text)) {
        open.text += trimmed.replace(/^#\s+/, '');
      } else {
        close();
      }
      continue;
    }
    close();
    if (trimmed === '') continue;
    let command = text;
    while ((command.trimEnd().endsWith('\\') || openQuote(command)) && k + 1 < body.length) command += `\n${body[++k]!.text}`;
    steps.push({ command, line, expectations: [] });
  }
  close();
  return steps;
}

/** True when a shell command's text ends inside a quoted string (a body spread over lines). */
function openQuote(command: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === null) {
      if (c === '\\') i++;
      else if (c === "'" || c === '"') quote = c;
      else if (c === '#' && (i === 0 || /\s/.test(command[i - 1]!))) {
        const end = command.indexOf('\n', i);
        if (end === -1) break;
        i = end;
      }
    } else if (c === quote) quote = null;
    else if (quote === '"' && c === '\\') i++;
  }
  return quote !== null;
}

/** Walks JSON-ish text, skipping strings: the index where its first value closes (-1: it does not). */
function closingIndex(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The JSON at the start of an answer's text (before its prose), or null when it starts with none. */
function jsonPrefix(text: string): string | null {
  const start = text.trimStart();
  if (!start.startsWith('{') && !start.startsWith('[')) return null;
  const close = closingIndex(start);
  return close === -1 ? start : start.slice(0, close + 1);
}

/** True when an answer's JSON is complete (its continuation lines, if any, have all been read). */
const balanced = (text: string): boolean => {
  const json = jsonPrefix(text);
  return json === null || closingIndex(json) === json.length - 1;
};

/** A parsed answer pattern. */
type Pattern =
  | { kind: 'any' }
  | { kind: 'string'; glob: RegExp; text: string }
  | { kind: 'literal'; value: number | boolean | null }
  | { kind: 'array'; items: Pattern[]; open: boolean }
  | { kind: 'object'; entries: Array<[string, Pattern]> };

const ellipsis = '…';

export function parsePattern(text: string): Pattern {
  let i = 0;
  const space = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new Error(`answer pattern: ${what} at ${i}: ${text.slice(Math.max(0, i - 20), i + 20)}`);
  };
  const string = (): string => {
    if (text[i] !== '"') fail('expected a string');
    let end = i + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    const raw = text.slice(i, end + 1);
    i = end + 1;
    return JSON.parse(raw) as string;
  };
  const value = (): Pattern => {
    space();
    const c = text[i];
    if (text.startsWith(ellipsis, i)) {
      i += ellipsis.length;
      return { kind: 'any' };
    }
    if (c === '"') {
      const s = string();
      const glob = new RegExp(
        `^${s
          .split(ellipsis)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[\\s\\S]*')}$`,
      );
      return { kind: 'string', glob, text: s };
    }
    if (c === '{') {
      i++;
      const entries: Array<[string, Pattern]> = [];
      for (;;) {
        space();
        if (text[i] === '}') break;
        if (text.startsWith(ellipsis, i)) i += ellipsis.length;
        else {
          const key = string();
          space();
          if (text[i] !== ':') fail('expected :');
          i++;
          entries.push([key, value()]);
        }
        space();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') fail('expected , or }');
      }
      i++;
      return { kind: 'object', entries };
    }
    if (c === '[') {
      i++;
      const items: Pattern[] = [];
      let open = false;
      for (;;) {
        space();
        if (text[i] === ']') break;
        if (text.startsWith(ellipsis, i) && /^\s*[,\]]/.test(text.slice(i + ellipsis.length))) {
          i += ellipsis.length;
          open = true;
        } else items.push(value());
        space();
        if (text[i] === ',') i++;
        else if (text[i] !== ']') fail('expected , or ]');
      }
      i++;
      return { kind: 'array', items, open };
    }
    const literal = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i));
    if (!literal) return fail('expected a value');
    i += literal[0].length;
    return { kind: 'literal', value: JSON.parse(literal[0]) as number | boolean | null };
  };
  const pattern = value();
  space();
  if (i !== text.length) fail('text after the pattern');
  return pattern;
}

/** Where `actual` differs from the pattern (empty: it matches). */
export function mismatches(pattern: Pattern, actual: unknown, at = '$'): string[] {
  switch (pattern.kind) {
    case 'any':
      return [];
    case 'literal':
      return actual === pattern.value ? [] : [`${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(pattern.value)}`];
    case 'string':
      return typeof actual === 'string' && pattern.glob.test(actual) ? [] : [`${at}: ${JSON.stringify(actual)} does not match "${pattern.text}"`];
    case 'object': {
      if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`${at}: ${JSON.stringify(actual)} is not an object`];
      const record = actual as Record<string, unknown>;
      return pattern.entries.flatMap(([key, p]) => (key in record ? mismatches(p, record[key], `${at}.${key}`) : [`${at}.${key}: missing`]));
    }
    case 'array': {
      if (!Array.isArray(actual)) return [`${at}: ${JSON.stringify(actual)?.slice(0, 200)} is not an array`];
      if (!pattern.open) {
        if (actual.length !== pattern.items.length) return [`${at}: ${actual.length} items, the README shows ${pattern.items.length}`];
        return pattern.items.flatMap((p, k) => mismatches(p, actual[k], `${at}[${k}]`));
      }
      // With `…`: the shown items appear in this order among the actual ones.
      let from = 0;
      for (const [k, p] of pattern.items.entries()) {
        let found = -1;
        for (let j = from; j < actual.length; j++) {
          if (mismatches(p, actual[j]).length === 0) {
            found = j;
            break;
          }
        }
        if (found === -1) return [`${at}: no item after index ${from} matches the README's item ${k}`];
        from = found + 1;
      }
      return [];
    }
  }
}
