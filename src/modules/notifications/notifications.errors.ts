import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the notifications module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const notificationsErrorCodes = {
  recipient_unreachable: { status: 422, title: 'The recipient has no address for this channel' },
} as const satisfies Record<string, ErrorCodeInfo>;

type NotificationsErrorCodes = typeof notificationsErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends NotificationsErrorCodes {}
}
