import { AccountsService } from '../accounts/accounts.service';
import { DEFAULT_TIME_ZONE, ZoneSchedule } from '../common/time-zone';
import { DEFAULT_PACING, pacingOf } from './pacing';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { CAMPAIGNS_CONFIG, CampaignsConfig } from './campaigns.config';
import { isAdmin, Principal } from '../accounts/principal';
import { ChangeBus } from '../common/change-bus';
import { Clock } from '../common/clock';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors';
import { newId } from '../common/ids';
import { zeroEventCounters } from '../database/counter-columns';
import { changeWithVersion } from '../database/versioned-change';
import { fromMicros, toMicros } from '../common/money';
import { applyStatusAction, budgetDayOf, checkCampaignNumbers, deliveryStatus, normalizeGeoLists, spentToday, StatusAction } from './campaign-rules';
import { eventCountsOf, type EventType } from '../conversions/event-types';
import { CampaignRepository } from './campaign.repository';
import { type CampaignCategory, DEFAULT_CATEGORY } from './categories';
import {
  AdDto,
  AdUpdateDto,
  CampaignCreateDto,
  CampaignListItemDto,
  CampaignResponseDto,
  CampaignUpdateDto,
  FrequencyCapDto,
  OptimizationBlockDto,
  ReviewItemDto,
  TargetingDto,
} from './dto/campaign.dto';
import { Campaign, CampaignCreative, CampaignTargeting } from './entities/campaign.entity';
import { approval, creativeOf, rejection, resubmitted, reviewKindOf, reviseCreative } from './creative-review';
import { estimatedEventRate, type EventRatePriors, priorsFrom } from './event-rate';

/** Change-bus topic: a campaign was created or changed; serving indexes reload it. */
export const CAMPAIGN_CHANGED = 'campaign';

/**
 * What an edit or a status change may write. The counters and spend belong to the stats writer
 * (src/stats/stats-writer.service.ts), which does not bump the version.
 */
const EDITABLE_COLUMNS = [
  'status',
  'approved',
  'name',
  'targeting',
  'dailyBudgetMicros',
  'totalBudgetMicros',
  'budgetStrategy',
  'startTime',
  'endTime',
  'pacing',
  'billingType',
  'costPerMicros',
  'adFormat',
  'popupImage',
  'icon',
  'actionType',
  'destinationUrl',
  'text',
  'brandName',
  'buttonText',
  'verificationUrl',
  'frequencyCapImpressions',
  'frequencyCapHours',
  'optimizationEvent',
  'category',
  'reviewStatus',
  'reviewNote',
  'pendingAd',
  'reviewRequestedAt',
  'updatedAt',
] as const satisfies readonly (keyof Campaign)[];

/** How long the network's event-rate priors are kept before they are read again (one query over every campaign). */
const PRIORS_MAX_AGE_MS = 60_000;

/** The zone schedule of an account that never chose a zone. */
const UTC_DAYS: ZoneSchedule = { timeZone: DEFAULT_TIME_ZONE, nextTimeZone: null, timeZoneChangesAt: null };

@Injectable()
export class CampaignsService implements OnModuleInit {
  constructor(
    @Inject(CAMPAIGNS_CONFIG) private readonly config: CampaignsConfig,
    private readonly changes: ChangeBus,
    private readonly clock: Clock,
    private readonly store: CampaignRepository,
    private readonly accounts: AccountsService,
  ) {}

  onModuleInit(): void {
    this.accounts.onTimeZoneChange(async (accountId, schedule) => {
      const ids = await this.store.followAccountZone(accountId, schedule);
      await this.changes.publishMany(CAMPAIGN_CHANGED, ids);
    });
  }

  private priors: { readAt: number; value: Promise<EventRatePriors> } | null = null;

