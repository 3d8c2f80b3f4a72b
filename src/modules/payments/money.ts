import { Type } from '@sinclair/typebox';

/** Above this (10^12 minor units, ten billion dollars) an amount is a typo, not a charge. */
export const maxAmount = 1_000_000_000_000;

/** A money amount in integer minor units: positive, whole, at most 10^12. */
export const PositiveAmount = (description = 'Integer minor units (cents), 1 to 10^12.') => Type.Integer({ minimum: 1, maximum: maxAmount, description });

export const TaxRateBps = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Tax rate in basis points: 825 = 8.25 %.' });

export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, upper case, e.g. USD.', examples: ['USD'] });

const knownCurrencies = new Set<string>(Intl.supportedValuesOf('currency'));

/** An ISO 4217 code Node's ICU knows (USD, EUR, JPY, …); XYZ is not one. */
export const isCurrency = (code: string): boolean => knownCurrencies.has(code);

/**
 * round-half-up(amount × bps / 10000), the one tax rounding rule (DESIGN §7), in exact integer
 * arithmetic: amount × bps reaches 10^16, past the 2^53 a double holds exactly.
 */
export function taxOf(amount: number, bps: number): number {
  if (amount < 0 || bps < 0) throw new RangeError('taxOf takes non-negative amounts and rates');
  return Number((BigInt(amount) * BigInt(bps) + 5000n) / 10000n);
}

/** round-half-up(numerator × part / whole) for non-negative integers (whole > 0), exactly. */
export function proportion(numerator: number, part: number, whole: number): number {
  if (whole <= 0) return 0;
  const twice = (BigInt(numerator) * BigInt(part) * 2n + BigInt(whole)) / (2n * BigInt(whole));
  return Number(twice);
}
