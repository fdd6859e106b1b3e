import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isAdmin, Principal } from '../accounts/principal';
import { NotFoundError } from '../common/errors';
import { newId } from '../common/ids';
import { fromMicros } from '../common/money';
import { AdBlockResponseDto } from './dto/ad-block.dto';
import { AdBlock } from './entities/ad-block.entity';

@Injectable()
export class AdBlocksService {
  /** Block id -> owner. Blocks never change owner and are never deleted, so this never goes stale. */
  private readonly owners = new Map<string, string>();

  constructor(@InjectRepository(AdBlock) private readonly blocks: Repository<AdBlock>) {}

  async create(principal: Principal, name: string): Promise<string> {
    const block = this.blocks.create({
      id: newId(),
      accountId: principal.accountId,
      name,
      impressions: 0,
      clicks: 0,
      earningsMicros: 0,
      createdAt: Date.now(),
    });
    await this.blocks.insert(block);
    this.owners.set(block.id, block.accountId);
    return block.id;
  }

  async list(principal: Principal, skip: number, take: number): Promise<[AdBlockResponseDto[], number]> {
    const [rows, total] = await this.blocks.findAndCount({
      where: isAdmin(principal) ? {} : { accountId: principal.accountId },
      order: { id: 'DESC' },
      skip,
      take,
    });
    return [rows.map(toResponse), total];
  }

  async detail(principal: Principal, adBlockId: string): Promise<AdBlockResponseDto> {
    const block = await this.blocks.findOneBy({ id: adBlockId });
    if (!block || !canUse(principal, block.accountId)) throw new NotFoundError('adBlockId', 'ad block');
    return toResponse(block);
  }

  /** Whether this principal may use the block, when its owner is already known (no I/O); undefined otherwise. */
  usableIfKnown(principal: Principal, adBlockId: string): boolean | undefined {
    const owner = this.owners.get(adBlockId);
    return owner === undefined ? undefined : canUse(principal, owner);
  }

  /**
   * Throws the same 404 for an unknown block and for another publisher's: the hot path calls this on every
   * ad fetch and click, so owners are remembered after the first lookup.
   */
  async assertUsable(principal: Principal, adBlockId: string): Promise<void> {
    let owner = this.owners.get(adBlockId);
    if (owner === undefined) {
      const block = await this.blocks.findOne({ where: { id: adBlockId }, select: { id: true, accountId: true } });
      if (block) {
        owner = block.accountId;
        this.owners.set(adBlockId, owner);
      }
    }
    if (owner === undefined || !canUse(principal, owner)) throw new NotFoundError('adBlockId', 'ad block');
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
    impressions: block.impressions,
    clicks: block.clicks,
    unbilledClicks: block.unbilledClicks,
    invalidClicks: block.invalidClicks,
    invalidImpressions: block.invalidImpressions,
    ctr: block.impressions > 0 ? block.clicks / block.impressions : 0,
    earnings: fromMicros(block.earningsMicros),
    createdAt: block.createdAt,
  };
}
