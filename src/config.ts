import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Environment = 'live' | 'sandbox';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Release version of the platform (package.json), sent as X-Platform-Version. */
  readonly platformVersion: string;
  readonly logLevel: string;
  readonly trustProxy: boolean;
  /** When true the live environment is switched off (evaluation image). */
  readonly sandboxOnly: boolean;
  readonly tenantName: string;
  readonly adminClientId: string | undefined;
  readonly adminClientSecret: string | undefined;
  /**
   * The sandbox admin's own secret when the admin is configured (PETCARE_SANDBOX_ADMIN_CLIENT_SECRET);
   * unset, one is generated and printed once. Never derived from the live secret.
   */
  readonly sandboxAdminClientSecret: string | undefined;
  readonly issuer: string;
  readonly audience: string;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  readonly rateLimitPerMinute: number;
  readonly tokenRateLimitPerMinute: number;
  readonly jsonBodyLimitBytes: number;
  /** Most bytes of a refused body still read and discarded after the answer, so the client can read the 413. */
  readonly refusedBodyDrainBytes: number;
  readonly idempotencyTtlSeconds: number;
  readonly auditFlushMs: number;
  readonly shutdownTimeoutMs: number;
  /** Public base URL used in links handed to other programs (calendarUrl); default: the request's own origin. */
  readonly publicUrl: string | undefined;
  /** Open connections one client address may hold (0 = no cap; the default is off behind a trusted proxy, where every client is the proxy). */
  readonly maxConnectionsPerIp: number;
  /** Where whole-appliance backup archives go (default <dataDir>/backups: mount a second disk or share there). */
  readonly backupDir: string;
  /** Backup archives kept; older ones are deleted after a new one is complete. */
  readonly backupsKept: number;
  /** PETCARE_BACKUP_KEY(_FILE): 32 random bytes, base64 or hex, that encrypt every backup archive (decoded and checked by the backups module). */
  readonly backupKey: string | undefined;
  /** Host headers (host or host:port) links may be built from when publicUrl is unset; others get the listener's address. */
  readonly allowedHosts: readonly string[];
  readonly documentMaxBytes: number;
  /** Largest import file (POST /v1/imports), in bytes; 413 beyond. */
  readonly importMaxBytes: number;
  /** Slots closer than this to now are not offered nor bookable. */
  readonly bookingMinNoticeMinutes: number;
  /** How often the job runner looks for due work (and the webhook fan-out for new events). */
  readonly jobPollMs: number;
  /** Delays in seconds between webhook attempts: the nth retry waits the nth value. */
  readonly webhookRetrySchedule: readonly number[];
  /** Hosts or CIDRs webhooks may reach even though they are loopback / link-local. */
  readonly webhookAllowHosts: readonly string[];
  /** Webhook receivers on RFC 1918 / unique-local addresses (on-premises receivers); false refuses them too. */
  readonly webhookAllowPrivate: boolean;
  /** GET /v1/events/stream: open streams per API client (429 beyond). */
  readonly eventStreamsPerClient: number;
  /** GET /v1/events/stream: how often the feed looks for new events, and the heartbeat comment's period. */
  readonly eventStreamPollMs: number;
  readonly eventStreamHeartbeatMs: number;
  /** GET /v1/events/stream: bytes a slow reader may fall behind before its stream is dropped. */
  readonly eventStreamBufferBytes: number;
  readonly webhookTimeoutMs: number;
  /**
   * Where webhook requests are built, signed and sent: `on` a worker thread, `off` the API's own
   * thread, `auto` a worker when this process may use two CPUs or more (its affinity), else inline.
   */
  readonly webhookThread: 'auto' | 'on' | 'off';
  readonly webhookSecretOverlapHours: number;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly vaccinationReminderDays: number;
  readonly appointmentReminderHours: number;
  /** A boarding medication dose with nothing logged this many minutes after its time is overdue (care-plan-doses job). */
  readonly doseOverdueMinutes: number;
  /** The marketplace commission in basis points when a provider has no override (1500 = 15 %). */
  readonly commissionBps: number;
  /** OpenAI-compatible server for the AI platform, including /v1 (Ollama, llama.cpp, vLLM); unset: extractive answers, lexical retrieval. */
  readonly llmBaseUrl: string | undefined;
  /** Chat model that phrases answers (needs llmBaseUrl). */
  readonly llmModel: string | undefined;
  /** Embedding model for vector retrieval (needs llmBaseUrl); pinned per knowledge service. */
  readonly embeddingsModel: string | undefined;
  /** How long an answer waits for the model server before falling back to extractive. */
  readonly llmTimeoutMs: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Finds package.json whether running from src/ (tsx) or dist/src/ (compiled). */
function readPlatformVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(here, candidate), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'pet-care-platform' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const platformVersion = readPlatformVersion();

/** The environments an appliance serves: both, or the sandbox alone (evaluation image). */
export const environmentsOf = (config: Pick<Config, 'sandboxOnly'>): Environment[] => (config.sandboxOnly ? ['sandbox'] : ['live', 'sandbox']);

type Env = Record<string, string | undefined>;

/**
 * A setting the operator got wrong. main.ts prints its message alone, one line without a stack
 * trace, and exits with exitConfigError, as for an unusable data dir: a restart loop (Docker's
 * `restart: unless-stopped`) then shows the same sentence every time instead of a crash.
 */
export class ConfigError extends Error {}

/** PETCARE_BACKUP_KEY's text as its 32 bytes (hex, or base64/base64url), or null when it is not such a key. */
export function decodeBackupKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : null;
}

/** Checked at start, not at the first nightly backup: a key that cannot encrypt stops the appliance in one line. */
function backupKey(env: Env): string | undefined {
  const text = env.PETCARE_BACKUP_KEY?.trim();
  if (!text) return undefined;
  if (!decodeBackupKey(text)) {
    throw new ConfigError(
      `PETCARE_BACKUP_KEY must be 32 random bytes written as base64 or hex (make one with \`openssl rand -base64 32\`); the one given is not (${text.length} characters)`,
    );
  }
  return text;
}

/** sysexits.h EX_CONFIG. */
export const exitConfigError = 78;

/**
 * Secrets may come from files (Docker/compose `secrets:` mount them under /run/secrets), so they
 * never show in `docker inspect`: NAME_FILE names the file, whose content (without the trailing
 * newline) is NAME's value. Setting both is refused: which one wins would be a guess.
 */
const secretFiles = [
  ['PETCARE_ADMIN_CLIENT_SECRET', 'PETCARE_ADMIN_CLIENT_SECRET_FILE'],
  ['PETCARE_SANDBOX_ADMIN_CLIENT_SECRET', 'PETCARE_SANDBOX_ADMIN_CLIENT_SECRET_FILE'],
  ['PETCARE_SMTP_URL', 'PETCARE_SMTP_URL_FILE'],
  ['PETCARE_BACKUP_KEY', 'PETCARE_BACKUP_KEY_FILE'],
] as const;

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/**
 * Why a secret file cannot be read, in one line. A file compose mounts from the host keeps the
 * host's owner and mode, and the image runs as uid 1000: a root-owned 0600 file is the usual case.
 */
function unreadableFile(fileName: string, file: string, err: NodeJS.ErrnoException): ConfigError {
  const code = err.code ?? String(err);
  const uid = process.getuid?.();
  if ((code === 'EACCES' || code === 'EPERM') && uid !== undefined) {
    let owner = '';
    try {
      const stat = statSync(file);
      owner = `; it is owned by uid ${stat.uid} with mode ${octal(stat.mode)}`;
    } catch {
      // a folder on the way is closed too: the sentence without the owner says enough
    }
    return new ConfigError(
      `${fileName}: cannot read ${file} (${code}): it must be readable by uid ${uid}, the user the appliance runs as${owner} ` +
        `(on the host: chown ${uid} the file it is mounted from, keep mode 0600)`,
    );
  }
  const why: Record<string, string> = { ENOENT: 'no such file', EISDIR: 'a folder, not a file' };
  return new ConfigError(`${fileName}: cannot read ${file} (${code})${why[code] ? `: ${why[code]}` : ''}`);
}

function withSecretFiles(env: Env): Env {
  const resolved: Env = { ...env };
  for (const [name, fileName] of secretFiles) {
    const file = env[fileName];
    if (file === undefined || file === '') continue;
    if (env[name]) throw new ConfigError(`set ${name} or ${fileName}, not both`);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw unreadableFile(fileName, file, err as NodeJS.ErrnoException);
    }
    const value = text.replace(/\r?\n$/, '');
    // An empty file is a mistake, never "unset": that would generate an admin nobody asked for.
    if (value.trim() === '') throw new ConfigError(`${fileName}: ${file} is empty`);
    resolved[name] = value;
  }
  return resolved;
}

/**
 * The rule for admin secrets an operator sets (README "Configuration"): at least
 * minAdminSecretLength characters after the sk_live_ / sk_test_ prefix (the whole secret when it
 * has none), and none of the placeholder text that examples and templates use. Checked where the
 * operator's environment is read (loadConfig's env, not its overrides: the test harness passes
 * its fixed secrets as overrides), for an appliance that holds live data; the sandbox-only
 * evaluation appliance takes its public demo secret (its compose file applies this rule before
 * it publishes the port beyond loopback: publicSandboxProblem).
 */
export const minAdminSecretLength = 32;

