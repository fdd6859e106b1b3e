import { beforeEach, describe, expect, it } from 'vitest';
import type { UpdateParams } from 'react-admin';
import { fakeApi, ok, query } from './fakeApi';

describe('ad blocks', () => {
  beforeEach(() => localStorage.clear());

  it('should create an ad block with its signed-viewer rule and update it through ad/block/update', async () => {
    const detail = (extra: Record<string, unknown>) => ({ adBlockId: 'blk1', userId: 'acc1', name: 'Banner', requireSignedViewer: false, ...extra });
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/block/create': () => ok({ adBlockId: 'blk1' }),
      'GET /api/v2/openapi/ad/block/detail': () => ok(detail({ requireSignedViewer: true })),
      'POST /api/v2/openapi/ad/block/update': (call) => ok(detail(call.body)),
    });
    const created = await provider.create('adBlocks', { data: { name: 'Banner', requireSignedViewer: true } });
    expect(calls[0].body).toEqual({ name: 'Banner', requireSignedViewer: true });
    expect(created.data).toMatchObject({ id: 'blk1', requireSignedViewer: true });

    const updated = await provider.update('adBlocks', { id: 'blk1', data: { requireSignedViewer: false, impressions: 3 }, previousData: {} } as UpdateParams);
    expect(calls[2].body).toEqual({ adBlockId: 'blk1', requireSignedViewer: false });
    expect(updated.data).toMatchObject({ id: 'blk1', adBlockId: 'blk1', requireSignedViewer: false });
    await provider.create('adBlocks', { data: { name: 'Plain' } });
    expect(calls[3].body).toEqual({ name: 'Plain' });
  });

  it("should send a block's reward settings, an emptied reward URL as null, and call the rewards routes", async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/block/create': () => ok({ adBlockId: 'blk2' }),
      'GET /api/v2/openapi/ad/block/detail': () => ok({ adBlockId: 'blk2', name: 'Extra life' }),
      'POST /api/v2/openapi/ad/block/update': (call) => ok({ adBlockId: 'blk2', ...call.body }),
      'GET /api/v2/openapi/ad/block/rewards': () => ok({ rewards: [], total: 0, current: 1, pageSize: 50 }),
      'POST /api/v2/openapi/ad/block/rewards/replay': (call) => ok({ eventId: call.body.eventId, status: 'pending' }),
      'POST /api/v2/openapi/ad/block/rewards/test': () => ok({ statusCode: 200, ms: 12, error: null }),
    });
    const settings = { format: 'rewarded', rewardUrl: ' https://game.example.com/reward ', minViewMs: 15000, dailyRewardCap: 5 };
    await provider.create('adBlocks', { data: { name: 'Extra life', ...settings, completions: 3 } });
    expect(calls[0].body).toEqual({
      name: 'Extra life',
      format: 'rewarded',
      rewardUrl: 'https://game.example.com/reward',
      minViewMs: 15000,
      dailyRewardCap: 5,
    });
    await provider.update('adBlocks', { id: 'blk2', data: { rewardUrl: '' } } as unknown as UpdateParams);
    expect(calls[2].body).toEqual({ adBlockId: 'blk2', rewardUrl: null });
    expect(await provider.rewardLog('blk2')).toEqual({ rewards: [], total: 0, current: 1, pageSize: 50 });
    expect(query(calls[3])).toEqual({ adBlockId: 'blk2', pageSize: '50' });
    await provider.replayReward('rw_1');
    expect(calls[4].body).toEqual({ eventId: 'rw_1' });
    expect(await provider.testReward('blk2')).toEqual({ statusCode: 200, ms: 12, error: null });
    expect(calls[5].body).toEqual({ adBlockId: 'blk2' });
  });
});
