import { Inject, Injectable } from '@nestjs/common';
import { SERVING_CONFIG, ServingConfig } from '../serving/serving.config';
import { isAdmin, Principal } from '../accounts/principal';
import { ChangeBus } from '../common/change-bus';
import { NotFoundError } from '../common/errors';
import { newId } from '../common/ids';
import { zeroTrafficCounters } from '../database/counter-columns';
import { fromMicros, toMicros } from '../common/money';
import { readWithinDeadline, staleReads } from '../common/stale-reads';
import { AdBlockRepository } from './ad-block.repository';
import { AdBlockCreateDto, AdBlockResponseDto, AdBlockUpdateDto } from './dto/ad-block.dto';
import { AdBlock } from './entities/ad-block.entity';
import { isIP } from 'node:net';
import { ValidationError } from '../common/errors';
import { VERIFICATION_CONFIG, VerificationConfig } from '../verification/verification.config';
import { isPublicAddress } from '../verification/target-guard';
import { mergeRewardSettings, REWARD_DEFAULTS, type RewardSettings, rewardSettingsOf } from './reward-settings';

/**
 * What a block refuses to serve (docs/CONTRACT.md §18), as the serving index applies it: built once when the block is
 * loaded, never per request.
 */
export interface BlockControls {
  /** The same for blocks with the same controls: the serving index keeps its answers per key. */
  key: string;
  /** 0: no floor. */
  floorCpmMicros: number;
  floorCpcMicros: number;
  blockedCategories: ReadonlySet<string>;
  /** Lower-case host names. */
  blockedDomains: readonly string[];
}

/** What the hot routes need of a block: its owner (whose profiles and webhook secret apply), its viewer rule, its controls. */
export interface ServingBlock {
  accountId: string;
  requireSignedViewer: boolean;
  /** null: the block refuses nothing. */
  controls: BlockControls | null;
}

/** The block columns the hot routes remember. */
export type ServingFacts = Pick<
  AdBlock,
  'id' | 'accountId' | 'requireSignedViewer' | 'floorCpmMicros' | 'floorCpcMicros' | 'blockedCategories' | 'blockedDomains'
>;

/** The block's controls, or null when it refuses nothing. */
export function controlsOf(block: Omit<ServingFacts, 'id' | 'accountId' | 'requireSignedViewer'>): BlockControls | null {
  const categories = [...(block.blockedCategories ?? [])].sort();
  const domains = [...(block.blockedDomains ?? [])].sort();
  if (block.floorCpmMicros === 0 && block.floorCpcMicros === 0 && categories.length === 0 && domains.length === 0) return null;
  return {
    key: `${block.floorCpmMicros}|${block.floorCpcMicros}|${categories.join(',')}|${domains.join(',')}`,
    floorCpmMicros: block.floorCpmMicros,
    floorCpcMicros: block.floorCpcMicros,
    blockedCategories: new Set(categories),
    blockedDomains: domains,
  };
}

/** A list as stored: lower-case, each once, in the order given; empty is null. */
function storedList(values: string[] | undefined): string[] | null {
  const list = [...new Set((values ?? []).map((value) => value.toLowerCase()))];
  return list.length > 0 ? list : null;
}

/** The settings columns an update may change. */
type BlockSettings = Pick<
  AdBlock,
  'name' | 'requireSignedViewer' | 'floorCpmMicros' | 'floorCpcMicros' | 'blockedCategories' | 'blockedDomains' | keyof RewardSettings
>;

interface KnownBlock extends ServingBlock {
  loadedAt: number;
}

/** Change notice topic: this ad block's settings changed. */
const AD_BLOCK_CHANGED = 'adBlock';

@Injectable()
export class AdBlocksService {
  /**
   * Block id -> owner and settings. Owners never change and blocks are never deleted; a settings change reaches
   * every process through a change notice, and an entry is reloaded after INDEX_REFRESH_MS in case a notice was lost:
   * in the background, the entry answered meanwhile (src/common/stale-reads.ts), so an ad request never waits for the
   * database for a block this process has seen, and through a database outage its blocks keep serving.
   */
  private readonly known = new Map<string, KnownBlock>();
  /** Entries loaded before this are reloaded at their next use (the change notices were lost meanwhile). */
  private staleBefore = 0;

  constructor(
    private readonly blocks: AdBlockRepository,
    @Inject(SERVING_CONFIG) private readonly config: ServingConfig,
    private readonly changes: ChangeBus,
    @Inject(VERIFICATION_CONFIG) private readonly verification: VerificationConfig,
  ) {
    changes.on(AD_BLOCK_CHANGED, (adBlockId) => this.known.delete(adBlockId));
    changes.onReconnect(() => (this.staleBefore = Date.now()));
  }

