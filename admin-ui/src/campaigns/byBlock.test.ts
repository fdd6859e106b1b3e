import { describe, expect, it } from 'vitest';
import { blockRows } from './byBlock';

describe('blockRows', () => {
  it('should list preferred blocks first, then held-back ones best first, with counts and the estimate per 1000', () => {
    const record = {
      optimization: {
        blocksPreferred: [{ adBlockId: 'g', impressions: 135, clicks: 135, events: 67, estimatedEventRate: 0.49285 }],
        blocksHeldBack: [
          { adBlockId: 'worst', impressions: 40, clicks: 10, events: 1, estimatedEventRate: 0.01 },
          { adBlockId: 'p', impressions: 36, clicks: 36, events: 3, estimatedEventRate: 0.0986 },
        ],
      },
    };
    expect(blockRows(record)).toEqual([
      { adBlockId: 'g', impressions: 135, clicks: 135, events: 67, perMille: 492.85, standing: 'preferred' },
      { adBlockId: 'p', impressions: 36, clicks: 36, events: 3, perMille: 98.6, standing: 'heldBack' },
      { adBlockId: 'worst', impressions: 40, clicks: 10, events: 1, perMille: 10, standing: 'heldBack' },
    ]);
    // the detail's lists are left as they are
    expect(record.optimization.blocksHeldBack[0].adBlockId).toBe('worst');
  });

  it('should answer no rows without the field or without data', () => {
    expect(blockRows(undefined)).toEqual([]);
    expect(blockRows({})).toEqual([]);
    expect(blockRows({ optimization: { blocksPreferred: [], blocksHeldBack: [] } })).toEqual([]);
  });
});
