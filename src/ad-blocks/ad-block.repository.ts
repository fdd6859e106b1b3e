import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DeepPartial, IsNull, Not, Repository } from 'typeorm';
import { readFromReplica } from '../database/replica-reads';
import { AdBlock } from './entities/ad-block.entity';
import type { RewardSettings } from './reward-settings';

/** The `ad_blocks` rows the ad-blocks feature writes (create, settings) and reads; counters are the stats writer's. */
@Injectable()
export class AdBlockRepository {
  constructor(@InjectRepository(AdBlock) private readonly blocks: Repository<AdBlock>) {}

  /** A new block entity (not stored yet). */
  build(fields: DeepPartial<AdBlock>): AdBlock {
    return this.blocks.create(fields);
  }

  async insert(block: AdBlock): Promise<void> {
    await this.blocks.insert(block);
  }

  findById(id: string): Promise<AdBlock | null> {
    return this.blocks.findOneBy({ id });
  }

  /** What the hot routes remember of a block: its owner, viewer rule and controls. */
  servingFacts(
    id: string,
  ): Promise<Pick<AdBlock, 'id' | 'accountId' | 'requireSignedViewer' | 'floorCpmMicros' | 'floorCpcMicros' | 'blockedCategories' | 'blockedDomains'> | null> {
    return this.blocks.findOne({
      where: { id },
      select: {
        id: true,
        accountId: true,
        requireSignedViewer: true,
        floorCpmMicros: true,
        floorCpcMicros: true,
        blockedCategories: true,
        blockedDomains: true,
      },
    });
  }

  /** How many blocks there are, and the controls columns of those that set any (the delivery diagnosis's network view). */
  async controlled(): Promise<{ total: number; rows: Pick<AdBlock, 'floorCpmMicros' | 'floorCpcMicros' | 'blockedCategories' | 'blockedDomains'>[] }> {
    const total = await this.blocks.count();
    const rows = await this.blocks.find({
      where: [{ floorCpmMicros: Not(0) }, { floorCpcMicros: Not(0) }, { blockedCategories: Not(IsNull()) }, { blockedDomains: Not(IsNull()) }],
      select: { floorCpmMicros: true, floorCpcMicros: true, blockedCategories: true, blockedDomains: true },
    });
    return { total, rows };
  }

  /** Newest first, of one account or (null) of every account, with the total (a list: read from a replica). */
  page(accountId: string | null, skip: number, take: number): Promise<[AdBlock[], number]> {
    return readFromReplica(this.blocks.manager.dataSource, (manager) =>
      manager.findAndCount(AdBlock, { where: accountId === null ? {} : { accountId }, order: { id: 'DESC' }, skip, take }),
    );
  }

  /** The ids of one account's ad blocks (the report's scope). */
  async idsOf(accountId: string): Promise<string[]> {
    return (await this.blocks.find({ select: { id: true }, where: { accountId } })).map((row) => row.id);
  }

  async updateSettings(
    id: string,
    fields: Partial<
      Pick<AdBlock, 'name' | 'requireSignedViewer' | 'floorCpmMicros' | 'floorCpcMicros' | 'blockedCategories' | 'blockedDomains' | keyof RewardSettings>
    >,
  ): Promise<void> {
    await this.blocks.update({ id }, fields);
  }
}
