import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the grooming module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const groomingErrorCodes = {
  stylist_unavailable: { status: 409, title: 'The stylist cannot take this booking' },
  no_stylist_available: { status: 409, title: 'No stylist is free for this booking' },
  no_membership_credit: { status: 422, title: 'No membership credit is left for this package' },
  no_package_credit: { status: 422, title: 'No prepaid package credit is left for this package' },
} as const satisfies Record<string, ErrorCodeInfo>;

type GroomingErrorCodes = typeof groomingErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends GroomingErrorCodes {}
}
