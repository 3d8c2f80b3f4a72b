#!/usr/bin/env node
/**
 * Operator CLI: manages API clients, locations and signing keys offline, straight on the data dir
 * (PETCARE_DATA_DIR), through the same services and repositories as the API. A running appliance
 * notices client changes on its next request (SQLite data_version) and a new signing key within
 * a second or two (it checks the key file every second), without a restart.
 *
 *   npm run cli -- help            (tsx)
 *   node dist/src/cli.js help      (compiled)
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { clientCommands } from './cli/clients.commands.js';
import { cliOptions, UsageError, type CliCommand, type Values } from './cli/command.js';
import { backupCommands } from './cli/backups.commands.js';
import { keyCommands } from './cli/keys.commands.js';
import { importCommands } from './cli/imports.commands.js';
import { locationCommands } from './cli/locations.commands.js';
import { openSession, type Session } from './cli/session.js';
import { systemClock } from './clock.js';
import { loadConfig } from './config.js';
import { AppError, type FieldError } from './http/errors.js';

const usage = `Pet-Care Platform operator CLI: works offline on PETCARE_DATA_DIR (default ./data).

Usage: petcare <command> [options]      (npm run cli -- <command>; node dist/src/cli.js <command>)

Commands:
  clients list [--env live|sandbox]
  clients create --name <name> --role admin|doctor|staff --scopes "<scope> <scope>…"
                 [--env live|sandbox] [--locations loc_a,loc_b] [--ip-allowlist 10.0.0.0/8,…] [--rate-limit <per minute>]
                 Prints the client id and its secret (shown once).
  clients disable <cli_id> [--env live|sandbox]   Stops the client and every token it holds at once.
  clients enable <cli_id> [--env live|sandbox]
  clients rotate-secret <cli_id> [--env live|sandbox]
                 Prints the new secret (shown once); the old one and the refresh tokens stop working.
  locations list [--env live|sandbox]
  locations create --name <name> --timezone <IANA zone, e.g. Europe/London> [--env live|sandbox]
  keys rotate    Adds a new RS256 signing key; a running appliance signs with it within a second or two,
                 no restart (older keys keep verifying tokens they signed).
  backup [--out <file or folder>] [--unencrypted]
                 Writes one archive of everything in the data dir (databases, documents, knowledge files,
                 keys, …; not backups/) to PETCARE_BACKUP_DIR, or to --out; works while the server runs.
                 Encrypted when PETCARE_BACKUP_KEY(_FILE) is set; without a key an archive outside the data
                 dir is refused unless --unencrypted (it holds the signing keys). Prints the archive's path last.
  backup verify <archive>   Reads an archive and checks every file against its sha256 (writes nothing).
  import <type> <file> [--dry-run] [--location loc_…] [--mapping <file.json>] [--env live|sandbox]
                 Imports a CSV (header row) or NDJSON file of pet-parents, pets, vaccinations, medical-records,
                 appointments or providers as POST /v1/imports does, here, with a progress bar; prints the report
                 (counts and the first row errors; --json: the import object). A re-run of the same file updates
                 or skips what is there already. Exit 1 when a row failed.
  restore <archive> [--force]
                 Replaces the contents of PETCARE_DATA_DIR (--force when it holds data), staged inside it;
                 refused while any appliance process uses it; the archive is verified before anything moves.
  help

Options:
  --env     Environment (default: live, or sandbox on a sandbox-only appliance). Client commands that
            name a cli_ id find it in any environment when --env is not given.
  --json    Machine-readable output.

Environment: PETCARE_DATA_DIR, PETCARE_SANDBOX_ONLY, PETCARE_BACKUP_DIR, PETCARE_BACKUP_KEY(_FILE) (as for the appliance).
Exit codes: 0 ok, 1 refused (the reason is printed), 2 usage error.`;

/** Each command group lives in src/cli/<group>.commands.ts; this file parses the line and runs one. */
const commands: Record<string, CliCommand> = { ...clientCommands, ...locationCommands, ...keyCommands, ...backupCommands, ...importCommands };

