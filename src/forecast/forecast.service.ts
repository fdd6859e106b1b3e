import { Injectable } from '@nestjs/common';
import type { Principal } from '../accounts/principal';
import { AdBlocksService, type BlockControls } from '../ad-blocks/ad-blocks.service';
import { CampaignsService } from '../campaigns/campaigns.service';
import { Clock, DAY_MS } from '../common/clock';
import { fromMicros } from '../common/money';
import { CampaignIndexService, toIndexed } from '../serving/campaign-index.service';
import type { ForecastDto, ForecastRequestDto } from './dto/forecast.dto';
import { forecastDelivery } from './forecast';
import { ForecastSampleRepository } from './forecast-sample.repository';
import { ForecastSampler, SAMPLE_DAYS } from './forecast-sampler';

/** Endpoint `ad/campaign/forecast`: a create body replayed against the sampled requests and the live campaigns. */
@Injectable()
export class ForecastService {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly index: CampaignIndexService,
    private readonly adBlocks: AdBlocksService,
    private readonly samples: ForecastSampleRepository,
    private readonly sampler: ForecastSampler,
    private readonly clock: Clock,
  ) {}

  async forecast(principal: Principal, body: ForecastRequestDto): Promise<ForecastDto> {
    const draft = toIndexed(this.campaigns.draft(principal, body));
    // an edit of a campaign of the caller's (another's answers 404): that campaign does not compete with its edit
    if (body.campaignId !== undefined) draft.id = (await this.campaigns.detail(principal, body.campaignId)).id;
    await this.sampler.flush();
    const now = this.clock.now();
    const since = now - SAMPLE_DAYS * DAY_MS;
    const { contexts, firstAt } = await this.samples.contextsSince(since);
    const controls = new Map<string, BlockControls | null>();
    for (const adBlockId of new Set(contexts.map((context) => context.adBlockId))) {
      controls.set(adBlockId, (await this.adBlocks.servingBlock(adBlockId))?.controls ?? null);
    }
    const figures = forecastDelivery({
      draft,
      contexts,
      sampleSpanMs: now - Math.max(since, firstAt ?? since),
      competitors: this.index.ranked,
      now,
      controlsOf: (adBlockId) => controls.get(adBlockId) ?? null,
    });
    return {
      dailyRequests: figures.dailyRequests,
      dailyImpressions: figures.dailyImpressions,
      dailyClicks: figures.dailyClicks,
      dailySpend: fromMicros(figures.dailySpendMicros),
      daysToSpendTotal: figures.daysToSpendTotal,
      limitedBy: figures.limitedBy,
    };
  }
}
