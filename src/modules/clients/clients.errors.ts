import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the clients module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const clientsErrorCodes = {
  last_admin: { status: 409, title: 'The last enabled admin client cannot lose admin access' },
} as const satisfies Record<string, ErrorCodeInfo>;

type ClientsErrorCodes = typeof clientsErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends ClientsErrorCodes {}
}
