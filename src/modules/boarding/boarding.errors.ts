import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the boarding module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const boardingErrorCodes = {
  no_vacancy: { status: 409, title: 'No place of this room type is free on every night of the stay' },
  room_unavailable: { status: 409, title: 'The room has no free place for this stay' },
  dose_already_logged: { status: 409, title: 'This dose is already logged; a correction names the entry it supersedes' },
  vaccinations_required: { status: 422, title: 'The pet lacks vaccinations the location requires' },
  dose_not_scheduled: { status: 422, title: "The time is not one of the medication's scheduled doses during the stay" },
} as const satisfies Record<string, ErrorCodeInfo>;

type BoardingErrorCodes = typeof boardingErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends BoardingErrorCodes {}
}