/** Lower-case letters and digits only, so `replace-with`, `Replace_With` and `replacewith` all match. */
const placeholderWords = ['replacewith', 'changeme', 'example', 'placeholder', 'yoursecret', 'longrandom', 'xxxxxx'];

/** What is wrong with an admin secret, as the end of a sentence naming it; null when it is accepted. */
export function adminSecretProblem(secret: string): string | null {
  const body = secret.replace(/^sk_(live|test)_/, '');
  const squashed = body.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (/[<>…]|\.\.\./.test(body) || placeholderWords.some((word) => squashed.includes(word))) {
    return 'is a placeholder from an example, not a secret';
  }
  if (body.length < minAdminSecretLength) {
    return `has ${body.length} characters${body === secret ? '' : ' after its prefix'}; at least ${minAdminSecretLength} are needed`;
  }
  return null;
}

function checkAdminSecrets(env: Env, rawEnv: Env): void {
  const checked = [
    ['PETCARE_ADMIN_CLIENT_SECRET', 'PETCARE_ADMIN_CLIENT_SECRET_FILE', 'sk_live_'],
    ['PETCARE_SANDBOX_ADMIN_CLIENT_SECRET', 'PETCARE_SANDBOX_ADMIN_CLIENT_SECRET_FILE', 'sk_test_'],
  ] as const;
  for (const [name, fileName, prefix] of checked) {
    const problem = env[name] ? adminSecretProblem(env[name]) : null;
    if (!problem) continue;
    const from = rawEnv[fileName] ? ` (from ${fileName})` : '';
    // The secret itself is never printed: a real one that is merely short is still a secret.
    throw new ConfigError(`${name}${from} ${problem}: generate one, e.g. ${prefix}$(openssl rand -hex 32)`);
  }
}

/** Addresses the evaluation compose may publish the public demo admin on. */
const loopbackBinds = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/**
 * docker/compose.sandbox.yml's guard: the sandbox-only appliance accepts the public demo secret,
 * so before its port is published beyond loopback the admin secret must pass the operator rule.
 */
export function publicSandboxProblem(bind: string, secret: string): string | null {
  if (loopbackBinds.includes(bind.trim())) return null;
  const problem = adminSecretProblem(secret);
  return problem ? `refusing to publish the sandbox on ${bind}: its admin secret ${problem}; set your own (sk_test_…) first` : null;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  return value;
}

