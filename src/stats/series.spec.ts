import { DAY_MS, HOUR_MS } from '../common/clock';
import { ValidationError } from '../common/errors';
import { seriesWindow, sumIntoBuckets } from './series';

describe('seriesWindow', () => {
  const now = Date.UTC(2026, 10, 25, 10, 30);

  it('should cover the last 7 days in UTC days by default, starting at the first day boundary', () => {
    const window = seriesWindow({}, now);
    expect(window).toEqual({ first: Date.UTC(2026, 10, 18), bucket: DAY_MS, buckets: 8, to: now });
  });

  it('should cut hour buckets from the hour that holds `from`', () => {
    const from = Date.UTC(2026, 10, 25, 7, 15);
    expect(seriesWindow({ from, to: now, granularity: 'hour' }, now)).toEqual({ first: Date.UTC(2026, 10, 25, 7), bucket: HOUR_MS, buckets: 4, to: now });
  });

  it('should refuse an empty range and one of more than 5000 buckets, naming `from`', () => {
    expect(() => seriesWindow({ from: now, to: now }, now)).toThrow(ValidationError);
    expect(() => seriesWindow({ from: now - 5001 * HOUR_MS, to: now, granularity: 'hour' }, now)).toThrow(/5000 buckets/);
  });
});

describe('sumIntoBuckets', () => {
  it('should zero-fill every bucket and sum each column so that the buckets add up to the rows', () => {
    const window = seriesWindow({ from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 4) }, 0);
    const rows = [
      { hour: Date.UTC(2026, 0, 1, 5), clicks: 2, spend: 30 },
      { hour: Date.UTC(2026, 0, 1, 23), clicks: 1, spend: 10 },
      { hour: Date.UTC(2026, 0, 3, 0), clicks: 4, spend: 1 },
    ];
    const points = sumIntoBuckets(window, rows, ['clicks', 'spend'] as const);
    expect(points).toEqual([
      { time: Date.UTC(2026, 0, 1), clicks: 3, spend: 40 },
      { time: Date.UTC(2026, 0, 2), clicks: 0, spend: 0 },
      { time: Date.UTC(2026, 0, 3), clicks: 4, spend: 1 },
    ]);
  });
});

describe('local day buckets', () => {
  const newYork = { timeZone: 'America/New_York', nextTimeZone: null, timeZoneChangesAt: null };

  it("should bucket by the account's local days, 23 and 25 hours long across daylight saving", () => {
    // 13 March 2027 (24 h), the 14th (23 h, clocks go forward), the 15th
    const window = seriesWindow({ from: Date.UTC(2027, 2, 13, 12), to: Date.UTC(2027, 2, 15, 12) }, 0, newYork);
    expect(window.starts).toEqual([Date.UTC(2027, 2, 13, 5), Date.UTC(2027, 2, 14, 5), Date.UTC(2027, 2, 15, 4)]);
    const rows = [
      { hour: Date.UTC(2027, 2, 14, 4), spend: 1 }, // 23:00 on the 13th
      { hour: Date.UTC(2027, 2, 14, 5), spend: 2 }, // the 14th's first hour
      { hour: Date.UTC(2027, 2, 15, 3), spend: 4 }, // the 14th's last hour
      { hour: Date.UTC(2027, 2, 15, 4), spend: 8 }, // the 15th
    ];
    expect(sumIntoBuckets(window, rows, ['spend'] as const)).toEqual([
      { time: Date.UTC(2027, 2, 13, 5), spend: 1 },
      { time: Date.UTC(2027, 2, 14, 5), spend: 6 },
      { time: Date.UTC(2027, 2, 15, 4), spend: 8 },
    ]);
  });

  it('should keep UTC days for an account on UTC, and hours whatever the zone', () => {
    const utc = { timeZone: 'UTC', nextTimeZone: null, timeZoneChangesAt: null };
    expect(seriesWindow({ from: Date.UTC(2027, 0, 1, 12), to: Date.UTC(2027, 0, 3) }, 0, utc)).toEqual({
      first: Date.UTC(2027, 0, 1),
      bucket: DAY_MS,
      buckets: 2,
      to: Date.UTC(2027, 0, 3),
    });
    expect(seriesWindow({ from: Date.UTC(2027, 0, 1, 12), to: Date.UTC(2027, 0, 1, 14), granularity: 'hour' }, 0, newYork).buckets).toBe(2);
  });
});
