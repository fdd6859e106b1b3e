import { ConflictError, ValidationError } from '../common/errors';
import { applyStatusAction, checkCampaignNumbers, deliveryStatus, StatusAction } from './campaign-rules';
import type { CampaignStatus } from './entities/campaign.entity';
import { dayKeyOf } from '../common/time-zone';

describe('applyStatusAction', () => {
  const cases: Array<[CampaignStatus, boolean, StatusAction, boolean, CampaignStatus | 'conflict']> = [
    ['onGoing', true, 'start', false, 'onGoing'],
    ['onGoing', true, 'paused', false, 'paused'],
    ['onGoing', true, 'end', false, 'ended'],
    ['paused', true, 'start', false, 'onGoing'],
    ['paused', true, 'paused', false, 'paused'],
    ['paused', true, 'end', false, 'ended'],
    ['ended', true, 'start', false, 'conflict'],
    ['ended', true, 'paused', false, 'conflict'],
    ['ended', true, 'end', false, 'ended'],
    ['ended', true, 'start', true, 'conflict'],
    ['inReview', false, 'start', false, 'conflict'],
    ['inReview', false, 'start', true, 'onGoing'],
    ['inReview', false, 'paused', false, 'paused'],
    ['inReview', false, 'end', false, 'ended'],
    ['paused', false, 'start', false, 'conflict'],
    ['paused', false, 'start', true, 'onGoing'],
  ];

  it.each(cases)('should take %s (approved=%s) with %s (admin=%s) to %s', (status, approved, action, byAdmin, expected) => {
    const run = () => applyStatusAction({ status, approved }, action, byAdmin);
    if (expected === 'conflict') expect(run).toThrow(ConflictError);
    else expect(run().status).toBe(expected);
  });

  it.each<StatusAction>(['start', 'paused', 'end'])('should answer only status and approved when given a whole campaign row (%s)', (action) => {
    // a row's counters spread into the status change would be written back as read, over newer counter writes
    const row = { status: 'onGoing' as CampaignStatus, approved: true, impressions: 5, clicks: 2, spentMicros: 700 };
    expect(Object.keys(applyStatusAction(row, action, false)).sort()).toEqual(['approved', 'status']);
  });

  it('should record the approval when an admin starts a campaign in review', () => {
    expect(applyStatusAction({ status: 'inReview', approved: false }, 'start', true)).toEqual({ status: 'onGoing', approved: true });
  });
});

describe('deliveryStatus', () => {
  const now = Date.UTC(2026, 0, 10, 12);
  const base = {
    status: 'onGoing' as CampaignStatus,
    startTime: now - 1000,
    endTime: now + 1000,
    spentMicros: 0,
    totalBudgetMicros: 100,
    dailyBudgetMicros: 10,
    daySpentMicros: 0,
    spentDay: dayKeyOf(now - (now % 86_400_000)),
    timeZone: 'UTC',
    nextTimeZone: null,
    timeZoneChangesAt: null,
  };

  it('should follow the stored status when not onGoing', () => {
    expect(deliveryStatus({ ...base, status: 'paused' }, now)).toBe('paused');
    expect(deliveryStatus({ ...base, status: 'inReview' }, now)).toBe('inReview');
    expect(deliveryStatus({ ...base, status: 'ended' }, now)).toBe('ended');
  });

  it('should tell the time window and the budgets apart', () => {
    expect(deliveryStatus(base, now)).toBe('delivering');
    expect(deliveryStatus({ ...base, startTime: now + 1 }, now)).toBe('scheduled');
    expect(deliveryStatus({ ...base, endTime: now }, now)).toBe('finished');
    expect(deliveryStatus({ ...base, spentMicros: 100 }, now)).toBe('budgetSpent');
    expect(deliveryStatus({ ...base, daySpentMicros: 10 }, now)).toBe('dailyBudgetSpent');
  });

  it("should not count yesterday's spend against today's budget", () => {
    expect(deliveryStatus({ ...base, daySpentMicros: 10, spentDay: dayKeyOf(now - (now % 86_400_000) - 86_400_000) }, now)).toBe('delivering');
  });
});

describe('checkCampaignNumbers', () => {
  const good = { amount: 10, total: 100, startTime: 1, endTime: 2, billingType: 'CPM', costPer: 1.5 };
  const fieldsOf = (numbers: typeof good) => {
    try {
      checkCampaignNumbers(numbers);
      return [];
    } catch (error) {
      return (error as ValidationError).errors.map((e) => e.field);
    }
  };

  it('should accept a consistent campaign', () => {
    expect(fieldsOf(good)).toEqual([]);
    expect(fieldsOf({ ...good, amount: 100 })).toEqual([]);
    expect(fieldsOf({ ...good, billingType: 'CPC', costPer: 0.000001 })).toEqual([]);
  });

  it('should name each broken rule', () => {
    expect(fieldsOf({ ...good, endTime: 1 })).toEqual(['budget.endTime']);
    expect(fieldsOf({ ...good, amount: 101 })).toEqual(['budget.amount']);
    expect(fieldsOf({ ...good, costPer: 0.0005 })).toEqual(['bidding.costPer']);
  });
});
