import { PACING_MARGIN, paceShare, pacingLine } from '../campaigns/pacing';
import { blockEventRate, campaignEventRate, marginFor, marginOfPlan, planBlocks, PREFERRED_SHARE } from './block-optimization';
import { PRIOR_CLICKS } from '../campaigns/event-rate';
import { smoothedCtr } from './campaign-ranking';

describe('block optimization', () => {
  const prior = 0.02;

  it('should start a campaign without data at the network prior per click times the prior CTR', () => {
    expect(campaignEventRate([], prior)).toBeCloseTo(prior * smoothedCtr(0, 0), 12);
  });

  it('should smooth the campaign toward the prior (worth PRIOR_CLICKS clicks) and each block toward the campaign', () => {
    const totals = [
      { adBlockId: 'good', impressions: 300, clicks: 100, events: 30 },
      { adBlockId: 'poor', impressions: 300, clicks: 100, events: 6 },
    ];
    const campaign = campaignEventRate(totals, prior);
    expect(campaign).toBeCloseTo((36 + PRIOR_CLICKS * prior) / (600 + PRIOR_CLICKS / smoothedCtr(200, 600)), 12);
    expect(blockEventRate(totals[0], campaign)).toBeCloseTo(31 / (300 + 1 / campaign), 12);
    // a block without data sits at the campaign's rate exactly
    expect(blockEventRate({ impressions: 0, events: 0 }, campaign)).toBeCloseTo(campaign, 12);
  });

  it('should keep every block at the full margin with too few events: delivery as without optimization', () => {
    const plan = planBlocks(
      [
        { adBlockId: 'a', impressions: 5000, clicks: 50, events: 0 },
        { adBlockId: 'b', impressions: 10, clicks: 10, events: 9 },
      ],
      prior,
    );
    // fewer events than MIN_CAMPAIGN_EVENTS: no block is held back on so little
    expect([...plan.margins.values()]).toEqual([PACING_MARGIN, PACING_MARGIN]);
    expect(plan.heldBack).toEqual([]);
    expect(plan.unseenMargin).toBe(PACING_MARGIN);
    expect(planBlocks([], prior)).toMatchObject({ margins: new Map(), preferred: [], heldBack: [], unseenMargin: PACING_MARGIN });
  });

  it('should hold back first on the block whose users bring the event five times less often', () => {
    const plan = planBlocks(
      [
        { adBlockId: 'poor', impressions: 300, clicks: 100, events: 6 },
        { adBlockId: 'good', impressions: 300, clicks: 100, events: 30 },
      ],
      prior,
    );
    expect(plan.preferred.map((block) => block.adBlockId)).toEqual(['good']);
    expect(plan.heldBack.map((block) => block.adBlockId)).toEqual(['poor']);
    const good = plan.preferred[0].estimatedEventRate;
    const poor = plan.heldBack[0].estimatedEventRate;
    expect(poor / good).toBeLessThan(PREFERRED_SHARE);
    expect(marginOfPlan(plan, 'good')).toBe(PACING_MARGIN);
    expect(marginOfPlan(plan, 'poor')).toBeCloseTo(PACING_MARGIN * (poor / good), 12);
    // a block never seen starts at the campaign's rate, between the two
    expect(plan.unseenMargin).toBeGreaterThan(marginOfPlan(plan, 'poor'));
    expect(plan.unseenMargin).toBeLessThan(PACING_MARGIN);
  });

  it('should lower the line in proportion to the estimate, never raise it past the full margin', () => {
    expect(marginFor(1, 1)).toBe(PACING_MARGIN);
    expect(marginFor(0.8, 1)).toBe(PACING_MARGIN);
    expect(marginFor(0.5, 1)).toBeCloseTo(PACING_MARGIN / 2, 12);
    expect(marginFor(0, 1)).toBe(0);
    expect(marginFor(0.3, 0)).toBe(PACING_MARGIN);
    // at 6 h of a day the poor block's line is below the good block's by the margin it lost
    const full = pacingLine(1_000_000, paceShare({ start: 0, end: 24 }, 6));
    const lower = pacingLine(1_000_000, paceShare({ start: 0, end: 24, margin: 0.01 }, 6));
    expect(full - lower).toBe(40_000);
  });

  it('should list held-back blocks worst first and preferred blocks best first', () => {
    const plan = planBlocks(
      [
        { adBlockId: 'b1', impressions: 1000, clicks: 100, events: 50 },
        { adBlockId: 'b2', impressions: 1000, clicks: 100, events: 48 },
        { adBlockId: 'b3', impressions: 1000, clicks: 100, events: 10 },
        { adBlockId: 'b4', impressions: 1000, clicks: 100, events: 2 },
      ],
      prior,
    );
    expect(plan.preferred.map((block) => block.adBlockId)).toEqual(['b1', 'b2']);
    expect(plan.heldBack.map((block) => block.adBlockId)).toEqual(['b4', 'b3']);
    expect(marginOfPlan(plan, 'b4')).toBeLessThan(marginOfPlan(plan, 'b3'));
  });
});
