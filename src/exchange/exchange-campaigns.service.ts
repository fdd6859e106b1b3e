import { Injectable } from '@nestjs/common';
import { isAdmin, Principal } from '../accounts/principal';
import { applyStatusAction, normalizeGeoLists, StatusAction } from '../campaigns/campaign-rules';
import { ChangeBus } from '../common/change-bus';
import { Clock } from '../common/clock';
import { ConflictError, NotFoundError } from '../common/errors';
import { newId } from '../common/ids';
import { changeWithVersion } from '../database/versioned-change';
import { seriesWindow, sumIntoBuckets } from '../stats/series';
import {
  ExchangeCampaignCreateDto,
  ExchangeCampaignResponseDto,
  ExchangeCampaignUpdateDto,
  ExchangeSeriesPointDto,
  ExchangeSeriesQueryDto,
  ExchangeTargetingDto,
} from './dto/exchange.dto';
import { ExchangeCampaign, ExchangeStatus, ExchangeTargeting } from './entities/exchange-campaign.entity';
import { ExchangeCampaignRepository } from './exchange-campaign.repository';
import { ExchangeStatsRepository } from './exchange-stats.repository';
import { EXCHANGE_CHANGED, ExchangeIndexService } from './exchange-index.service';
import { withFields } from '../common/with-fields';

const EXCHANGE_SERIES_COLUMNS = ['impressions', 'impressionsSent', 'clicksSent', 'clicksReceived', 'conversions'] as const;

/** What an edit or a status change may write; the ledger counters belong to the exchange stats writer. */
const EDITABLE_COLUMNS = [
  'status',
  'name',
  'icon',
  'image',
  'text',
  'actionType',
  'destinationUrl',
  'targeting',
  'updatedAt',
] as const satisfies readonly (keyof ExchangeCampaign)[];

/** Partners' exchange campaigns: create, list, detail, update, status, and their ledger series. */
@Injectable()
export class ExchangeCampaignsService {
  constructor(
    private readonly campaigns: ExchangeCampaignRepository,
    private readonly stats: ExchangeStatsRepository,
    private readonly index: ExchangeIndexService,
    private readonly changes: ChangeBus,
    private readonly clock: Clock,
  ) {}

