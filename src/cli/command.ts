import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Session } from './session.js';

export { UsageError } from './usage-error.js';

/** Every option of every command, for node:util parseArgs (strict: an unknown flag is a usage error). */
export const cliOptions = {
  env: { type: 'string' },
  name: { type: 'string' },
  role: { type: 'string' },
  scopes: { type: 'string' },
  locations: { type: 'string' },
  'ip-allowlist': { type: 'string' },
  'rate-limit': { type: 'string' },
  timezone: { type: 'string' },
  force: { type: 'boolean' },
  out: { type: 'string' },
  unencrypted: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  location: { type: 'string' },
  mapping: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export interface Values {
  env?: string;
  name?: string;
  role?: string;
  scopes?: string;
  locations?: string;
  'ip-allowlist'?: string;
  'rate-limit'?: string;
  timezone?: string;
  force?: boolean;
  out?: string;
  unencrypted?: boolean;
  'dry-run'?: boolean;
  location?: string;
  mapping?: string;
  json: boolean;
  help: boolean;
}

/** What a command gets: the parsed line, and the data dir, opened only when the command asks for it. */
export interface CommandContext {
  readonly config: Config;
  readonly values: Values;
  /** The positional argument of a command that takes a client id. */
  readonly id: string;
  /** The positional argument of a command that declares `argument` (e.g. an archive path). */
  readonly argument: string;
  /** The positional arguments of a command that declares `arguments` (e.g. `import TYPE FILE`). */
  readonly args: readonly string[];
  readonly clock: Clock;
  readonly out: (text: string) => void;
  session(): Promise<Session>;
}

export interface CliCommand {
  /** Options it takes; anything else is a usage error rather than silently ignored. */
  readonly options: readonly (keyof Values)[];
  /** Takes one client id (cli_…) after the command words. */
  readonly takesId?: boolean;
  /** Takes one other positional argument, described here for the usage message (e.g. 'an archive path'). */
  readonly argument?: string;
  /** Takes these positional arguments, in order (named for the usage message). */
  readonly arguments?: readonly string[];
  run(ctx: CommandContext): Promise<void>;
}

/** A comma- or space-separated option value as a list. */
export const list = (raw: string | undefined): string[] | undefined => (raw === undefined ? undefined : raw.split(/[\s,]+/).filter(Boolean));
