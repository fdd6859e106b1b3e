import type { Principal } from '../accounts/principal';
import { MetricsService } from '../metrics/metrics.service';
import { CompatService } from './compat.service';
import type { SdkCommonEventDto } from './dto/sdk.dto';

describe('ton-ai-sdk common events: counted always, logged at info once per account per minute', () => {
  const metrics = new MetricsService();
  const unused = null as never;
  const compat = new CompatService(unused, unused, unused, unused, unused, unused, unused, metrics);
  const info = jest.spyOn(compat['logger'], 'log').mockImplementation(() => undefined);
  const debug = jest.spyOn(compat['logger'], 'debug').mockImplementation(() => undefined);
  const principal = (accountId: string) => ({ accountId, keyId: `key-${accountId}` }) as Principal;
  const event = (eventName: string) => ({ eventName, openId: 'u1' }) as SdkCommonEventDto;
  const counted = async () =>
    Object.fromEntries(
      (await metrics.registry.getSingleMetric('adnet_sdk_common_events_total')!.get()).values.map((value) => [value.labels.kind, value.value]),
    );

  it('logs the first event of an account at info, the rest of that minute at debug, and again after a minute', async () => {
    const start = 1_800_000_000_000;
    compat.recordCommonEvent(principal('a'), event('level_up'), start);
    compat.recordCommonEvent(principal('a'), event('error-[timeout]'), start + 1);
    compat.recordCommonEvent(principal('b'), event('error-[timeout]'), start + 2);
    compat.recordCommonEvent(principal('a'), event('level_up'), start + 59_999);
    expect(info).toHaveBeenCalledTimes(2);
    expect(debug).toHaveBeenCalledTimes(2);
    compat.recordCommonEvent(principal('a'), event('level_up'), start + 60_000);
    expect(info).toHaveBeenCalledTimes(3);
    expect(info.mock.calls.map(([line]) => (line as { accountId: string }).accountId)).toEqual(['a', 'b', 'a']);
    expect(await counted()).toEqual({ other: 3, error: 2 });
  });
});
