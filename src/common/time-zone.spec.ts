import { budgetDayAt, canonicalTimeZone, dayKeyOf, localDate, localDayStart, nextLocalMidnight, scheduleZoneChange, zoneAt } from './time-zone';

/** An instant in UTC: month 1-12 (as written on a calendar), then hour, minute, second, ms. */
const at = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0) => Date.UTC(year, month - 1, day, hour, minute, second, ms);
/** A local calendar day as `localDate` writes it. */
const date = (year: number, month: number, day: number) => `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

describe('time zones', () => {
  it('accepts IANA names (canonicalised) and refuses offsets, abbreviations and unknown names', () => {
    expect(canonicalTimeZone('Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(canonicalTimeZone('US/Eastern')).toBe('America/New_York');
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('Etc/GMT+5')).toBe('Etc/GMT+5');
    for (const bad of ['+05:00', 'EST', 'Mars/Olympus', '', 'Asia/Tokyo; drop', 'a'.repeat(80)]) expect(canonicalTimeZone(bad)).toBeNull();
  });

  it('starts a Tokyo day at 15:00 UTC the day before', () => {
    const ms = at(2026, 12, 4, 3, 30);
    expect(localDate('Asia/Tokyo', ms)).toBe(date(2026, 12, 4));
    expect(localDayStart('Asia/Tokyo', ms)).toBe(at(2026, 12, 3, 15));
    expect(nextLocalMidnight('Asia/Tokyo', ms)).toBe(at(2026, 12, 4, 15));
    expect(localDayStart('Asia/Tokyo', at(2026, 12, 4, 15))).toBe(at(2026, 12, 4, 15));
    expect(localDayStart('Asia/Tokyo', at(2026, 12, 4, 14, 59, 59, 999))).toBe(at(2026, 12, 3, 15));
  });

  it('makes New York days 23 and 25 hours long across daylight saving', () => {
    const spring = localDayStart('America/New_York', at(2026, 3, 8, 12));
    expect(spring).toBe(at(2026, 3, 8, 5));
    expect(nextLocalMidnight('America/New_York', spring) - spring).toBe(23 * 3_600_000);
    const autumn = localDayStart('America/New_York', at(2026, 11, 1, 12));
    expect(autumn).toBe(at(2026, 11, 1, 4));
    expect(nextLocalMidnight('America/New_York', autumn) - autumn).toBe(25 * 3_600_000);
  });

  it('finds the day start where a zone skips midnight itself', () => {
    // Santiago moved its clocks from 00:00 to 01:00 on 6 September 2026: that day starts at 01:00 local (04:00 UTC)
    const start = localDayStart('America/Santiago', at(2026, 9, 6, 15));
    expect(localDate('America/Santiago', start)).toBe(date(2026, 9, 6));
    expect(localDate('America/Santiago', start - 1)).toBe(date(2026, 9, 5));
  });

  it('applies a changed zone from the next local midnight of the zone in force', () => {
    const now = at(2026, 12, 4, 10); // 19:00 in Tokyo
    const schedule = scheduleZoneChange({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null }, 'America/New_York', now);
    expect(schedule).toEqual({ timeZone: 'Asia/Tokyo', nextTimeZone: 'America/New_York', timeZoneChangesAt: at(2026, 12, 4, 15) });
    expect(zoneAt(schedule, at(2026, 12, 4, 14, 59, 59))).toBe('Asia/Tokyo');
    expect(zoneAt(schedule, at(2026, 12, 4, 15))).toBe('America/New_York');
    // asking for today's zone again cancels the waiting change
    expect(scheduleZoneChange(schedule, 'Asia/Tokyo', now)).toEqual({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null });
    // a change already due is folded in before the next one
    const later = scheduleZoneChange(schedule, 'Europe/Berlin', at(2026, 12, 5, 12));
    expect(later.timeZone).toBe('America/New_York');
    expect(later.timeZoneChangesAt).toBe(at(2026, 12, 6, 5));
  });

  it('keys budget days by their start so that keys sort in time, also across a zone change either way', () => {
    const utc = { timeZone: 'UTC', nextTimeZone: null, timeZoneChangesAt: null };
    expect(budgetDayAt(utc, at(2026, 12, 4, 10))).toEqual({
      key: dayKeyOf(at(2026, 12, 4)),
      start: at(2026, 12, 4),
      end: at(2026, 12, 5),
    });
    expect(dayKeyOf(at(2026, 12, 4))).toHaveLength(10);
    // Tokyo -> New York at Tokyo's midnight: New York is still on the 4th, so the day of the change is a short one
    const west = scheduleZoneChange({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null }, 'America/New_York', at(2026, 12, 4, 10));
    const before = budgetDayAt(west, at(2026, 12, 4, 14));
    const short = budgetDayAt(west, at(2026, 12, 4, 16));
    const next = budgetDayAt(west, at(2026, 12, 5, 6));
    expect([before.start, before.end]).toEqual([at(2026, 12, 3, 15), at(2026, 12, 4, 15)]);
    expect([short.start, short.end]).toEqual([at(2026, 12, 4, 15), at(2026, 12, 5, 5)]);
    expect([next.start, next.end]).toEqual([at(2026, 12, 5, 5), at(2026, 12, 6, 5)]);
    expect(before.key < short.key && short.key < next.key).toBe(true);
    // New York -> Tokyo at New York's midnight: Tokyo's next midnight ends the day of the change
    const east = scheduleZoneChange({ timeZone: 'America/New_York', nextTimeZone: null, timeZoneChangesAt: null }, 'Asia/Tokyo', at(2026, 12, 4, 12));
    const changeDay = budgetDayAt(east, at(2026, 12, 5, 6));
    expect([changeDay.start, changeDay.end]).toEqual([at(2026, 12, 5, 5), at(2026, 12, 5, 15)]);
  });
});
