import { Inject, Injectable } from '@nestjs/common';
import { CONVERSIONS_CONFIG, ConversionsConfig } from '../conversions/conversions.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DAY_MS } from '../common/clock';
import { DayPartitionedTable } from '../database/day-partitions';
import { OwnsEventTables, type EventTablesOwner } from '../retention/event-tables';
import { newId } from '../common/ids';
import { ExchangeClick } from './entities/exchange-click.entity';
import { ExchangeConversion } from './entities/exchange-conversion.entity';

/** The exchange click a conversion is credited to. */
export type CreditedExchangeClick = Pick<ExchangeClick, 'id' | 'inExchangeCampaignId' | 'createdAt'>;

/** Every statement on `exchange_conversions`, and the attribution's read of `exchange_clicks`. */
@Injectable()
@OwnsEventTables()
export class ExchangeConversionRepository implements EventTablesOwner {
  private readonly days: DayPartitionedTable;

  constructor(@InjectDataSource() dataSource: DataSource, @Inject(CONVERSIONS_CONFIG) config: ConversionsConfig) {
    // A row comes up to the attribution window after the click whose day it is kept in.
    const lagMs = () => config.attributionDays * DAY_MS;
    this.days = new DayPartitionedTable(dataSource, { table: 'exchange_conversions', partitionColumn: 'partitionAt', timeColumn: 'createdAt', lagMs });
  }

  eventTables(): DayPartitionedTable[] {
    return [this.days];
  }

  /** The latest exchange click since `since` that brought this user into one of this partner's campaigns (every stored exchange click is counted). */
  async latestReceivedClick(manager: EntityManager, partnerId: string, messengerUserId: string, since: number): Promise<CreditedExchangeClick | null> {
    return manager
      .getRepository(ExchangeClick)
      .createQueryBuilder('click')
      .select(['click.id', 'click.inExchangeCampaignId', 'click.createdAt'])
      .where('click.inAccountId = :partnerId AND click.messengerUserId = :messengerUserId AND click.createdAt >= :since', { partnerId, messengerUserId, since })
      .orderBy('click.createdAt', 'DESC')
      .addOrderBy('click.id', 'DESC')
      .getOne();
  }

  /**
   * Whether the user's latest exchange click into `inExchangeCampaignId` out of the partner `outAccountId`'s campaigns
   * (any partner's when null) was credited with a conversion; null without such a click.
   */
  async latestClickCredited(
    manager: EntityManager,
    inExchangeCampaignId: string,
    messengerUserId: string,
    outAccountId: string | null,
  ): Promise<boolean | null> {
    const query = manager
      .getRepository(ExchangeClick)
      .createQueryBuilder('click')
      .select(['click.id'])
      .where('click.inExchangeCampaignId = :inExchangeCampaignId AND click.messengerUserId = :messengerUserId', { inExchangeCampaignId, messengerUserId });
    if (outAccountId !== null) query.andWhere('click.outAccountId = :outAccountId', { outAccountId });
    const click = await query.orderBy('click.createdAt', 'DESC').addOrderBy('click.id', 'DESC').getOne();
    if (!click) return null;
    return manager.getRepository(ExchangeConversion).existsBy({ exchangeClickId: click.id });
  }

  /** Fails with a duplicate key (isDuplicateKey) when the click was credited already. */
  async insert(manager: EntityManager, partnerId: string, messengerUserId: string, click: CreditedExchangeClick | null, now: number): Promise<void> {
    await manager.insert(ExchangeConversion, {
      id: newId(now),
      partnerId,
      messengerUserId,
      exchangeClickId: click?.id ?? null,
      exchangeCampaignId: click?.inExchangeCampaignId ?? null,
      createdAt: now,
      partitionAt: click?.createdAt ?? now,
    });
  }
}
