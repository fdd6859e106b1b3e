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

/** True when `value` has no more than `decimals` decimal places (0.1 is fine, 0.1234567 is not for 6). */
export function hasAtMostDecimals(value: number, decimals: number): boolean {
  return Number(value.toFixed(decimals)) === value;
}
