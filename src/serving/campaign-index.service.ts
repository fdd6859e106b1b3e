import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { BlockControls } from '../ad-blocks/ad-blocks.service';
import { hostOf } from '../common/hosts';
import { SERVING_CONFIG, ServingConfig } from './serving.config';
import { hasBudgetLeft, isRunning } from '../campaigns/campaign-rules';
import { CAMPAIGN_STORE, type CampaignBillingFacts, type CampaignCounters, type CampaignStore } from '../campaigns/campaign-store';
import type { Campaign } from '../campaigns/entities/campaign.entity';
import { CAMPAIGN_CHANGED } from '../campaigns/campaigns.service';
import { ChangeBus } from '../common/change-bus';
import { Clock } from '../common/clock';
import { TurnBatch } from '../common/turn-batch';
import {
  expectedRevenuePerMille,
  IndexedCampaign,
  MatchCache,
  MatchContext,
  rankCampaigns,
  rerankCampaigns,
  rerankCampaignsInSlices,
  smoothedCtr,
} from './campaign-matcher';
import { withFields } from '../common/with-fields';
import { SkipSet } from './skip-set';

/** Rows a refresh handles between two turns of the event loop. */
const REFRESH_SLICE = 1000;
/**
 * Campaigns' counters a refresh reads per query (see CampaignStore.servableCountersPage): SQLite answers on the event
 * loop, and a page of 5,000 held it for tens of ms every refresh (the p99 of the ad fetch at 10,000 campaigns). On the
 * (status, id) index a page of 250 takes about a millisecond (bench/probes/refresh-pages.js,
 * docs/PERFORMANCE.md#matching-the-match-cache-targeting-bitsets-the-refresh-in-slices).
 */
export const COUNTERS_PAGE = 250;
/** How often at most hold-backs whose time is up leave the skip set every request gets (see `skipped`). */
const SKIP_RELEASE_MS = 100;
/** How long change notices are gathered before one reload applies them all. */
const RELOAD_GATHER_MS = 20;

/** Ads are one per campaign; the ad id is derived from the campaign id so a click names both consistently. */
export function adIdOf(campaignId: string): string {
  return `ad_${campaignId}`;
}

export function toIndexed(campaign: Campaign): IndexedCampaign {
  const targeting = campaign.targeting;
  const ctr = smoothedCtr(campaign.clicks, campaign.impressions);
  return {
    id: campaign.id,
    adId: adIdOf(campaign.id),
    accountId: campaign.accountId,
    includedRegions: new Set(targeting.includedRegions),
    excludedRegions: new Set(targeting.excludedRegions),
    includedLanguages: new Set(targeting.includedLanguages),
    excludedLanguages: new Set(targeting.excludedLanguages),
    platform: targeting.platform,
    messengerPremium: targeting.messengerPremium,
    isHighValueUser: targeting.isHighValueUser,
    userLinkedChainWallet: targeting.userLinkedChainWallet,
    userLinkedWallet: targeting.userLinkedWallet,
    userWalletHasBalanceOnChain: targeting.userWalletHasBalanceOnChain,
    billingType: campaign.billingType,
    costPerMicros: campaign.costPerMicros,
    startTime: campaign.startTime,
    endTime: campaign.endTime,
    totalBudgetMicros: campaign.totalBudgetMicros,
    dailyBudgetMicros: campaign.dailyBudgetMicros,
    spentMicros: campaign.spentMicros,
    daySpentMicros: campaign.daySpentMicros,
    spentDay: campaign.spentDay,
    pacing: campaign.pacing,
    optimizationEvent: campaign.optimizationEvent,
    timeZone: campaign.timeZone,
    nextTimeZone: campaign.nextTimeZone,
    timeZoneChangesAt: campaign.timeZoneChangesAt,
    category: campaign.category,
    destinationHost: hostOf(campaign.destinationUrl),
    ecpmMicros: expectedRevenuePerMille(campaign.billingType, campaign.costPerMicros, ctr),
    verificationUrl: campaign.verificationUrl,
    frequencyCap:
      campaign.frequencyCapImpressions !== null && campaign.frequencyCapHours !== null
        ? { impressions: campaign.frequencyCapImpressions, windowMs: campaign.frequencyCapHours * 60 * 60 * 1000 }
        : null,
    creative: {
      icon: campaign.icon,
      image: campaign.popupImage,
      text: campaign.text,
      brandName: campaign.brandName,
      buttonText: campaign.buttonText,
      destination: { actionType: campaign.actionType, url: campaign.destinationUrl },
    },
  };
}

