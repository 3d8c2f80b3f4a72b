import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the imports module defines (RFC 9457 `code`, with status and title). */
export const importsErrorCodes = {
  import_encoding_unsupported: { status: 400, title: 'The import file is not UTF-8 text' },
} as const satisfies Record<string, ErrorCodeInfo>;

type ImportsErrorCodes = typeof importsErrorCodes;

declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends ImportsErrorCodes {}
}
