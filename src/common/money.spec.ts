import { fromMicros, hasAtMostDecimals, shareOfMicros, toMicros } from './money';

describe('money', () => {
  it('should convert USDT to integer micros without float drift', () => {
    expect(toMicros(0.1)).toBe(100_000);
    expect(toMicros(0.3)).toBe(300_000);
    expect(toMicros(1234.567891)).toBe(1_234_567_891);
    expect(toMicros(0.000001)).toBe(1);
  });

  it('should convert micros back to the same USDT number', () => {
    expect(fromMicros(100_000)).toBe(0.1);
    expect(fromMicros(1_234_567_891)).toBe(1234.567891);
    expect(fromMicros(0)).toBe(0);
  });

  it('should count decimal places', () => {
    expect(hasAtMostDecimals(0.1, 6)).toBe(true);
    expect(hasAtMostDecimals(1.000001, 6)).toBe(true);
    expect(hasAtMostDecimals(1.0000001, 6)).toBe(false);
    expect(hasAtMostDecimals(2.5, 3)).toBe(true);
    expect(hasAtMostDecimals(2.0005, 3)).toBe(false);
  });

  it('should take a decimal share of micros rounded down exactly, where float multiplication falls one short', () => {
    expect(Math.floor(700 * 0.7)).toBe(489); // the float trap
    expect(shareOfMicros(700, 0.7)).toBe(490);
    expect(shareOfMicros(90_000, 0.7)).toBe(63_000);
    expect(shareOfMicros(3_700, 0.7)).toBe(2_590);
    expect(shareOfMicros(1, 0.7)).toBe(0);
    expect(shareOfMicros(999, 0.7)).toBe(699);
    expect(shareOfMicros(12_345, 0)).toBe(0);
    expect(shareOfMicros(12_345, 1)).toBe(12_345);
    expect(shareOfMicros(1_000, 0.333)).toBe(333);
    for (let micros = 0; micros <= 20_000; micros++) expect(shareOfMicros(micros, 0.7)).toBe(Math.floor((micros * 7) / 10));
    // beyond 2^53 / numerator the exact path is taken
    expect(shareOfMicros(1e15, 0.7)).toBe(7e14);
    expect(shareOfMicros(1e15 + 3, 0.123456789)).toBe(Number((BigInt(1e15 + 3) * 123456789n) / 1000000000n));
  });
});
