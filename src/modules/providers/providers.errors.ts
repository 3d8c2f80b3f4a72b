import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the providers module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const providersErrorCodes = {
  already_rated: { status: 409, title: 'This booking has already been rated' },
  already_replied: { status: 409, title: 'This review already has a reply' },
  onboarding_incomplete: { status: 422, title: 'The provider lacks a listing or a weekly schedule' },
  booking_not_completed: { status: 422, title: 'Only a completed marketplace booking can be rated' },
  provider_not_bookable: { status: 422, title: 'The provider takes no bookings in its current state' },
} as const satisfies Record<string, ErrorCodeInfo>;

type ProvidersErrorCodes = typeof providersErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends ProvidersErrorCodes {}
}
