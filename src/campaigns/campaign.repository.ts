import type { ZoneSchedule } from '../common/time-zone';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DeepPartial, FindOptionsWhere, In, MoreThan, Not, Repository } from 'typeorm';
import { readFromReplica } from '../database/replica-reads';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { VersionedWriter } from '../database/versioned-change';
import { EVENT_COUNTER_COLUMNS, EVENT_TYPES, type EventType } from '../conversions/event-types';
import type { CampaignBillingFacts, CampaignCounters, CampaignStore } from './campaign-store';
import { Campaign } from './entities/campaign.entity';
import type { NetworkEventTotals } from './event-rate';

/**
 * The `campaigns` table: the campaigns feature's rows (create, page, versioned edits), the reads of the serving index,
 * and the network's event totals of the event-rate estimate.
 */
@Injectable()
export class CampaignRepository implements CampaignStore, VersionedWriter<Campaign> {
  constructor(@InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>) {}

  /** A new campaign entity (not stored yet). */
  build(fields: DeepPartial<Campaign>): Campaign {
    return this.campaigns.create(fields);
  }

  async insert(campaign: Campaign): Promise<void> {
    await this.campaigns.insert(campaign);
  }

  /** Newest first, of one account or (null) of every account, with the total (a list: read from a replica). */
  page(accountId: string | null, skip: number, take: number): Promise<[Campaign[], number]> {
    return readFromReplica(this.campaigns.manager.dataSource, (manager) =>
      manager.findAndCount(Campaign, { where: accountId === null ? {} : { accountId }, order: { id: 'DESC' }, skip, take }),
    );
  }

