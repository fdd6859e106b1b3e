import { knownTimeZone, offsetAt, offsetsOver } from './time-zone';

const HOUR = 3_600_000;

describe('report time zones', () => {
  it('should know IANA names as given and refuse made-up ones', () => {
    expect(knownTimeZone('UTC')).toBe('UTC');
    expect(knownTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(knownTimeZone('Mars/Olympus')).toBeNull();
  });

  it('should read whole-hour, half-hour and negative offsets', () => {
    const at = Date.UTC(2026, 0, 15, 12);
    expect(offsetAt('UTC', at)).toBe(0);
    expect(offsetAt('Europe/Berlin', at)).toBe(HOUR);
    expect(offsetAt('Asia/Kolkata', at)).toBe(5.5 * HOUR);
    expect(offsetAt('America/New_York', at)).toBe(-5 * HOUR);
  });

  it("should find each daylight saving change at the first UTC hour it applies to, over a year's window", () => {
    const from = Date.UTC(2026, 0, 1);
    const to = Date.UTC(2027, 0, 1);
    // Europe: summer time from 01:00 UTC on the last Sunday of March to 01:00 UTC on the last Sunday of October
    expect(offsetsOver('Europe/Berlin', from, to)).toEqual([
      { since: from, offsetMs: HOUR },
      { since: Date.UTC(2026, 2, 29, 1), offsetMs: 2 * HOUR },
      { since: Date.UTC(2026, 9, 25, 1), offsetMs: HOUR },
    ]);
    expect(offsetsOver('Asia/Tokyo', from, to)).toEqual([{ since: from, offsetMs: 9 * HOUR }]);
  });
});
