import { Clock } from '../common/clock';
import type { MatchContext } from '../serving/campaign-matcher';
import type { ForecastConfig } from './forecast.config';
import type { ForecastSampleRepository } from './forecast-sample.repository';
import type { SampleRow } from './forecast-sample';
import { ForecastSampler, SAMPLE_DAYS } from './forecast-sampler';

const NOW = Date.UTC(2026, 11, 4, 12);
const context = (now = NOW): MatchContext => ({
  now,
  country: 'DE',
  language: 'de',
  platform: 'iOS',
  premium: true,
  highValue: false,
  linkedWallet: true,
  linkedChainWallet: false,
  walletHasBalance: true,
});

function samplerWith(config: ForecastConfig, failing = false) {
  const written: SampleRow[] = [];
  const deletes: number[] = [];
  let left = 12_000;
  const repository = {
    insertMany: async (rows: SampleRow[]) => {
      if (failing) throw new Error('database gone');
      written.push(...rows);
    },
    deleteBefore: async (before: number, limit: number) => {
      deletes.push(before);
      const batch = Math.min(left, limit);
      left -= batch;
      return batch;
    },
  } as unknown as ForecastSampleRepository;
  const clock = { now: () => NOW } as Clock;
  return { sampler: new ForecastSampler(config, repository, clock), written, deletes };
}

describe(ForecastSampler.name, () => {
  it('keeps every request at rate 1, with its context, block, limit and weight', async () => {
    const { sampler, written } = samplerWith({ forecastSampleRate: 1, forecastSampleMaxPerDay: 100 });
    sampler.offer('block-1', context(), 3);
    await sampler.flush();
    expect(written).toEqual([
      {
        id: expect.any(String),
        sampledAt: NOW,
        adBlockId: 'block-1',
        country: 'DE',
        language: 'de',
        platform: 'iOS',
        flags: 1 | 4 | 16,
        adLimit: 3,
        weightMilli: 1000,
      },
    ]);
  });

  it('weights a sampled request by the rate, and keeps about that share', async () => {
    const { sampler, written } = samplerWith({ forecastSampleRate: 0.25, forecastSampleMaxPerDay: 1_000_000 });
    for (let i = 0; i < 20_000; i++) sampler.offer('b', context(), 1);
    await sampler.flush();
    expect(written.length).toBeGreaterThan(4000);
    expect(written.length).toBeLessThan(6000);
    expect(new Set(written.map((row) => row.weightMilli))).toEqual(new Set([4000]));
  });

  it('keeps nothing at rate 0 and no more than the day allows', async () => {
    const none = samplerWith({ forecastSampleRate: 0, forecastSampleMaxPerDay: 100 });
    none.sampler.offer('b', context(), 1);
    await none.sampler.flush();
    expect(none.written).toHaveLength(0);
    const bounded = samplerWith({ forecastSampleRate: 1, forecastSampleMaxPerDay: 5 });
    for (let i = 0; i < 9; i++) bounded.sampler.offer('b', context(), 1);
    bounded.sampler.offer('b', context(NOW + 86_400_000), 1);
    await bounded.sampler.flush();
    expect(bounded.written).toHaveLength(6);
  });

  it('drops a batch the database refuses instead of holding the ad path', async () => {
    const { sampler } = samplerWith({ forecastSampleRate: 1, forecastSampleMaxPerDay: 100 }, true);
    sampler.offer('b', context(), 1);
    await expect(sampler.flush()).resolves.toBeUndefined();
  });

  it('prunes what is older than the window, batch after batch', async () => {
    const { sampler, deletes } = samplerWith({ forecastSampleRate: 1, forecastSampleMaxPerDay: 100 });
    expect(await sampler.prune()).toBe(12_000);
    expect(new Set(deletes)).toEqual(new Set([NOW - SAMPLE_DAYS * 86_400_000]));
  });
});
