import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, MoreThan, Repository } from 'typeorm';
import type { CampaignCounters, CampaignStore } from './campaign-store';
import { Campaign } from './entities/campaign.entity';

/** The campaign reads of the serving index. */
@Injectable()
export class CampaignRepository implements CampaignStore {
  constructor(@InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>) {}

  servable(now: number): Promise<Campaign[]> {
    return this.campaigns.find({ where: servableWhere(now) });
  }

  servableCounters(now: number): Promise<CampaignCounters[]> {
    return this.campaigns
      .createQueryBuilder('c')
      .select('c.id', 'id')
      .addSelect('c.version', 'version')
      .addSelect('c.spentMicros', 'spentMicros')
      .addSelect('c.daySpentMicros', 'daySpentMicros')
      .addSelect('c.spentDay', 'spentDay')
      .addSelect('c.clicks', 'clicks')
      .addSelect('c.impressions', 'impressions')
      .where(servableWhere(now))
      .getRawMany();
  }

  findByIds(ids: string[]): Promise<Campaign[]> {
    return this.campaigns.findBy({ id: In(ids) });
  }

  findById(id: string): Promise<Campaign | null> {
    return this.campaigns.findOneBy({ id });
  }
}

function servableWhere(now: number) {
  return { status: 'onGoing' as const, approved: true, endTime: MoreThan(now) };
}
