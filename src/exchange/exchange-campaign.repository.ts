import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Not, Repository } from 'typeorm';
import { ExchangeCampaign } from './entities/exchange-campaign.entity';

/** The exchange index's reads of `exchange_campaigns`. */
@Injectable()
export class ExchangeCampaignRepository {
  constructor(@InjectRepository(ExchangeCampaign) private readonly campaigns: Repository<ExchangeCampaign>) {}

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
