/** Money is USDT on the wire and integer micro-USDT (1e-6) everywhere else. */
export const MICROS_PER_USDT = 1_000_000;
/** Upper bound of any amount: keeps every sum of micros far inside Number.MAX_SAFE_INTEGER. */
export const MAX_USDT = 1_000_000_000;

export function toMicros(usdt: number): number {
  return Math.round(usdt * MICROS_PER_USDT);
}

export function fromMicros(micros: number): number {
  return Number((micros / MICROS_PER_USDT).toFixed(6));
}

/**
 * `share` (0..1, e.g. PUBLISHER_SHARE) of an amount of micros, rounded down exactly as the decimal share says:
 * floor(700 × 0.7) is 490, where Math.floor(700 * 0.7) is 489 (0.7 is not exact in binary). The share counts to
 * 9 decimal places.
 */
export function shareOfMicros(micros: number, share: number): number {
  const [numerator, denominator] = decimalFraction(share);
  const product = micros * numerator;
  // below 2^53 the product is exact and one division rounds to the right integer side
  if (Number.isSafeInteger(product)) return Math.floor(product / denominator);
  return Number((BigInt(Math.trunc(micros)) * BigInt(numerator)) / BigInt(denominator));
}

let lastShare: { share: number; fraction: [number, number] } | null = null;

function decimalFraction(share: number): [number, number] {
  if (lastShare?.share === share) return lastShare.fraction;
  let numerator = Math.round(share * 1e9);
  let denominator = 1e9;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const divisor = gcd(numerator, denominator) || 1;
  numerator /= divisor;
  denominator /= divisor;
  lastShare = { share, fraction: [numerator, denominator] };
  return lastShare.fraction;
}

/** True when `value` has no more than `decimals` decimal places (0.1 is fine, 0.1234567 is not for 6). */
export function hasAtMostDecimals(value: number, decimals: number): boolean {
  return Number(value.toFixed(decimals)) === value;
}
