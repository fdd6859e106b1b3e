import { budgetDayAt, canonicalTimeZone, dayKeyOf, localDate, localDayStart, nextLocalMidnight, scheduleZoneChange, zoneAt } from './time-zone';

const at = (iso: string) => Date.parse(iso);

describe('time zones', () => {
  it('accepts IANA names (canonicalised) and refuses offsets, abbreviations and unknown names', () => {
    expect(canonicalTimeZone('Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(canonicalTimeZone('US/Eastern')).toBe('America/New_York');
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('Etc/GMT+5')).toBe('Etc/GMT+5');
    for (const bad of ['+05:00', 'EST', 'Mars/Olympus', '', 'Asia/Tokyo; drop', 'a'.repeat(80)]) expect(canonicalTimeZone(bad)).toBeNull();
  });

  it('starts a Tokyo day at 15:00 UTC the day before', () => {
    const ms = at('2026-12-04T03:30:00Z');
    expect(localDate('Asia/Tokyo', ms)).toBe('2026-12-04');
    expect(localDayStart('Asia/Tokyo', ms)).toBe(at('2026-12-03T15:00:00Z'));
    expect(nextLocalMidnight('Asia/Tokyo', ms)).toBe(at('2026-12-04T15:00:00Z'));
    expect(localDayStart('Asia/Tokyo', at('2026-12-04T15:00:00Z'))).toBe(at('2026-12-04T15:00:00Z'));
    expect(localDayStart('Asia/Tokyo', at('2026-12-04T14:59:59.999Z'))).toBe(at('2026-12-03T15:00:00Z'));
  });

  it('makes New York days 23 and 25 hours long across daylight saving', () => {
    const spring = localDayStart('America/New_York', at('2026-03-08T12:00:00Z'));
    expect(spring).toBe(at('2026-03-08T05:00:00Z'));
    expect(nextLocalMidnight('America/New_York', spring) - spring).toBe(23 * 3_600_000);
    const autumn = localDayStart('America/New_York', at('2026-11-01T12:00:00Z'));
    expect(autumn).toBe(at('2026-11-01T04:00:00Z'));
    expect(nextLocalMidnight('America/New_York', autumn) - autumn).toBe(25 * 3_600_000);
  });

  it('finds the day start where a zone skips midnight itself', () => {
    // Santiago moved its clocks from 00:00 to 01:00 on 2026-09-06: that day starts at 01:00 local (04:00 UTC)
    const start = localDayStart('America/Santiago', at('2026-09-06T15:00:00Z'));
    expect(localDate('America/Santiago', start)).toBe('2026-09-06');
    expect(localDate('America/Santiago', start - 1)).toBe('2026-09-05');
  });

  it('applies a changed zone from the next local midnight of the zone in force', () => {
    const now = at('2026-12-04T10:00:00Z'); // 19:00 in Tokyo
    const schedule = scheduleZoneChange({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null }, 'America/New_York', now);
    expect(schedule).toEqual({ timeZone: 'Asia/Tokyo', nextTimeZone: 'America/New_York', timeZoneChangesAt: at('2026-12-04T15:00:00Z') });
    expect(zoneAt(schedule, at('2026-12-04T14:59:59Z'))).toBe('Asia/Tokyo');
    expect(zoneAt(schedule, at('2026-12-04T15:00:00Z'))).toBe('America/New_York');
    // asking for today's zone again cancels the waiting change
    expect(scheduleZoneChange(schedule, 'Asia/Tokyo', now)).toEqual({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null });
    // a change already due is folded in before the next one
    const later = scheduleZoneChange(schedule, 'Europe/Berlin', at('2026-12-05T12:00:00Z'));
    expect(later.timeZone).toBe('America/New_York');
    expect(later.timeZoneChangesAt).toBe(at('2026-12-06T05:00:00Z'));
  });

  it('keys budget days by their start so that keys sort in time, also across a zone change either way', () => {
    const utc = { timeZone: 'UTC', nextTimeZone: null, timeZoneChangesAt: null };
    expect(budgetDayAt(utc, at('2026-12-04T10:00:00Z'))).toEqual({
      key: dayKeyOf(at('2026-12-04T00:00:00Z')),
      start: at('2026-12-04T00:00:00Z'),
      end: at('2026-12-05T00:00:00Z'),
    });
    expect(dayKeyOf(at('2026-12-04T00:00:00Z'))).toHaveLength(10);
    // Tokyo -> New York at Tokyo's midnight: New York is still on the 4th, so the day of the change is a short one
    const west = scheduleZoneChange({ timeZone: 'Asia/Tokyo', nextTimeZone: null, timeZoneChangesAt: null }, 'America/New_York', at('2026-12-04T10:00:00Z'));
    const before = budgetDayAt(west, at('2026-12-04T14:00:00Z'));
    const short = budgetDayAt(west, at('2026-12-04T16:00:00Z'));
    const next = budgetDayAt(west, at('2026-12-05T06:00:00Z'));
    expect([before.start, before.end]).toEqual([at('2026-12-03T15:00:00Z'), at('2026-12-04T15:00:00Z')]);
    expect([short.start, short.end]).toEqual([at('2026-12-04T15:00:00Z'), at('2026-12-05T05:00:00Z')]);
    expect([next.start, next.end]).toEqual([at('2026-12-05T05:00:00Z'), at('2026-12-06T05:00:00Z')]);
    expect(before.key < short.key && short.key < next.key).toBe(true);
    // New York -> Tokyo at New York's midnight: Tokyo's next midnight ends the day of the change
    const east = scheduleZoneChange({ timeZone: 'America/New_York', nextTimeZone: null, timeZoneChangesAt: null }, 'Asia/Tokyo', at('2026-12-04T12:00:00Z'));
    const changeDay = budgetDayAt(east, at('2026-12-05T06:00:00Z'));
    expect([changeDay.start, changeDay.end]).toEqual([at('2026-12-05T05:00:00Z'), at('2026-12-05T15:00:00Z')]);
  });
});
