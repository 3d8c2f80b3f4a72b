import type { ErrorCodeInfo } from '../../http/errors.js';

/** The error codes the payments module defines (RFC 9457 `code`, with status and title); other modules may answer them too. */
export const paymentsErrorCodes = {
  wallet_exists: { status: 409, title: 'The parent already has a wallet in this currency' },
  amount_exceeds_due: { status: 422, title: 'The amount exceeds what is due on the invoice' },
  insufficient_funds: { status: 422, title: 'The wallet balance is too low' },
  refund_exceeds_payment: { status: 422, title: 'The refund exceeds what is left to refund on the payment' },
} as const satisfies Record<string, ErrorCodeInfo>;

type PaymentsErrorCodes = typeof paymentsErrorCodes;

// `AppError` takes these codes, and route declarations list them.
declare module '../../http/errors.js' {
  interface ModuleErrorCodes extends PaymentsErrorCodes {}
}
