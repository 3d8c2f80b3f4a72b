import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the sandbox module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const sandboxErrorCodes = {
  sandbox_only: { status: 403, title: 'This operation exists only in the sandbox environment' },
  clock_backwards: { status: 422, title: 'The sandbox clock only moves forward' },
  clock_out_of_range: { status: 422, title: 'The sandbox clock moves at most 5 years past real time' },
} as const satisfies Record<string, ErrorCodeInfo>;

type SandboxErrorCodes = typeof sandboxErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends SandboxErrorCodes {}
}
