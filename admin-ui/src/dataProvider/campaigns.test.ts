import { beforeEach, describe, expect, it } from 'vitest';
import type { UpdateParams } from 'react-admin';
import { campaignBody } from './campaigns';
import { fakeApi, ok, query } from './fakeApi';

describe('campaigns', () => {
  beforeEach(() => localStorage.clear());

  it('should create a campaign from the form shape only and answer the detail', async () => {
    const detail = { campaignId: 'c9', id: 'c9', name: 'Winter', campaignStatus: 'onGoing' };
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/create': () => ok({ campaignId: 'c9' }),
      'GET /api/v2/openapi/ad/campaign/detail': () => ok(detail),
    });
    const form = {
      name: 'Winter',
      targeting: { platform: 'All' },
      budget: { amount: 1, total: 10, strategy: 'daily', startTime: 1, endTime: 2 },
      bidding: { billingType: 'CPM', costPer: 2 },
      ad: { adFormat: 'image' },
      verificationUrl: '  ',
      impressions: 5,
    };

    const result = await provider.create('campaigns', { data: form });

    expect(calls[0].body).toEqual({
      name: 'Winter',
      targeting: { platform: 'All' },
      budget: { amount: 1, total: 10, strategy: 'daily', startTime: 1, endTime: 2 },
      bidding: { billingType: 'CPM', costPer: 2 },
      ad: { adFormat: 'image' },
    });
    expect(query(calls[1])).toEqual({ campaignId: 'c9' });
    expect(result.data).toEqual(detail);
  });

  it('should update a campaign by id and remove an emptied verification URL', async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/update': (call) => ok({ campaignId: call.body.campaignId, name: call.body.name }),
    });
    const result = await provider.update('campaigns', {
      id: 'c1',
      data: { id: 'c1', name: 'New', verificationUrl: '', clicks: 3, campaignStatus: 'onGoing' },
      previousData: {},
    } as UpdateParams);
    expect(calls[0].body).toEqual({ campaignId: 'c1', name: 'New', verificationUrl: null });
    expect(result.data).toEqual({ id: 'c1', campaignId: 'c1', name: 'New' });
    expect(campaignBody({ verificationUrl: ' https://v.example/x ' })).toEqual({ verificationUrl: 'https://v.example/x' });
  });

  it('should send the optimization event, and never the read-only event counts or estimate of the detail', () => {
    const detail = {
      name: 'Funnel',
      optimizationEvent: 'payment',
      conversions: 2,
      cr: 0.1,
      events: { conversion: 1, onboard: 0, register: 4, play: 0, payment: 2, withdraw: 0 },
      estimatedEventRate: 0.04,
    };
    expect(campaignBody(detail)).toEqual({ name: 'Funnel', optimizationEvent: 'payment' });
    expect(campaignBody({ name: 'Kept' })).toEqual({ name: 'Kept' });
  });

  it('should send a filled frequency cap, leave out an empty one, and remove an emptied one on update', async () => {
    expect(campaignBody({ name: 'A', frequencyCap: { impressions: 3, hours: 24 } })).toEqual({ name: 'A', frequencyCap: { impressions: 3, hours: 24 } });
    expect(campaignBody({ name: 'A', frequencyCap: { impressions: null, hours: '' } })).toEqual({ name: 'A' });
    expect(campaignBody({ name: 'A', frequencyCap: null })).toEqual({ name: 'A' });
    expect(campaignBody({ frequencyCap: { hours: 48 } })).toEqual({ frequencyCap: { hours: 48 } });

    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/update': (call) => ok({ campaignId: call.body.campaignId, frequencyCap: call.body.frequencyCap }),
    });
    await provider.update('campaigns', { id: 'c1', data: { id: 'c1', frequencyCap: { impressions: null, hours: null } }, previousData: {} } as UpdateParams);
    await provider.update('campaigns', { id: 'c1', data: { id: 'c1', frequencyCap: { impressions: 5, hours: 2 } }, previousData: {} } as UpdateParams);
    await provider.update('campaigns', { id: 'c1', data: { id: 'c1', name: 'Kept' }, previousData: {} } as UpdateParams);
    expect(calls.map((call) => call.body)).toEqual([
      { campaignId: 'c1', frequencyCap: null },
      { campaignId: 'c1', frequencyCap: { impressions: 5, hours: 2 } },
      { campaignId: 'c1', name: 'Kept' },
    ]);
  });

  it('should send status actions and read series with their range', async () => {
    const series = [{ time: 0, impressions: 4, clicks: 1, conversions: 0, cost: 0.01, verifiedClicks: 0 }];
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/status': () => ok({ result: 'success' }),
      'GET /api/v2/openapi/ad/campaign/stats': () => ok({ series }),
    });
    await provider.setCampaignStatus('c1', 'paused');
    const points = await provider.campaignSeries('c1', { from: 10, to: 20, granularity: 'hour' });
    expect(calls[0].body).toEqual({ campaignId: 'c1', status: 'paused' });
    expect(query(calls[1])).toEqual({ campaignId: 'c1', from: '10', to: '20', granularity: 'hour' });
    expect(points).toEqual(series);
  });
});
