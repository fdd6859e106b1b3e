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