  async create(principal: Principal, dto: ExchangeCampaignCreateDto): Promise<string> {
    const now = this.clock.now();
    const campaign = this.campaigns.build({
      id: newId(now),
      accountId: principal.accountId,
      name: dto.name,
      status: 'onGoing',
      icon: dto.icon,
      image: dto.image ?? null,
      text: dto.text,
      actionType: dto.destination.actionType,
      destinationUrl: dto.destination.url,
      targeting: normalizeTargeting({}, dto.targeting),
      impressions: 0,
      impressionsSent: 0,
      clicksSent: 0,
      clicksReceived: 0,
      conversions: 0,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    await this.campaigns.insert(campaign);
    await this.announce(campaign.id);
    return campaign.id;
  }

  async list(principal: Principal, skip: number, take: number): Promise<[ExchangeCampaignResponseDto[], number]> {
    const [rows, total] = await this.campaigns.page(isAdmin(principal) ? null : principal.accountId, skip, take);
    return [rows.map(toResponse), total];
  }

  async detail(principal: Principal, exchangeCampaignId: string): Promise<ExchangeCampaignResponseDto> {
    return toResponse(await this.findVisible(principal, exchangeCampaignId));
  }

  async setStatus(principal: Principal, exchangeCampaignId: string, action: StatusAction): Promise<void> {
    await this.changeWithVersion(principal, exchangeCampaignId, (campaign) => {
      // Exchange campaigns have no review: they are always approved.
      const next = applyStatusAction({ status: campaign.status, approved: true }, action, isAdmin(principal)).status as ExchangeStatus;
      return next === campaign.status ? null : { status: next, updatedAt: this.clock.now() };
    });
  }

  async update(principal: Principal, dto: ExchangeCampaignUpdateDto): Promise<ExchangeCampaignResponseDto> {
    const updated = await this.changeWithVersion(principal, dto.exchangeCampaignId, (campaign) => {
      if (campaign.status === 'ended') throw new ConflictError('exchangeCampaignId: an ended exchange campaign cannot be updated');
      return {
        name: dto.name ?? campaign.name,
        icon: dto.icon ?? campaign.icon,
        image: dto.image === undefined ? campaign.image : dto.image,
        text: dto.text ?? campaign.text,
        actionType: dto.destination?.actionType ?? campaign.actionType,
        destinationUrl: dto.destination?.url ?? campaign.destinationUrl,
        targeting: dto.targeting ? normalizeTargeting(campaign.targeting, dto.targeting) : campaign.targeting,
        updatedAt: this.clock.now(),
      };
    });
    return toResponse(updated);
  }

  /** Zero-filled UTC hour or day buckets; their sums equal the totals of list and detail. */
  async series(principal: Principal, query: ExchangeSeriesQueryDto): Promise<ExchangeSeriesPointDto[]> {
    const campaign = await this.findVisible(principal, query.exchangeCampaignId);
    const window = seriesWindow(query, this.clock.now());
    const rows = await this.stats.hourlyOf(campaign.id, window.first, window.to - 1);
    return sumIntoBuckets(window, rows, EXCHANGE_SERIES_COLUMNS).map((point) => withFields(point, { balance: point.clicksSent - point.clicksReceived }));
  }

  private async changeWithVersion(
    principal: Principal,
    exchangeCampaignId: string,
    decide: (campaign: ExchangeCampaign) => Partial<ExchangeCampaign> | null,
  ): Promise<ExchangeCampaign> {
    const load = () => this.findVisible(principal, exchangeCampaignId);
    const { record, changed } = await changeWithVersion(this.campaigns, load, decide, {
      field: 'exchangeCampaignId',
      what: 'exchange campaign',
      writable: EDITABLE_COLUMNS,
    });
    if (changed) await this.announce(record.id);
    return record;
  }

  private async announce(exchangeCampaignId: string): Promise<void> {
    this.changes.publish(EXCHANGE_CHANGED, exchangeCampaignId);
    await this.index.refresh();
  }

  /** A partner sees only its own exchange campaigns; another's answers exactly like an unknown id. */
  private async findVisible(principal: Principal, exchangeCampaignId: string): Promise<ExchangeCampaign> {
    const campaign = await this.campaigns.findById(exchangeCampaignId);
    if (!campaign || (campaign.accountId !== principal.accountId && !isAdmin(principal))) {
      throw new NotFoundError('exchangeCampaignId', 'exchange campaign');
    }
    return campaign;
  }
}

/** Every list present; regions upper-case, languages lower-case, no repeats; given lists replace. */
export function normalizeTargeting(previous: Partial<ExchangeTargeting>, given: ExchangeTargetingDto | undefined): ExchangeTargeting {
  const merged = { ...previous };
  for (const [key, value] of Object.entries(given ?? {})) {
    if (value !== undefined && value !== null) merged[key as keyof ExchangeTargeting] = value as string[];
  }
  return normalizeGeoLists(merged);
}

export function toResponse(campaign: ExchangeCampaign): ExchangeCampaignResponseDto {
  return {
    exchangeCampaignId: campaign.id,
    id: campaign.id,
    userId: campaign.accountId,
    name: campaign.name,
    icon: campaign.icon,
    image: campaign.image,
    text: campaign.text,
    destination: { actionType: campaign.actionType, url: campaign.destinationUrl },
    targeting: campaign.targeting,
    campaignStatus: campaign.status,
    impressions: campaign.impressions,
    impressionsSent: campaign.impressionsSent,
    clicksSent: campaign.clicksSent,
    clicksReceived: campaign.clicksReceived,
    balance: campaign.clicksSent - campaign.clicksReceived,
    ctr: campaign.impressions > 0 ? campaign.clicksReceived / campaign.impressions : 0,
    conversions: campaign.conversions,
    cr: campaign.clicksReceived > 0 ? campaign.conversions / campaign.clicksReceived : 0,
    createdAt: campaign.createdAt,
    updatedAt: campaign.updatedAt,
  };
}
