import { describe, expect, it } from 'vitest';
import { daySpendPoints } from './daySpend';

const HOUR = 3_600_000;
const day = Date.UTC(2027, 0, 10);

describe('daySpendPoints', () => {
  it('sums the day hour by hour next to the even line of the period', () => {
    const facts = {
      budget: { amount: 24, total: 1000, startTime: day - HOUR, endTime: day + 30 * 24 * HOUR },
      cost: 10,
      spentToday: 3,
      budgetResetsAt: day + 24 * HOUR,
    };
    const points = daySpendPoints(
      facts,
      [
        { time: day, cost: 1 },
        { time: day + 2 * HOUR, cost: 2 },
      ],
      day + 2 * HOUR + 5,
    );
    expect(points.slice(0, 4)).toEqual([
      { time: day, spent: 1, even: 1 },
      { time: day + HOUR, spent: 1, even: 2 },
      { time: day + 2 * HOUR, spent: 3, even: 3 },
      { time: day + 3 * HOUR, even: 4 },
    ]);
    expect(points).toHaveLength(24);
    expect(points[23]).toEqual({ time: day + 23 * HOUR, even: 24 });
  });

  it("paces over the window's part of the day and the total's rest when it is smaller", () => {
    const facts = {
      budget: { amount: 24, total: 16, startTime: day + 12 * HOUR, endTime: day + 16 * HOUR },
      cost: 4,
      spentToday: 0,
      budgetResetsAt: day + 24 * HOUR,
    };
    const points = daySpendPoints(facts, [], day);
    // 12 left of the total over 4 hours: 3 an hour from noon, nothing before, all of it after
    expect(points[11].even).toBe(0);
    expect(points[12].even).toBe(3);
    expect(points[15].even).toBe(12);
    expect(points[20].even).toBe(12);
  });
});
