import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../time';
import { campaignDefaults } from './defaults';

describe('campaignDefaults', () => {
  it('starts a new campaign now (to the minute, never later), so that it serves once saved, for 30 days', () => {
    const now = Date.UTC(2026, 11, 4, 9, 41, 37, 250);
    const { budget } = campaignDefaults(now);
    expect(budget.startTime).toBe(Date.UTC(2026, 11, 4, 9, 41));
    expect(budget.startTime).toBeLessThanOrEqual(now);
    expect(now - budget.startTime).toBeLessThan(60_000);
    expect(budget.endTime - budget.startTime).toBe(30 * DAY_MS);
    // even pacing preselected, as the API's default
    expect(budget.pacing).toBe('even');
  });
});