  async create(principal: Principal, dto: AdBlockCreateDto): Promise<string> {
    const settings = mergeRewardSettings(REWARD_DEFAULTS, dto);
    this.assertRewardUrlAllowed(settings.rewardUrl);
    const block = this.blocks.build({
      id: newId(),
      accountId: principal.accountId,
      name: dto.name,
      requireSignedViewer: dto.requireSignedViewer ?? false,
      floorCpmMicros: dto.floorCpm === undefined ? 0 : toMicros(dto.floorCpm),
      floorCpcMicros: dto.floorCpc === undefined ? 0 : toMicros(dto.floorCpc),
      blockedCategories: storedList(dto.blockedCategories),
      blockedDomains: storedList(dto.blockedDomains),
      ...settings,
      ...zeroTrafficCounters(),
      earningsMicros: 0,
      createdAt: Date.now(),
    });
    await this.blocks.insert(block);
    this.remember(block);
    return block.id;
  }

  async list(principal: Principal, skip: number, take: number): Promise<[AdBlockResponseDto[], number]> {
    const [rows, total] = await this.blocks.page(isAdmin(principal) ? null : principal.accountId, skip, take);
    return [rows.map(toResponse), total];
  }

  async detail(principal: Principal, adBlockId: string): Promise<AdBlockResponseDto> {
    return toResponse(await this.usableBlock(principal, adBlockId));
  }

  /** Changes the fields given; answers the detail. */
  async update(principal: Principal, change: AdBlockUpdateDto): Promise<AdBlockResponseDto> {
    if (change.rewardUrl) this.assertRewardUrlAllowed(change.rewardUrl);
    const block = await this.usableBlock(principal, change.adBlockId);
    const fields: Partial<BlockSettings> = {};
    if (change.name !== undefined) fields.name = change.name;
    if (change.requireSignedViewer !== undefined) fields.requireSignedViewer = change.requireSignedViewer;
    if (change.floorCpm !== undefined) fields.floorCpmMicros = change.floorCpm === null ? 0 : toMicros(change.floorCpm);
    if (change.floorCpc !== undefined) fields.floorCpcMicros = change.floorCpc === null ? 0 : toMicros(change.floorCpc);
    if (change.blockedCategories !== undefined) fields.blockedCategories = storedList(change.blockedCategories);
    if (change.blockedDomains !== undefined) fields.blockedDomains = storedList(change.blockedDomains);
    for (const key of ['format', 'rewardUrl', 'minViewMs', 'dailyRewardCap'] as const) {
      if (change[key] !== undefined) Object.assign(fields, { [key]: change[key] });
    }
    if (Object.keys(fields).length > 0) {
      await this.blocks.updateSettings(block.id, fields);
      Object.assign(block, fields);
      this.remember(block);
      this.changes.publish(AD_BLOCK_CHANGED, block.id);
    }
    return toResponse(block);
  }

  /**
   * Every block's controls, for the delivery diagnosis of a campaign without a block: how many blocks there are and the
   * controls of those that set any (never which blocks or whose). Reads the database; not for the hot path.
   */
  async networkControls(): Promise<{ blocks: number; controls: BlockControls[] }> {
    const { total, rows } = await this.blocks.controlled();
    return { blocks: total, controls: rows.map(controlsOf).filter((controls): controls is BlockControls => controls !== null) };
  }

  /**
   * The block's rewarded-ad settings, for its owner or an admin (the same 404 for an unknown block and another's):
   * read from the database each time, so a change counts at once for completions and callbacks.
   */
  async usableRewardSettings(principal: Principal, adBlockId: string): Promise<RewardSettings & { accountId: string }> {
    const block = await this.usableBlock(principal, adBlockId);
    return { ...rewardSettingsOf(block), accountId: block.accountId };
  }

  /** The block's rewarded-ad settings and owner, for the reward worker (null: unknown block). */
  async rewardSettings(adBlockId: string): Promise<(RewardSettings & { accountId: string }) | null> {
    const block = await this.blocks.findById(adBlockId);
    return block ? { ...rewardSettingsOf(block), accountId: block.accountId } : null;
  }

