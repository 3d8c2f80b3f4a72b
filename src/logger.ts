import pino, { type Logger } from 'pino';

/** JSON logs to stdout; secrets and bodies are never passed in, and auth headers are redacted anyway. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'petcare' },
    redact: ['req.headers.authorization', 'authorization', 'client_secret', 'clientSecret', 'secret'],
  });
}
