import type { INestApplicationContext } from '@nestjs/common';
import { principalOf, startAppContext } from '../../test/support/app-context';
import { ValidationError } from '../common/errors';
import { MetricsService } from '../metrics/metrics.service';
import { ConversionsService } from './conversions.service';
import type { ConversionSummaryQueryDto } from './dto/conversion.dto';

const alice = principalOf('acc-alice', ['advertiser']);
const bob = principalOf('acc-bob', ['advertiser']);
const query = (fields: Partial<ConversionSummaryQueryDto> = {}) => fields as ConversionSummaryQueryDto;

describe(ConversionsService.name, () => {
  let app: INestApplicationContext;
  let conversions: ConversionsService;

  beforeAll(async () => {
    app = await startAppContext();
    conversions = app.get(ConversionsService);
  });
  afterAll(() => app.close());

  const counted = async (name: string, labels: Record<string, string>) =>
    (await app.get(MetricsService).registry.getSingleMetric(name)!.get()).values.find((value) =>
      Object.entries(labels).every(([key, label]) => value.labels[key] === label),
    )?.value ?? 0;

  it('should keep a conversion of a user who never clicked as unattributed, on the reporting advertiser only', async () => {
    const before = await counted('adnet_conversions_total', { attributed: 'false' });
    await expect(conversions.report(alice, 'never-clicked')).resolves.toEqual({ attributed: false });
    const mine = await conversions.summary(alice, query({ from: 0 }));
    expect([mine.attributed, mine.unattributed]).toEqual([0, 1]);
    const theirs = await conversions.summary(bob, query({ from: 0 }));
    expect([theirs.attributed, theirs.unattributed]).toEqual([0, 0]);
    expect(await counted('adnet_conversions_total', { attributed: 'false' })).toBe(before + 1);
  });

  it('should count custom events apart from conversions, per event type', async () => {
    await conversions.report(bob, 'player-1', 'register');
    await conversions.report(bob, 'player-1', 'register');
    await conversions.report(bob, 'player-1', 'payment');
    const summary = await conversions.summary(bob, query({ from: 0 }));
    expect([summary.attributed, summary.unattributed]).toEqual([0, 0]);
    expect(summary.events.register).toEqual({ attributed: 0, unattributed: 2 });
    expect(summary.events.payment).toEqual({ attributed: 0, unattributed: 1 });
    expect(summary.events.conversion).toEqual({ attributed: 0, unattributed: 0 });
  });

  it('should refuse a summary range that ends before it starts, naming from', async () => {
    const refused = conversions.summary(alice, query({ from: 2_000, to: 1_000 }));
    await expect(refused).rejects.toThrow(ValidationError);
    await expect(refused).rejects.toMatchObject({ errors: [{ field: 'from', message: 'from must be before to' }] });
  });
});
