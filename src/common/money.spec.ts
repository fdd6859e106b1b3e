import { fromMicros, hasAtMostDecimals, toMicros } from './money';

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
});
