import { withUnwritten } from './database-spend-source';

describe('withUnwritten', () => {
  const row = { spentMicros: 10_000, daySpentMicros: 4_000, spentDay: '2026-12-03' };

  it('should answer the database row when nothing is unwritten', () => {
    expect(withUnwritten(row, undefined)).toEqual(row);
  });

  it("should add the row's day's unwritten spend to the day and all of it to the total", () => {
    const unwritten = {
      totalMicros: 3_000,
      byDay: new Map([
        ['2026-12-03', 2_000],
        ['2026-12-02', 1_000],
      ]),
    };
    expect(withUnwritten(row, unwritten)).toEqual({ spentMicros: 13_000, daySpentMicros: 6_000, spentDay: '2026-12-03' });
  });

  it('should start a newer day from its own unwritten spend, not from the older day of the row', () => {
    const unwritten = { totalMicros: 1_500, byDay: new Map([['2026-12-04', 1_500]]) };
    expect(withUnwritten(row, unwritten)).toEqual({ spentMicros: 11_500, daySpentMicros: 1_500, spentDay: '2026-12-04' });
  });
});
