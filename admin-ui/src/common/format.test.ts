import { describe, expect, it } from 'vitest';
import { formatDateTime, formatDateTimeWithZone, localizeTimes } from './format';

describe('localizeTimes', () => {
  it("should show the service's ISO UTC times in the user's time with the zone, and leave other words alone", () => {
    const ms = Date.UTC(2026, 11, 4, 10, 0);
    const text = localizeTimes('starts at 2026-12-04T10:00:00.000Z, not before');
    expect(text).toBe(`starts at ${formatDateTimeWithZone(ms)}, not before`);
    expect(text).not.toContain('T10:00');
    expect(formatDateTimeWithZone(ms)).toMatch(/(GMT|UTC)/);
    expect(localizeTimes('no times here')).toBe('no times here');
  });
});

describe('formatDateTime', () => {
  it("should name the user's zone with every time it shows, and a dash for none", () => {
    expect(formatDateTime(Date.UTC(2026, 11, 4, 10, 0))).toBe(formatDateTimeWithZone(Date.UTC(2026, 11, 4, 10, 0)));
    expect(formatDateTime(Date.UTC(2026, 11, 4, 10, 0))).toMatch(/(GMT|UTC)/);
    expect(formatDateTime(null)).toBe('—');
  });
});