  /**
   * A reward URL naming a non-public address literally (loopback, private, link-local, `localhost`) is refused at
   * once; names are resolved and checked again at every call (docs/REWARDED_ADS.md).
   */
  private assertRewardUrlAllowed(rewardUrl: string | null): void {
    if (rewardUrl === null || this.verification.verificationAllowPrivate) return;
    const host = new URL(rewardUrl).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && !isPublicAddress(host))) {
      throw new ValidationError([{ field: 'rewardUrl', message: 'rewardUrl must be a public address' }]);
    }
  }

  /** The ids of the caller's own ad blocks (an admin's too: only those its account owns). */
  ownAdBlockIds(principal: Principal): Promise<string[]> {
    return this.blocks.idsOf(principal.accountId);
  }

  /** Whether this principal may use the block, when its owner is already known (no I/O); undefined otherwise. */
  usableIfKnown(principal: Principal, adBlockId: string): boolean | undefined {
    const block = this.knownBlock(adBlockId);
    return block === undefined ? undefined : canUse(principal, block.accountId);
  }

  /**
   * Throws the same 404 for an unknown block and for another publisher's: the hot path calls this on every
   * ad fetch and click, so blocks are remembered after the first lookup.
   */
  async assertUsable(principal: Principal, adBlockId: string): Promise<void> {
    const block = await this.servingBlock(adBlockId);
    if (block === null || !canUse(principal, block.accountId)) throw new NotFoundError('adBlockId', 'ad block');
  }

  /** The block's owner and viewer rule, for its owner or an admin; the same 404 for an unknown block and another's. */
  async usableServingBlock(principal: Principal, adBlockId: string): Promise<ServingBlock> {
    const block = await this.servingBlock(adBlockId);
    if (block === null || !canUse(principal, block.accountId)) throw new NotFoundError('adBlockId', 'ad block');
    return block;
  }

  /** The block's owner and viewer rule when this process remembers it (no I/O); undefined when it would have to ask. */
  knownServingBlock(adBlockId: string): ServingBlock | undefined {
    return this.knownBlock(adBlockId);
  }

  /** The block's owner and viewer rule (remembered; null for an unknown block). */
  async servingBlock(adBlockId: string): Promise<ServingBlock | null> {
    const known = this.knownBlock(adBlockId);
    if (known !== undefined) return known;
    return readWithinDeadline(this.load(adBlockId));
  }

  private async load(adBlockId: string): Promise<ServingBlock | null> {
    const block = await this.blocks.servingFacts(adBlockId);
    return block ? this.remember(block) : null;
  }

  private knownBlock(adBlockId: string): KnownBlock | undefined {
    const block = this.known.get(adBlockId);
    if (block !== undefined && (Date.now() - block.loadedAt >= this.config.indexRefreshMs || block.loadedAt < this.staleBefore)) {
      staleReads.stale('adBlocks', adBlockId, () => this.load(adBlockId));
    }
    return block;
  }

  private remember(block: ServingFacts): KnownBlock {
    const known = { accountId: block.accountId, requireSignedViewer: block.requireSignedViewer, controls: controlsOf(block), loadedAt: Date.now() };
    this.known.set(block.id, known);
    return known;
  }

  private async usableBlock(principal: Principal, adBlockId: string): Promise<AdBlock> {
    const block = await this.blocks.findById(adBlockId);
    if (!block || !canUse(principal, block.accountId)) throw new NotFoundError('adBlockId', 'ad block');
    return block;
  }
}

function canUse(principal: Principal, ownerId: string): boolean {
  return ownerId === principal.accountId || isAdmin(principal);
}

function toResponse(block: AdBlock): AdBlockResponseDto {
  return {
    adBlockId: block.id,
    userId: block.accountId,
    name: block.name,
    requireSignedViewer: block.requireSignedViewer,
    floorCpm: block.floorCpmMicros > 0 ? fromMicros(block.floorCpmMicros) : null,
    floorCpc: block.floorCpcMicros > 0 ? fromMicros(block.floorCpcMicros) : null,
    blockedCategories: block.blockedCategories ?? [],
    blockedDomains: block.blockedDomains ?? [],
    ...rewardSettingsOf(block),
    impressions: block.impressions,
    clicks: block.clicks,
    unbilledClicks: block.unbilledClicks,
    invalidClicks: block.invalidClicks,
    invalidImpressions: block.invalidImpressions,
    views: block.views,
    completions: block.completions,
    rewardsCapped: block.rewardsCapped,
    ctr: block.impressions > 0 ? block.clicks / block.impressions : 0,
    earnings: fromMicros(block.earningsMicros),
    createdAt: block.createdAt,
  };
}
