import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the ai module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const aiErrorCodes = {
  embedding_mismatch: { status: 409, title: "The service's pinned embedding model or dimension differs from the configured one; re-index it" },
  document_outside_service: { status: 422, title: "The pet document is not at one of the knowledge service's locations" },
  recall_too_large: { status: 422, title: 'The recall selects more recipients than one campaign may hold; narrow it' },
} as const satisfies Record<string, ErrorCodeInfo>;

type AiErrorCodes = typeof aiErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends AiErrorCodes {}
}
