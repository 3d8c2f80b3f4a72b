import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the jobs module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const jobsErrorCodes = {
  job_running: { status: 409, title: 'The job is already running' },
} as const satisfies Record<string, ErrorCodeInfo>;

type JobsErrorCodes = typeof jobsErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends JobsErrorCodes {}
}