function list(env: Env, name: string, fallback: readonly string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function seconds(env: Env, name: string, fallback: readonly number[]): number[] {
  return list(env, name, fallback.map(String)).map((part) => {
    const value = Number(part);
    if (!Number.isFinite(value) || value < 0 || value > 7 * 86400) throw new ConfigError(`${name} must list seconds between 0 and 604800 (got "${part}")`);
    return value;
  });
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * Default webhook retry delays (DESIGN §6): 1 min, 5 min, 30 min, 2 h, 5 h, 10 h after each
 * failure, then a final attempt 24 h after the first (63,660 s elapsed by then; 22,740 s more).
 */
export const defaultWebhookRetrySchedule = [60, 300, 1800, 7200, 18000, 36000, 22740] as const;

function choice<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.toLowerCase() as T;
  if (!allowed.includes(value)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

/** Reads and validates configuration once; the result is frozen and passed down explicitly. */
export function loadConfig(rawEnv: Env = process.env, overrides: Partial<Config> = {}): Config {
  const env = withSecretFiles(rawEnv);
  if (!bool(env, 'PETCARE_SANDBOX_ONLY', false)) checkAdminSecrets(env, rawEnv);
  const config: Config = {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.PETCARE_DATA_DIR || './data'),
    platformVersion,
    logLevel: env.PETCARE_LOG_LEVEL || 'info',
    trustProxy: bool(env, 'PETCARE_TRUST_PROXY', false),
    sandboxOnly: bool(env, 'PETCARE_SANDBOX_ONLY', false),
    tenantName: env.PETCARE_TENANT_NAME || 'My clinic group',
    adminClientId: env.PETCARE_ADMIN_CLIENT_ID || undefined,
    adminClientSecret: env.PETCARE_ADMIN_CLIENT_SECRET || undefined,
    sandboxAdminClientSecret: env.PETCARE_SANDBOX_ADMIN_CLIENT_SECRET || undefined,
    issuer: env.PETCARE_ISSUER || 'urn:petcare:appliance',
    audience: env.PETCARE_AUDIENCE || 'petcare-api',
    accessTokenTtlSeconds: int(env, 'PETCARE_ACCESS_TOKEN_TTL', 3600, 60, 86400),
    refreshTokenTtlSeconds: int(env, 'PETCARE_REFRESH_TOKEN_TTL', 30 * 86400, 3600, 365 * 86400),
    rateLimitPerMinute: int(env, 'PETCARE_RATE_LIMIT_PER_MINUTE', 600, 1, 100_000_000),
    tokenRateLimitPerMinute: int(env, 'PETCARE_TOKEN_RATE_LIMIT_PER_MINUTE', 120, 1, 100_000_000),
    jsonBodyLimitBytes: int(env, 'PETCARE_JSON_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    refusedBodyDrainBytes: int(env, 'PETCARE_REFUSED_BODY_DRAIN_BYTES', 64 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    idempotencyTtlSeconds: int(env, 'PETCARE_IDEMPOTENCY_TTL', 86400, 60, 7 * 86400),
    auditFlushMs: int(env, 'PETCARE_AUDIT_FLUSH_MS', 100, 1, 60_000),
    shutdownTimeoutMs: int(env, 'PETCARE_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    publicUrl: url(env, 'PETCARE_PUBLIC_URL'),
    maxConnectionsPerIp: int(env, 'PETCARE_MAX_CONNECTIONS_PER_IP', bool(env, 'PETCARE_TRUST_PROXY', false) ? 0 : 100, 0, 100_000),
    backupDir: env.PETCARE_BACKUP_DIR ? path.resolve(env.PETCARE_BACKUP_DIR) : '',
    backupsKept: int(env, 'PETCARE_BACKUPS_KEPT', 7, 1, 1000),
    backupKey: backupKey(env),
    allowedHosts: list(env, 'PETCARE_ALLOWED_HOSTS', []).map((host) => host.toLowerCase()),
    documentMaxBytes: int(env, 'PETCARE_DOCUMENT_MAX_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    importMaxBytes: int(env, 'PETCARE_IMPORT_MAX_BYTES', 512 * 1024 * 1024, 1024, 16 * 1024 * 1024 * 1024),
    bookingMinNoticeMinutes: int(env, 'PETCARE_BOOKING_MIN_NOTICE_MINUTES', 60, 0, 30 * 24 * 60),
    jobPollMs: int(env, 'PETCARE_JOB_POLL_MS', 250, 10, 60_000),
    webhookRetrySchedule: seconds(env, 'PETCARE_WEBHOOK_RETRY_SCHEDULE', defaultWebhookRetrySchedule),
    webhookAllowHosts: list(env, 'PETCARE_WEBHOOK_ALLOW_HOSTS', []),
    webhookAllowPrivate: bool(env, 'PETCARE_WEBHOOK_ALLOW_PRIVATE', true),
    eventStreamsPerClient: int(env, 'PETCARE_EVENT_STREAMS_PER_CLIENT', 5, 1, 1000),
    eventStreamPollMs: int(env, 'PETCARE_EVENT_STREAM_POLL_MS', 250, 10, 10_000),
    eventStreamHeartbeatMs: int(env, 'PETCARE_EVENT_STREAM_HEARTBEAT_MS', 15_000, 1_000, 300_000),
    eventStreamBufferBytes: int(env, 'PETCARE_EVENT_STREAM_BUFFER_BYTES', 1024 * 1024, 16 * 1024, 64 * 1024 * 1024),
    webhookTimeoutMs: int(env, 'PETCARE_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookThread: choice(env, 'PETCARE_WEBHOOK_THREAD', ['auto', 'on', 'off'] as const, 'auto'),
    webhookSecretOverlapHours: int(env, 'PETCARE_WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 24 * 30),
    smtpUrl: url(env, 'PETCARE_SMTP_URL'),
    mailFrom: env.PETCARE_MAIL_FROM || 'Pet-Care Platform <no-reply@petcare.local>',
    vaccinationReminderDays: int(env, 'PETCARE_VACCINATION_REMINDER_DAYS', 30, 0, 365),
    appointmentReminderHours: int(env, 'PETCARE_APPOINTMENT_REMINDER_HOURS', 24, 0, 24 * 30),
    doseOverdueMinutes: int(env, 'PETCARE_DOSE_OVERDUE_MINUTES', 60, 1, 24 * 60),
    commissionBps: int(env, 'PETCARE_COMMISSION_BPS', 1500, 0, 10_000),
    llmBaseUrl: url(env, 'PETCARE_LLM_BASE_URL'),
    llmModel: env.PETCARE_LLM_MODEL || undefined,
    embeddingsModel: env.PETCARE_EMBEDDINGS_MODEL || undefined,
    llmTimeoutMs: int(env, 'PETCARE_LLM_TIMEOUT_MS', 15_000, 100, 600_000),
    ...overrides,
  };
  // The default backup folder follows the data dir, also one given as an override (tests, CLI).
  return Object.freeze(config.backupDir ? config : { ...config, backupDir: path.join(config.dataDir, 'backups') });
}
