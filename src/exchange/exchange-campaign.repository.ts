import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DeepPartial, FindOptionsWhere, Not, Repository } from 'typeorm';
import { readFromReplica } from '../database/replica-reads';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { VersionedWriter } from '../database/versioned-change';
import { ExchangeCampaign } from './entities/exchange-campaign.entity';

/** `exchange_campaigns`: the partners' rows (create, page, versioned edits) and the exchange index's reads. */
@Injectable()
export class ExchangeCampaignRepository implements VersionedWriter<ExchangeCampaign> {
  constructor(@InjectRepository(ExchangeCampaign) private readonly campaigns: Repository<ExchangeCampaign>) {}

  /** A new exchange campaign entity (not stored yet). */
  build(fields: DeepPartial<ExchangeCampaign>): ExchangeCampaign {
    return this.campaigns.create(fields);
  }

  async insert(campaign: ExchangeCampaign): Promise<void> {
    await this.campaigns.insert(campaign);
  }

  findById(id: string): Promise<ExchangeCampaign | null> {
    return this.campaigns.findOneBy({ id });
  }

  /** Newest first, of one account or (null) of every account, with the total (a list: read from a replica). */
  page(accountId: string | null, skip: number, take: number): Promise<[ExchangeCampaign[], number]> {
    return readFromReplica(this.campaigns.manager.dataSource, (manager) =>
      manager.findAndCount(ExchangeCampaign, { where: accountId === null ? {} : { accountId }, order: { id: 'DESC' }, skip, take }),
    );
  }

  async updateAtVersion(id: string, version: number, changes: Partial<ExchangeCampaign>): Promise<boolean> {
    const result = await this.campaigns.update({ id, version } as FindOptionsWhere<ExchangeCampaign>, changes as QueryDeepPartialEntity<ExchangeCampaign>);
    return result.affected === 1;
  }

  notEnded(): Promise<ExchangeCampaign[]> {
    return this.campaigns.find({ where: { status: Not('ended' as const) } });
  }

  /** Who owns a campaign and its status (ended ones too). */
  async refOf(id: string): Promise<Pick<ExchangeCampaign, 'id' | 'accountId' | 'status'> | null> {
    const row = await this.campaigns.findOne({ where: { id }, select: { id: true, accountId: true, status: true } });
    return row ? { id: row.id, accountId: row.accountId, status: row.status } : null;
  }

  /** Each partner's clicks sent minus clicks received, over all of its exchange campaigns. */
  async partnerBalances(): Promise<Map<string, number>> {
    const rows: { accountId: string; sent: number | string | null; received: number | string | null }[] = await this.campaigns
      .createQueryBuilder('c')
      .select('c.accountId', 'accountId')
      .addSelect('SUM(c.clicksSent)', 'sent')
      .addSelect('SUM(c.clicksReceived)', 'received')
      .groupBy('c.accountId')
      .getRawMany();
    return new Map(rows.map((row) => [row.accountId, Number(row.sent ?? 0) - Number(row.received ?? 0)]));
  }
}