  /** Campaigns waiting for review (an ended one no longer does), oldest first, with their count. */
  waitingForReview(skip: number, take: number): Promise<[Campaign[], number]> {
    return this.campaigns.findAndCount({
      where: { reviewStatus: 'pending', status: Not('ended' as const) },
      order: { reviewRequestedAt: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  /** Per kind of review (new campaign, revision): how many wait and since when the oldest waits (ms; null: none). */
  async reviewQueue(): Promise<{ kind: 'new' | 'revision'; waiting: number; oldestSince: number | null }[]> {
    const rows: { approved: number | string | boolean; waiting: number | string; oldest: number | string | null }[] = await this.campaigns
      .createQueryBuilder('c')
      .select('c.approved', 'approved')
      .addSelect('COUNT(*)', 'waiting')
      .addSelect('MIN(c.reviewRequestedAt)', 'oldest')
      .where('c.reviewStatus = :pending', { pending: 'pending' })
      .andWhere('c.status <> :ended', { ended: 'ended' })
      .groupBy('c.approved')
      .getRawMany();
    return (['new', 'revision'] as const).map((kind) => {
      // MySQL answers a TINYINT, SQLite an integer
      const row = rows.find((entry) => (Number(entry.approved) === 1) === (kind === 'revision'));
      return { kind, waiting: row ? Number(row.waiting) : 0, oldestSince: row && row.oldest !== null ? Number(row.oldest) : null };
    });
  }

  /** The ids of one account's campaigns (the report's scope). */
  async idsOf(accountId: string): Promise<string[]> {
    return (await this.campaigns.find({ select: { id: true }, where: { accountId } })).map((row) => row.id);
  }

  /**
   * Copies an account's new zone schedule onto its campaigns (a new version of each, so that every serving index
   * reloads them); answers their ids.
   */
  async followAccountZone(accountId: string, schedule: ZoneSchedule): Promise<string[]> {
    const { timeZone, nextTimeZone, timeZoneChangesAt } = schedule;
    await this.campaigns.update({ accountId }, { timeZone, nextTimeZone, timeZoneChangesAt, version: () => 'version + 1' });
    return this.idsOf(accountId);
  }

  async updateAtVersion(id: string, version: number, changes: Partial<Campaign>): Promise<boolean> {
    const result = await this.campaigns.update({ id, version } as FindOptionsWhere<Campaign>, changes as QueryDeepPartialEntity<Campaign>);
    return result.affected === 1;
  }

  servable(now: number): Promise<Campaign[]> {
    return this.campaigns.find({ where: servableWhere(now) });
  }

  servableCountersPage(now: number, afterId: string | null, limit: number): Promise<CampaignCounters[]> {
    const query = this.campaigns
      .createQueryBuilder('c')
      .select('c.id', 'id')
      .addSelect('c.version', 'version')
      .addSelect('c.spentMicros', 'spentMicros')
      .addSelect('c.daySpentMicros', 'daySpentMicros')
      .addSelect('c.spentDay', 'spentDay')
      .addSelect('c.clicks', 'clicks')
      .addSelect('c.impressions', 'impressions')
      .where(servableWhere(now));
    if (afterId !== null) query.andWhere('c.id > :afterId', { afterId });
    return query.orderBy('c.id').limit(limit).getRawMany();
  }

  findByIds(ids: string[]): Promise<Campaign[]> {
    return this.campaigns.findBy({ id: In(ids) });
  }

  findById(id: string): Promise<Campaign | null> {
    return this.campaigns.findOneBy({ id });
  }

  /**
   * A plain statement, not the ORM's findBy: every click reads this, and building and hydrating the ORM query cost
   * more than the rest of the read.
   */
  async billingFacts(ids: string[]): Promise<Map<string, CampaignBillingFacts>> {
    const rows: Record<keyof CampaignBillingFacts, string | number | boolean>[] = [];
    for (let i = 0; i < ids.length; i += ID_SLICE) {
      const slice = ids.slice(i, i + ID_SLICE);
      rows.push(...(await this.campaigns.query(`SELECT ${BILLING_COLUMNS.join(', ')} FROM campaigns WHERE id IN (${slice.map(() => '?').join(', ')})`, slice)));
    }
    return new Map(
      rows.map((row) => [
        String(row.id),
        {
          id: String(row.id),
          version: Number(row.version),
          status: String(row.status) as CampaignBillingFacts['status'],
          // MySQL answers a TINYINT, SQLite an integer
          approved: Number(row.approved) === 1,
          billingType: String(row.billingType) as CampaignBillingFacts['billingType'],
          startTime: Number(row.startTime),
          endTime: Number(row.endTime),
          totalBudgetMicros: Number(row.totalBudgetMicros),
          dailyBudgetMicros: Number(row.dailyBudgetMicros),
          spentMicros: Number(row.spentMicros),
          daySpentMicros: Number(row.daySpentMicros),
          spentDay: String(row.spentDay),
          timeZone: String(row.timeZone),
          nextTimeZone: row.nextTimeZone === null ? null : String(row.nextTimeZone),
          timeZoneChangesAt: row.timeZoneChangesAt === null ? null : Number(row.timeZoneChangesAt),
        },
      ]),
    );
  }

  /** Per optimization event, over every account's campaigns with clicks: advertisers, clicks and events of that type. */
  async networkEventTotals(): Promise<Partial<Record<EventType, NetworkEventTotals>>> {
    let query = this.campaigns
      .createQueryBuilder('c')
      .select('c.optimizationEvent', 'optimizationEvent')
      .addSelect('COUNT(DISTINCT c.accountId)', 'advertisers')
      .addSelect('SUM(c.clicks)', 'clicks');
    for (const type of EVENT_TYPES) query = query.addSelect(`SUM(c.${EVENT_COUNTER_COLUMNS[type]})`, type);
    const rows: (Record<EventType, string | number> & { optimizationEvent: EventType; advertisers: string | number; clicks: string | number })[] = await query
      .where('c.clicks > 0')
      .groupBy('c.optimizationEvent')
      .getRawMany();
    return Object.fromEntries(
      rows
        .filter((row) => (EVENT_TYPES as readonly string[]).includes(row.optimizationEvent))
        .map((row) => [
          row.optimizationEvent,
          { advertisers: Number(row.advertisers), clicks: Number(row.clicks), events: Number(row[row.optimizationEvent]) },
        ]),
    );
  }
}

/** Ids per `IN (...)` list. */
const ID_SLICE = 500;

const BILLING_COLUMNS: readonly (keyof CampaignBillingFacts)[] = [
  'id',
  'version',
  'status',
  'approved',
  'billingType',
  'startTime',
  'endTime',
  'totalBudgetMicros',
  'dailyBudgetMicros',
  'spentMicros',
  'daySpentMicros',
  'spentDay',
  'timeZone',
  'nextTimeZone',
  'timeZoneChangesAt',
];

function servableWhere(now: number) {
  return { status: 'onGoing' as const, approved: true, endTime: MoreThan(now) };
}