/** Request body fields as the operator typed them, so messages name the flag to fix. */
const flagOf: Record<string, string> = {
  name: '--name',
  role: '--role',
  scopes: '--scopes',
  environment: '--env',
  locationIds: '--locations',
  ipAllowlist: '--ip-allowlist',
  rateLimitPerMinute: '--rate-limit',
  timezone: '--timezone',
  locationId: '--location',
  mapping: '--mapping',
  dryRun: '--dry-run',
};
const flagName = (field: string) => field.replace(/^body\.?/, '').replace(/^[A-Za-z]+/, (f) => flagOf[f] ?? f);

/** Runs one command line; returns the exit code. Output goes through `out`/`err` so tests could drive it in-process. */
export async function runCli(
  argv: string[],
  out: (text: string) => void,
  err: (text: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: cliOptions, allowPositionals: true, strict: true });
  } catch (error) {
    err(`${error instanceof Error ? error.message : String(error)}\nRun "npm run cli -- help" for usage.`);
    return 2;
  }
  const values = parsed.values as Values;
  const { positionals } = parsed;
  const [area, action, ...rest] = positionals;
  if (values.help || area === undefined || area === 'help') {
    out(usage);
    return 0;
  }
  // Two command words (`clients list`), or one followed by its argument (`restore <archive>`).
  let name = `${area} ${action ?? ''}`.trim();
  let args = rest;
  if (!Object.hasOwn(commands, name) && Object.hasOwn(commands, area)) {
    name = area;
    args = action === undefined ? [] : [action, ...rest];
  }
  let session: Session | undefined;
  try {
    const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!command) throw new UsageError(`Unknown command "${name}".`);
    const given = (Object.keys(values) as (keyof Values)[]).filter((k) => k !== 'json' && k !== 'help' && values[k] !== undefined);
    const stray = given.filter((k) => !command.options.includes(k));
    if (stray.length > 0) throw new UsageError(`"${name}" does not take ${stray.map((k) => `--${k}`).join(', ')}.`);
    const wanted = command.takesId ? 'one client id (cli_…)' : command.argument ? `one argument: ${command.argument}` : null;
    if (command.arguments) {
      if (args.length !== command.arguments.length) throw new UsageError(`"${name}" takes ${command.arguments.join(' ')}.`);
    } else if (wanted ? args.length !== 1 : args.length !== 0) {
      throw new UsageError(wanted ? `"${name}" takes ${wanted}.` : `"${name}" takes no arguments (got "${args.join(' ')}").`);
    }

    const config = loadConfig(env);
    // Opened on first use: a command on the keys file alone needs no database.
    const openOnce = async () => (session ??= await openSession(config, values.json, out));
    await command.run({
      config,
      values,
      id: command.takesId ? (args[0] ?? '') : '',
      argument: args[0] ?? '',
      args,
      clock: systemClock,
      out,
      session: openOnce,
    });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\nRun "npm run cli -- help" for usage.`);
      return 2;
    }
    if (error instanceof AppError) {
      const fields = (error.errors ?? []).map((e: FieldError) => `${flagName(e.field)}: ${e.message}`);
      err(`error (${error.code}): ${error.message}${fields.length ? ` ${fields.join('; ')}` : ''}`);
      return 1;
    }
    err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await session?.stores.close();
  }
}

// Run only as the entry point (node dist/src/cli.js, tsx src/cli.ts), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(path.resolve(process.argv[1]))).href) {
  // What the CLI writes (restored databases, archives) is the appliance's own, as in main.ts.
  process.umask(0o077);
  const code = await runCli(
    process.argv.slice(2),
    (text) => process.stdout.write(`${text}\n`),
    (text) => process.stderr.write(`${text}\n`),
  );
  process.exitCode = code;
}