  /**
   * The campaign a create body makes, checked as create checks it but not stored (create stores it; the forecast
   * replays it).
   */
  draft(principal: Principal, dto: CampaignCreateDto, zone: ZoneSchedule = UTC_DAYS): Campaign {
    checkCampaignNumbers({ ...dto.budget, ...dto.bidding });
    const now = this.clock.now();
    const review = this.config.campaignReview && !isAdmin(principal);
    return this.store.build({
      id: newId(now),
      accountId: principal.accountId,
      name: dto.name,
      status: review ? 'inReview' : 'onGoing',
      approved: !review,
      targeting: normalizeTargeting({}, dto.targeting),
      dailyBudgetMicros: toMicros(dto.budget.amount),
      totalBudgetMicros: toMicros(dto.budget.total),
      budgetStrategy: dto.budget.strategy,
      startTime: dto.budget.startTime,
      endTime: dto.budget.endTime,
      billingType: dto.bidding.billingType,
      costPerMicros: toMicros(dto.bidding.costPer),
      adFormat: dto.ad.adFormat,
      popupImage: dto.ad.popupImage,
      icon: dto.ad.icon,
      actionType: dto.ad.destination.actionType,
      destinationUrl: dto.ad.destination.url,
      text: dto.ad.text,
      brandName: dto.ad.brandName,
      buttonText: dto.ad.buttonText,
      verificationUrl: dto.verificationUrl ?? null,
      frequencyCapImpressions: dto.frequencyCap?.impressions ?? null,
      frequencyCapHours: dto.frequencyCap?.hours ?? null,
      ...zeroEventCounters(),
      optimizationEvent: dto.optimizationEvent ?? 'conversion',
      category: dto.category ?? DEFAULT_CATEGORY,
      reviewStatus: review ? 'pending' : 'approved',
      reviewNote: '',
      pendingAd: null,
      reviewRequestedAt: review ? now : 0,
      spentMicros: 0,
      daySpentMicros: 0,
      spentDay: '',
      pacing: dto.budget.pacing ?? DEFAULT_PACING,
      timeZone: zone.timeZone,
      nextTimeZone: zone.nextTimeZone,
      timeZoneChangesAt: zone.timeZoneChangesAt,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
  }

  async create(principal: Principal, dto: CampaignCreateDto): Promise<string> {
    const campaign = this.draft(principal, dto, await this.accounts.zoneScheduleOf(principal.accountId));
    await this.store.insert(campaign);
    this.changes.publish(CAMPAIGN_CHANGED, campaign.id);
    return campaign.id;
  }

  async setStatus(principal: Principal, campaignId: string, action: StatusAction): Promise<void> {
    await this.changeWithVersion(principal, campaignId, (campaign) => {
      const next = applyStatusAction(campaign, action, isAdmin(principal));
      if (next.status === campaign.status && next.approved === campaign.approved) return null;
      // an admin starting a campaign that waits for review approves it
      const approvedNow = next.approved && !campaign.approved ? { reviewStatus: 'approved' as const, reviewNote: '', reviewRequestedAt: 0 } : {};
      return { ...next, ...approvedNow, updatedAt: this.clock.now() };
    });
  }

  /**
   * Applies an edit. Under review (CAMPAIGN_REVIEW=true, not an admin) an edit of an approved campaign's `ad` makes a
   * pending revision and the approved creative keeps serving; every other field applies at once; an edit of a rejected
   * new campaign puts it back in the review queue (docs/CONTRACT.md §18).
   */
  async update(principal: Principal, dto: CampaignUpdateDto): Promise<CampaignResponseDto> {
    const underReview = this.config.campaignReview && !isAdmin(principal);
    const updated = await this.changeWithVersion(principal, dto.campaignId, (campaign) => {
      const now = this.clock.now();
      const changes = mergeUpdate(campaign, dto, now);
      if (!underReview) return changes;
      if (!campaign.approved) return Object.assign(changes, resubmitted(campaign, now) ?? {});
      if (dto.ad === undefined && dto.category === undefined) return changes;
      // the creative and the category waiting (or approved), with this edit on top
      const edited = editedCreative({ ...creativeOf(campaign), ...(campaign.pendingAd ?? {}) }, dto.ad, dto.category);
      // the ad columns keep the approved creative; the edited one waits
      return Object.assign(changes, creativeOf(campaign), reviseCreative(campaign, edited, now) ?? {});
    });
    return this.responseOf(updated, this.clock.now());
  }

  /** What waits for review, oldest first: new campaigns and revisions of approved ones. */
  async reviews(skip: number, take: number): Promise<[ReviewItemDto[], number]> {
    const [rows, total] = await this.store.waitingForReview(skip, take);
    return [rows.map(toReviewItem), total];
  }

  /** An admin approves what waits: a new campaign may serve, a revision's creative replaces the approved one. */
  async approveReview(principal: Principal, campaignId: string): Promise<CampaignResponseDto> {
    const now = this.clock.now();
    const updated = await this.changeWithVersion(principal, campaignId, (campaign) => ({ ...approval(campaign), updatedAt: now }));
    return this.responseOf(updated, now);
  }

  /** An admin rejects what waits, with a note its advertiser sees: a revision is discarded, a new campaign stays in review. */
  async rejectReview(principal: Principal, campaignId: string, note: string): Promise<CampaignResponseDto> {
    const now = this.clock.now();
    const updated = await this.changeWithVersion(principal, campaignId, (campaign) => ({ ...rejection(campaign, note), updatedAt: now }));
    return this.responseOf(updated, now);
  }

  private async changeWithVersion(principal: Principal, campaignId: string, decide: (campaign: Campaign) => Partial<Campaign> | null): Promise<Campaign> {
    const load = () => this.findVisible(principal, campaignId);
    const { record, changed } = await changeWithVersion(this.store, load, decide, { field: 'campaignId', what: 'campaign', writable: EDITABLE_COLUMNS });
    if (changed) this.changes.publish(CAMPAIGN_CHANGED, record.id);
    return record;
  }

  async list(principal: Principal, skip: number, take: number): Promise<[CampaignListItemDto[], number]> {
    const [rows, total] = await this.store.page(isAdmin(principal) ? null : principal.accountId, skip, take);
    const now = this.clock.now();
    return [rows.map((row) => toListItem(row, now)), total];
  }

  async detail(principal: Principal, campaignId: string): Promise<CampaignResponseDto> {
    const campaign = await this.findVisible(principal, campaignId);
    return this.responseOf(campaign, this.clock.now());
  }

  /**
   * Serving's per-block estimates of a campaign (src/serving/block-optimization.service.ts registers them; a process
   * without serving, the worker, answers none).
   */
  useBlockPlans(source: BlockPlanSource): void {
    this.blockPlans = source;
  }

  private blockPlans: BlockPlanSource | null = null;

  private async responseOf(campaign: Campaign, now: number): Promise<CampaignResponseDto> {
    const [priors, plan] = await Promise.all([
      this.eventRatePriors(),
      this.blockPlans === null ? Promise.resolve(null) : this.blockPlans(campaign.id, campaign.optimizationEvent),
    ]);
    return toResponse(campaign, now, priors, plan);
  }

  /** The network's prior rate of each event, read at most once per PRIORS_MAX_AGE_MS (a failed read is not kept). */
  eventRatePriors(): Promise<EventRatePriors> {
    const now = this.clock.now();
    if (!this.priors || now - this.priors.readAt >= PRIORS_MAX_AGE_MS) {
      const value = this.store.networkEventTotals().then(priorsFrom);
      const entry = { readAt: now, value };
      this.priors = entry;
      value.catch(() => {
        if (this.priors === entry) this.priors = null;
      });
    }
    return this.priors.value;
  }

  /** Where the campaign's clicks are verified; for its owner or an admin only. */
  async verificationUrlOf(principal: Principal, campaignId: string): Promise<string | null> {
    return (await this.findVisible(principal, campaignId)).verificationUrl;
  }

  /** The ids of the caller's own campaigns (an admin's too: only those its account owns). */
  ownCampaignIds(principal: Principal): Promise<string[]> {
    return this.store.idsOf(principal.accountId);
  }

  /** The campaign as stored, for its owner or an admin (the delivery diagnosis reads its status and budgets). */
  visibleCampaign(principal: Principal, campaignId: string): Promise<Campaign> {
    return this.findVisible(principal, campaignId);
  }

  /** An advertiser sees only its own campaigns; another's answers exactly like an unknown id. */
  private async findVisible(principal: Principal, campaignId: string): Promise<Campaign> {
    const campaign = await this.store.findById(campaignId);
    if (!campaign || (campaign.accountId !== principal.accountId && !isAdmin(principal))) {
      throw new NotFoundError('campaignId', 'campaign');
    }
    return campaign;
  }
}

/** The campaign after an update: given fields change, nested objects merge, arrays replace; rules re-checked. */
function mergeUpdate(campaign: Campaign, dto: CampaignUpdateDto, now: number): Partial<Campaign> {
  if (campaign.status === 'ended') throw new ConflictError('campaignId: an ended campaign cannot be updated');
  const budget = { ...budgetOf(campaign), ...definedOnly(dto.budget) };
  const bidding = { ...biddingOf(campaign), ...definedOnly(dto.bidding) };
  checkCampaignNumbers({ ...budget, ...bidding });
  const changes: Partial<Campaign> = {
    name: dto.name ?? campaign.name,
    targeting: dto.targeting ? normalizeTargeting(campaign.targeting, dto.targeting) : campaign.targeting,
    dailyBudgetMicros: toMicros(budget.amount),
    totalBudgetMicros: toMicros(budget.total),
    budgetStrategy: budget.strategy,
    startTime: budget.startTime,
    endTime: budget.endTime,
    pacing: budget.pacing,
    billingType: bidding.billingType,
    costPerMicros: toMicros(bidding.costPer),
    ...editedCreative(campaign, dto.ad, dto.category),
    verificationUrl: dto.verificationUrl === undefined ? campaign.verificationUrl : dto.verificationUrl,
    ...mergeFrequencyCap(campaign, dto.frequencyCap),
    optimizationEvent: dto.optimizationEvent ?? campaign.optimizationEvent,
    category: dto.category ?? campaign.category,
    updatedAt: now,
  };
  return changes;
}

/** The creative `base` with the given ad fields changed. */
function editedCreative(base: CampaignCreative, given: AdUpdateDto | undefined, category: CampaignCategory | undefined): CampaignCreative {
  const ad = definedOnly(given);
  const destination = definedOnly(given?.destination);
  return {
    adFormat: ad.adFormat ?? base.adFormat,
    popupImage: ad.popupImage ?? base.popupImage,
    icon: ad.icon ?? base.icon,
    actionType: destination.actionType ?? base.actionType,
    destinationUrl: destination.url ?? base.destinationUrl,
    text: ad.text ?? base.text,
    brandName: ad.brandName ?? base.brandName,
    buttonText: ad.buttonText ?? base.buttonText,
    category: category ?? base.category,
  };
}

/** A creative as the API names its fields. */
function adOf(creative: CampaignCreative): AdDto {
  return {
    adFormat: creative.adFormat,
    popupImage: creative.popupImage,
    icon: creative.icon,
    destination: { actionType: creative.actionType, url: creative.destinationUrl },
    text: creative.text,
    brandName: creative.brandName,
    buttonText: creative.buttonText,
  };
}

/** The category a waiting revision would give the campaign, when it changes it; null otherwise. */
function pendingCategoryOf(campaign: Campaign): CampaignCategory | null {
  const pending = campaign.pendingAd?.category;
  return pending !== undefined && pending !== campaign.category ? pending : null;
}

function toReviewItem(campaign: Campaign): ReviewItemDto {
  const kind = reviewKindOf(campaign);
  return {
    campaignId: campaign.id,
    userId: campaign.accountId,
    name: campaign.name,
    kind,
    waitingSince: campaign.reviewRequestedAt,
    campaignStatus: campaign.status,
    category: campaign.category,
    pendingCategory: pendingCategoryOf(campaign),
    approvedAd: kind === 'revision' ? adOf(campaign) : null,
    pendingAd: adOf(kind === 'revision' ? campaign.pendingAd! : campaign),
  };
}

/** `null` removes the cap; given fields merge into the current one, which then needs both. */
function mergeFrequencyCap(
  campaign: Campaign,
  given: Partial<FrequencyCapDto> | null | undefined,
): Pick<Campaign, 'frequencyCapImpressions' | 'frequencyCapHours'> {
  if (given === null) return { frequencyCapImpressions: null, frequencyCapHours: null };
  const cap = { ...frequencyCapOf(campaign), ...definedOnly(given) };
  const missing = (['impressions', 'hours'] as const).filter((field) => given !== undefined && cap[field] === undefined);
  if (missing.length > 0) {
    throw new ValidationError(
      missing.map((field) => ({ field: `frequencyCap.${field}`, message: `frequencyCap.${field} is required: the campaign has no frequency cap yet` })),
    );
  }
  return { frequencyCapImpressions: cap.impressions ?? null, frequencyCapHours: cap.hours ?? null };
}

function frequencyCapOf(campaign: Campaign): FrequencyCapDto | null {
  if (campaign.frequencyCapImpressions === null || campaign.frequencyCapHours === null) return null;
  return { impressions: campaign.frequencyCapImpressions, hours: campaign.frequencyCapHours };
}

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

function budgetOf(campaign: Campaign) {
  return {
    amount: fromMicros(campaign.dailyBudgetMicros),
    total: fromMicros(campaign.totalBudgetMicros),
    strategy: campaign.budgetStrategy,
    startTime: campaign.startTime,
    endTime: campaign.endTime,
    pacing: campaign.pacing,
  };
}

function biddingOf(campaign: Campaign) {
  return { billingType: campaign.billingType, costPer: fromMicros(campaign.costPerMicros) };
}

/** Fills every targeting field (lists [], flags false, platform All) and normalises code case. */
export function normalizeTargeting(previous: Partial<CampaignTargeting>, given: TargetingDto): CampaignTargeting {
  const merged = { ...previous, ...definedOnly(given) };
  return {
    ...normalizeGeoLists(merged),
    platform: merged.platform ?? 'All',
    messengerPremium: merged.messengerPremium ?? false,
    isHighValueUser: merged.isHighValueUser ?? false,
    userLinkedChainWallet: merged.userLinkedChainWallet ?? false,
    userLinkedWallet: merged.userLinkedWallet ?? false,
    userWalletHasBalanceOnChain: merged.userWalletHasBalanceOnChain ?? false,
  };
}

/** `conversions` and `cr` count the campaign's optimization event (docs/CONTRACT.md §13); `events` every type. */
function statsOf(campaign: Campaign, now: number) {
  const events = eventCountsOf(campaign);
  const conversions = events[campaign.optimizationEvent];
  return {
    impressions: campaign.impressions,
    clicks: campaign.clicks,
    unbilledClicks: campaign.unbilledClicks,
    invalidClicks: campaign.invalidClicks,
    invalidImpressions: campaign.invalidImpressions,
    views: campaign.views,
    completions: campaign.completions,
    optimizationEvent: campaign.optimizationEvent,
    conversions,
    events,
    cost: fromMicros(campaign.spentMicros),
    spentToday: fromMicros(spentToday(campaign, now)),
    ctr: campaign.impressions > 0 ? campaign.clicks / campaign.impressions : 0,
    cr: campaign.clicks > 0 ? conversions / campaign.clicks : 0,
    verifiedClicks: campaign.verifiedClicks,
  };
}

function toListItem(campaign: Campaign, now: number): CampaignListItemDto {
  return {
    userId: campaign.accountId,
    id: campaign.id,
    name: campaign.name,
    campaignStatus: campaign.status,
    deliveryStatus: deliveryStatus(campaign, now),
    billingType: campaign.billingType,
    category: campaign.category,
    reviewStatus: campaign.reviewStatus,
    frequencyCap: frequencyCapOf(campaign),
    ...statsOf(campaign, now),
    budget: budgetOf(campaign),
    createdAt: campaign.createdAt,
  };
}

/** A campaign's blocks by its optimization event's estimates: those it prefers and those it holds back on first. */
export interface BlockPlanView {
  campaignEventRate: number;
  preferred: OptimizationBlockDto[];
  heldBack: OptimizationBlockDto[];
}

export type BlockPlanSource = (campaignId: string, event: EventType) => Promise<BlockPlanView>;

export function toResponse(campaign: Campaign, now: number, priors: EventRatePriors, plan: BlockPlanView | null = null): CampaignResponseDto {
  const stats = statsOf(campaign, now);
  return {
    campaignId: campaign.id,
    id: campaign.id,
    userId: campaign.accountId,
    name: campaign.name,
    targeting: campaign.targeting as Required<TargetingDto>,
    budget: budgetOf(campaign),
    bidding: biddingOf(campaign),
    ad: adOf(campaign),
    category: campaign.category,
    reviewStatus: campaign.reviewStatus,
    reviewNote: campaign.reviewNote === '' ? null : campaign.reviewNote,
    pendingAd: campaign.pendingAd === null ? null : adOf(campaign.pendingAd),
    pendingCategory: pendingCategoryOf(campaign),
    verificationUrl: campaign.verificationUrl,
    frequencyCap: frequencyCapOf(campaign),
    campaignStatus: campaign.status,
    deliveryStatus: deliveryStatus(campaign, now),
    ...stats,
    ...pacingOf(campaign, budgetDayOf(campaign, now), spentToday(campaign, now), now),
    estimatedEventRate: estimatedEventRate(stats.conversions, campaign.clicks, priors[campaign.optimizationEvent]),
    optimization: {
      event: campaign.optimizationEvent,
      campaignEventRate: plan?.campaignEventRate ?? 0,
      // an asap campaign never holds back: every block is as good as another for it
      blocksPreferred: campaign.pacing === 'even' ? (plan?.preferred ?? []) : [...(plan?.preferred ?? []), ...(plan?.heldBack ?? []).slice().reverse()],
      blocksHeldBack: campaign.pacing === 'even' ? (plan?.heldBack ?? []) : [],
    },
    createdAt: campaign.createdAt,
    updatedAt: campaign.updatedAt,
  };
}
