import { Inject, Injectable } from '@nestjs/common';
import { SERVING_CONFIG, ServingConfig } from '../serving/serving.config';
import { isAdmin, Principal } from '../accounts/principal';
import { ChangeBus } from '../common/change-bus';
import { NotFoundError } from '../common/errors';
import { newId } from '../common/ids';
import { zeroTrafficCounters } from '../database/counter-columns';
import { fromMicros } from '../common/money';
import { AdBlockRepository } from './ad-block.repository';
import { AdBlockResponseDto, AdBlockUpdateDto } from './dto/ad-block.dto';
import { AdBlock } from './entities/ad-block.entity';

/** What the hot routes need of a block: its owner (whose profiles and webhook secret apply) and its viewer rule. */
export interface ServingBlock {
  accountId: string;
  requireSignedViewer: boolean;
}

interface KnownBlock extends ServingBlock {
  loadedAt: number;
}

/** Change notice topic: this ad block's settings changed. */
const AD_BLOCK_CHANGED = 'adBlock';

@Injectable()
export class AdBlocksService {
  /**
   * Block id -> owner and settings. Owners never change and blocks are never deleted; a settings change reaches
   * every process through a change notice, and an entry is reloaded after INDEX_REFRESH_MS in case a notice was lost.
   */
  private readonly known = new Map<string, KnownBlock>();

  constructor(
    private readonly blocks: AdBlockRepository,
    @Inject(SERVING_CONFIG) private readonly config: ServingConfig,
    private readonly changes: ChangeBus,
  ) {
    changes.on(AD_BLOCK_CHANGED, (adBlockId) => this.known.delete(adBlockId));
    changes.onReconnect(() => this.known.clear());
  }

  async create(principal: Principal, name: string, requireSignedViewer = false): Promise<string> {
    const block = this.blocks.build({
      id: newId(),
      accountId: principal.accountId,
      name,
      requireSignedViewer,
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
    const block = await this.usableBlock(principal, change.adBlockId);
    const fields: Partial<Pick<AdBlock, 'name' | 'requireSignedViewer'>> = {};
    if (change.name !== undefined) fields.name = change.name;
    if (change.requireSignedViewer !== undefined) fields.requireSignedViewer = change.requireSignedViewer;
    if (Object.keys(fields).length > 0) {
      await this.blocks.updateSettings(block.id, fields);
      Object.assign(block, fields);
      this.remember(block);
      this.changes.publish(AD_BLOCK_CHANGED, block.id);
    }
    return toResponse(block);
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
    const block = await this.blocks.servingFacts(adBlockId);
    return block ? this.remember(block) : null;
  }

  private knownBlock(adBlockId: string): KnownBlock | undefined {
    const block = this.known.get(adBlockId);
    if (block !== undefined && Date.now() - block.loadedAt >= this.config.indexRefreshMs) {
      this.known.delete(adBlockId);
      return undefined;
    }
    return block;
  }

  private remember(block: Pick<AdBlock, 'id' | 'accountId' | 'requireSignedViewer'>): KnownBlock {
    const known = { accountId: block.accountId, requireSignedViewer: block.requireSignedViewer, loadedAt: Date.now() };
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
    impressions: block.impressions,
    clicks: block.clicks,
    unbilledClicks: block.unbilledClicks,
    invalidClicks: block.invalidClicks,
    invalidImpressions: block.invalidImpressions,
    views: block.views,
    ctr: block.impressions > 0 ? block.clicks / block.impressions : 0,
    earnings: fromMicros(block.earningsMicros),
    createdAt: block.createdAt,
  };
}