/**
 * Every servable campaign of this process, ranked, in memory: the hot path never queries the database.
 * Reloaded in full every INDEX_REFRESH_MS, and one campaign at once when a change notice arrives (from this
 * process or, through Redis, from another).
 */
@Injectable()
export class CampaignIndexService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(CampaignIndexService.name);
  private byId = new Map<string, IndexedCampaign>();
  private rankedList: IndexedCampaign[] = [];
  /** Campaigns the shared state found out of budget; skipped until the next full refresh. */
  private exhausted = new Set<string>();
  /** Campaigns the shared state found ahead of their pacing line: skipped until the time given (the line moves on). */
  private heldBack = new Map<string, number>();
  /**
   * The held-back campaigns by the SKIP_RELEASE_MS slot their time is up in (a campaign held back again for longer is
   * in two slots; its time in heldBack counts): releasing reads the slots that are due, not every held-back campaign.
   */
  private readonly heldBackBySlot = new Map<number, string[]>();
  private releasedAt = Number.NEGATIVE_INFINITY;
  /** Per ad block: campaigns ahead of the lower line that block has for them (optimization), skipped there until the time given. */
  private readonly heldBackOnBlock = new Map<string, Map<string, number>>();
  /** skippedOn's answer per ad block with hold-backs: the campaigns held back there, good until `until`. */
  private readonly skippedOnBlock = new Map<string, { until: number; set: ReadonlySet<string> }>();
  /**
   * What every request skips (exhausted and held back), one set kept in place (see SkipSet): a campaign held back or
   * exhausted is skipped by the next request, and hold-backs whose time is up leave it together, at most every
   * SKIP_RELEASE_MS (each release is a new version of the set, for which the match cache finds its answers again).
   */
  private readonly skipped = new SkipSet();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | null = null;
  /** Campaigns changed while a full refresh was reading: its snapshot may predate the change, so reload them after. */
  private changedDuringRefresh = new Set<string>();
  /** Latest reload started per campaign: an older reload finishing late must not overwrite a newer one. */
  private reloadSeq = new Map<string, number>();
  private seq = 0;
  /** The campaign version each indexed entry was built from; a refresh reloads entries whose version moved. */
  private versions = new Map<string, number>();
  private pendingChanges = new Set<string>();
  private pendingTimer: NodeJS.Timeout | undefined;
  private pendingReloads: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CAMPAIGN_STORE) private readonly campaigns: CampaignStore,
    @Inject(SERVING_CONFIG) private readonly config: ServingConfig,
    private readonly clock: Clock,
    private readonly changes: ChangeBus,
  ) {}

  async onModuleInit(): Promise<void> {
    this.changes.on(CAMPAIGN_CHANGED, (id) => this.noteChanged(id));
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch((error) => this.logger.warn({ err: error }, 'refresh failed')), this.config.indexRefreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    clearTimeout(this.pendingTimer);
  }

  get ranked(): readonly IndexedCampaign[] {
    return this.rankedList;
  }

  /**
   * The campaigns a request at `now` skips, out of budget or ahead of their pacing line: the index's one set, changed in
   * place (see SkipSet). A hold-back ends up to SKIP_RELEASE_MS after its time.
   */
  skippedAt(now: number): SkipSet {
    if (now - this.releasedAt >= SKIP_RELEASE_MS && this.heldBackBySlot.size > 0) this.releaseHeldBack(now);
    return this.skipped;
  }

  /** Every campaign skipped at `now` (a new set: for diagnosis, not for requests). */
  allSkippedAt(now: number): ReadonlySet<string> {
    return new Set(this.skippedAt(now).values());
  }

  /** Whether the serving state found the campaign out of budget (skipped until the next full refresh). */
  isExhausted(campaignId: string): boolean {
    return this.exhausted.has(campaignId);
  }

  /**
   * What a request at `now` on this ad block skips besides skippedAt's set: the campaigns ahead of the lower pacing line
   * the block has for them (optimization: they hold back here first, and still serve on better blocks). Undefined when
   * none are.
   */
  skippedOn(now: number, adBlockId: string): ReadonlySet<string> | undefined {
    const onBlock = this.heldBackOnBlock.get(adBlockId);
    if (onBlock === undefined) return undefined;
    // built once per change, not per request
    const kept = this.skippedOnBlock.get(adBlockId);
    if (kept !== undefined && now < kept.until) return kept.set;
    const held = new Set<string>();
    let until = Number.POSITIVE_INFINITY;
    for (const [id, heldUntil] of onBlock) {
      if (now >= heldUntil) {
        onBlock.delete(id);
        continue;
      }
      held.add(id);
      until = Math.min(until, heldUntil);
    }
    if (held.size === 0) {
      this.heldBackOnBlock.delete(adBlockId);
      this.skippedOnBlock.delete(adBlockId);
      return undefined;
    }
    this.skippedOnBlock.set(adBlockId, { until, set: held });
    return held;
  }

  /** Campaigns ahead of the line this ad block has for them are skipped on it until `until`. */
  holdBackOnBlock(adBlockId: string, campaignIds: string[], until: number): void {
    let onBlock = this.heldBackOnBlock.get(adBlockId);
    if (onBlock === undefined) this.heldBackOnBlock.set(adBlockId, (onBlock = new Map()));
    for (const id of campaignIds) onBlock.set(id, until);
    this.skippedOnBlock.delete(adBlockId);
  }

  /**
   * Campaigns ahead of their pacing line are skipped until `until`, when the serving state is asked again. A campaign
   * already held back as long or longer keeps its time: the answer of an older request can arrive after a newer one's,
   * with the earlier time its line had then (a changed campaign is reloaded, which releases it at once).
   */
  holdBack(campaignIds: string[], until: number): void {
    const slot = Math.floor(until / SKIP_RELEASE_MS);
    let due: string[] | undefined;
    for (const id of campaignIds) {
      const held = this.heldBack.get(id);
      if (held !== undefined && held >= until) continue;
      this.heldBack.set(id, until);
      // the slot's list made only once a campaign goes in: a release pass reads every slot there is
      if (due === undefined) {
        due = this.heldBackBySlot.get(slot);
        if (due === undefined) this.heldBackBySlot.set(slot, (due = []));
      }
      due.push(id);
      this.skipped.add(id);
    }
  }

  /** Takes the hold-backs whose time is up at `now` out of the skip set, as one new version of it. */
  private releaseHeldBack(now: number): void {
    this.releasedAt = now;
    const nowSlot = Math.floor(now / SKIP_RELEASE_MS);
    const released: string[] = [];
    for (const [slot, ids] of this.heldBackBySlot) {
      if (slot > nowSlot) continue;
      const notYet: string[] = [];
      for (const id of ids) {
        const until = this.heldBack.get(id);
        // held back again later (then it is in a later slot too), or released by a reload already
        if (until === undefined || Math.floor(until / SKIP_RELEASE_MS) !== slot) continue;
        if (now < until) {
          notYet.push(id);
          continue;
        }
        this.heldBack.delete(id);
        if (!this.exhausted.has(id)) released.push(id);
      }
      if (notYet.length > 0) this.heldBackBySlot.set(slot, notYet);
      else this.heldBackBySlot.delete(slot);
    }
    this.skipped.delete(released);
  }

  private readonly matches = new MatchCache();

  /**
   * The best `max` servable campaigns for this context, best first: none skippedAt the context's time skips, none in
   * `skip` (an ad block's own hold-backs, see skippedOn) or `offered`, none `controls` refuse (see MatchCache).
   */
  candidates(
    context: MatchContext,
    max: number,
    skip?: ReadonlySet<string>,
    controls: BlockControls | null = null,
    offered?: ReadonlySet<string>,
  ): IndexedCampaign[] {
    return this.matches.select(this.rankedList, context, max, skip, controls, offered, this.skippedAt(context.now));
  }

  get(campaignId: string): IndexedCampaign | undefined {
    return this.byId.get(campaignId);
  }

  markExhausted(campaignIds: string[]): void {
    for (const id of campaignIds) {
      this.exhausted.add(id);
      this.skipped.add(id);
    }
  }

  /**
   * Re-reads which campaigns are servable. The first load reads them whole; later ones read a few columns of each
   * (version, spend, clicks, impressions) and load in full only the campaigns whose version changed, so a refresh
   * of thousands of campaigns costs milliseconds and does not stall the requests being served meanwhile.
   */
  async refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.refreshing = (this.byId.size === 0 ? this.loadAll() : this.refreshChanged()).finally(() => {
      this.refreshing = null;
    });
    await this.refreshing;
    const changed = [...this.changedDuringRefresh];
    this.changedDuringRefresh.clear();
    await this.reloadMany(changed);
  }

  private async loadAll(): Promise<void> {
    const now = this.clock.now();
    const rows = await this.campaigns.servable(now);
    const indexed = rows.filter((row) => hasBudgetLeft(row, now)).map(toIndexed);
    this.versions = new Map(rows.map((row) => [row.id, row.version]));
    this.apply(new Map(indexed.map((campaign) => [campaign.id, campaign])));
  }

  private async refreshChanged(): Promise<void> {
    const now = this.clock.now();
    const rows = await this.servableCounters(now);
    const next = new Map<string, IndexedCampaign>();
    const stale: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      // Ads are served between slices: a refresh of 10,000 campaigns in one go stalled them for tens of ms.
      if (i > 0 && i % REFRESH_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const row = rows[i];
      const current = this.byId.get(row.id);
      if (!current || this.versions.get(row.id) !== Number(row.version)) {
        stale.push(row.id);
        continue;
      }
      const updated = withLatestCounters(current, row);
      if (hasBudgetLeft(updated, now)) next.set(row.id, updated);
    }
    for (let i = 0; i < stale.length; i += 1000) {
      for (const row of await this.campaigns.findByIds(stale.slice(i, i + 1000))) {
        this.versions.set(row.id, row.version);
        if (isServable(row, now)) next.set(row.id, toIndexed(row));
      }
    }
    const ranked = await rerankCampaignsInSlices(this.rankedList, next);
    await this.matches.prepare(ranked);
    this.apply(next, ranked);
  }

  /** Every servable campaign's counters, read a page at a time with a turn of the event loop between pages. */
  private async servableCounters(now: number): Promise<CampaignCounters[]> {
    const rows: CampaignCounters[] = [];
    for (let afterId: string | null = null; ;) {
      const page = await this.campaigns.servableCountersPage(now, afterId, COUNTERS_PAGE);
      for (const row of page) rows.push(row);
      if (page.length < COUNTERS_PAGE) return rows;
      afterId = page[page.length - 1].id;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private apply(next: Map<string, IndexedCampaign>, ranked = rankCampaigns([...next.values()])): void {
    this.byId = next;
    this.rankedList = ranked;
    // what the serving state found out of budget is read again from the database's spend: offered again
    this.skipped.delete([...this.exhausted].filter((id) => !this.heldBack.has(id)));
    this.exhausted = new Set();
  }

  /** Brings one campaign up to date after a change: added, replaced or dropped. */
  reload(campaignId: string): Promise<void> {
    return this.reloadMany([campaignId]);
  }

  /** Brings changed campaigns up to date with one query and one re-ranking. */
  async reloadMany(campaignIds: string[]): Promise<void> {
    if (campaignIds.length === 0) return;
    const mine = ++this.seq;
    for (const id of campaignIds) {
      if (this.refreshing) this.changedDuringRefresh.add(id);
      this.reloadSeq.set(id, mine);
    }
    const rows = await this.campaigns.findByIds(campaignIds);
    const rowsById = new Map(rows.map((row) => [row.id, row]));
    const now = this.clock.now();
    const next = new Map(this.byId);
    const released: string[] = [];
    for (const id of campaignIds) {
      // A newer reload of this campaign started after this one: its answer wins.
      if (this.reloadSeq.get(id) !== mine) continue;
      this.reloadSeq.delete(id);
      const row = rowsById.get(id);
      if (row) this.versions.set(id, row.version);
      if (row && isServable(row, now)) {
        next.set(id, toIndexed(row));
      } else {
        next.delete(id);
      }
      this.exhausted.delete(id);
      this.heldBack.delete(id);
      released.push(id);
    }
    // offered again by the next request, not SKIP_RELEASE_MS later
    this.skipped.delete(released);
    this.byId = next;
    this.rankedList = rerankCampaigns(this.rankedList, next);
  }

  /** Change notices arrive in bursts (bulk edits, imports): gather them briefly and reload them together. */
  private noteChanged(campaignId: string): void {
    this.pendingChanges.add(campaignId);
    if (this.pendingTimer) return;
    this.pendingTimer = setTimeout(() => {
      this.pendingTimer = undefined;
      void this.reloadPending();
    }, RELOAD_GATHER_MS);
  }

  /** Applies now the change notices still being gathered, and waits for gathered reloads under way. */
  async applyPendingChanges(): Promise<void> {
    if (this.pendingTimer) {
      clearTimeout(this.pendingTimer);
      this.pendingTimer = undefined;
      void this.reloadPending();
    }
    await this.pendingReloads;
  }

  private reloadPending(): Promise<void> {
    const ids = [...this.pendingChanges];
    this.pendingChanges.clear();
    const reload = this.reloadMany(ids).catch((error) => this.logger.warn({ err: error }, 'reload failed'));
    this.pendingReloads = Promise.all([this.pendingReloads, reload]).then(() => undefined);
    return reload;
  }

  /** The billing facts of the campaigns clicked in one turn of the event loop, read together. */
  private readonly billingFacts = new TurnBatch<string, CampaignBillingFacts>((ids) => this.campaigns.billingFacts(ids));

  /**
   * The campaign as a click needs it, and whether it may bill now, read from the database as the click arrives (a
   * status change reaches this process's index a moment later, through a change notice): `billable` when it is
   * `onGoing`, approved, inside its time window, and, for CPM, has budget left (a CPC click's budget is checked by
   * the serving state, atomically with its price). The facts are a few columns, read with those of the other clicks
   * of the same turn in one query; the whole row only when the index does not hold the campaign at that version.
   */
  async forClick(campaignId: string, now: number): Promise<{ campaign: IndexedCampaign; billable: boolean } | null> {
    let facts = await this.billingFacts.get(campaignId);
    if (!facts) return null;
    let campaign = this.byId.get(campaignId);
    if (!campaign || this.versions.get(campaignId) !== facts.version) {
      // read again whole: the facts and the campaign answered then come from one row
      const row = await this.campaigns.findById(campaignId);
      if (!row) return null;
      facts = row;
      campaign = toIndexed(row);
    }
    // the spend as the database has it now: it seeds the shared counters should Redis have lost them
    if (
      campaign.spentMicros !== Number(facts.spentMicros) ||
      campaign.daySpentMicros !== Number(facts.daySpentMicros) ||
      campaign.spentDay !== facts.spentDay
    ) {
      campaign = withFields(campaign, { spentMicros: Number(facts.spentMicros), daySpentMicros: Number(facts.daySpentMicros), spentDay: facts.spentDay });
    }
    const budgetLeft = facts.billingType === 'CPC' || (hasBudgetLeft(facts, now) && !this.exhausted.has(campaignId));
    const billable = isRunning(facts) && facts.startTime <= now && now < facts.endTime && budgetLeft;
    return { campaign, billable };
  }
}

/** What the index holds: running, not past its end, budget left (a campaign before its start waits in it). */
export function isServable(row: Campaign, now: number): boolean {
  return isRunning(row) && row.endTime > now && hasBudgetLeft(row, now);
}

/** The entry with the spend and CTR estimate the database holds now (same object when nothing moved). */
function withLatestCounters(campaign: IndexedCampaign, row: CampaignCounters): IndexedCampaign {
  const spentMicros = Number(row.spentMicros);
  const daySpentMicros = Number(row.daySpentMicros);
  const ecpmMicros = expectedRevenuePerMille(campaign.billingType, campaign.costPerMicros, smoothedCtr(Number(row.clicks), Number(row.impressions)));
  if (
    spentMicros === campaign.spentMicros &&
    daySpentMicros === campaign.daySpentMicros &&
    row.spentDay === campaign.spentDay &&
    ecpmMicros === campaign.ecpmMicros
  ) {
    return campaign;
  }
  return withFields(campaign, { spentMicros, daySpentMicros, spentDay: row.spentDay, ecpmMicros });
}
