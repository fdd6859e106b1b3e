import { Inject, Injectable } from '@nestjs/common';
import { DATABASE_CONFIG, DatabaseConfig } from '../database/database.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Between, DataSource, EntityManager, Repository } from 'typeorm';
import { DayPartitionedTable } from '../database/day-partitions';
import { readFromReplica } from '../database/replica-reads';
import { OwnsEventTables, type EventTablesOwner } from '../retention/event-tables';
import { ExchangeClick } from './entities/exchange-click.entity';
import { ExchangeStatsHourly } from './entities/exchange-stats-hourly.entity';

export interface ExchangeCounts {
  impressions: number;
  impressionsSent: number;
  clicksSent: number;
  clicksReceived: number;
  conversions: number;
}

export interface ExchangeHourlyIncrement extends ExchangeCounts {
  exchangeCampaignId: string;
  hour: number;
}

/** Every write of the exchange ledger: its click rows, `exchange_stats_hourly` and the exchange campaigns' counters (conversions included). */
@Injectable()
@OwnsEventTables()
export class ExchangeStatsRepository implements EventTablesOwner {
  private readonly mysql: boolean;
  private readonly days: DayPartitionedTable;

  private readonly hourly: Repository<ExchangeStatsHourly>;

  constructor(@Inject(DATABASE_CONFIG) config: DatabaseConfig, @InjectDataSource() dataSource: DataSource) {
    this.mysql = config.database.type === 'mysql';
    this.hourly = dataSource.getRepository(ExchangeStatsHourly);
    this.days = new DayPartitionedTable(dataSource, { table: 'exchange_clicks', partitionColumn: 'createdAt', timeColumn: 'createdAt' });
  }

  /** The hourly ledger rows of one exchange campaign whose hour starts within [from, to] (a series: read from a replica). */
  hourlyOf(exchangeCampaignId: string, from: number, to: number): Promise<ExchangeStatsHourly[]> {
    return readFromReplica(this.hourly.manager.dataSource, (manager) =>
      manager.find(ExchangeStatsHourly, { where: { exchangeCampaignId, hour: Between(from, to) } }),
    );
  }

  /** The click rows only: `exchange_stats_hourly` and the counters are aggregates, kept forever. */
  eventTables(): DayPartitionedTable[] {
    return [this.days];
  }

  async insertClicks(manager: EntityManager, clicks: ExchangeClick[]): Promise<void> {
    await manager.insert(ExchangeClick, clicks);
  }

  /** Adds to the hourly rows, creating the missing ones; one statement for all the rows given. */
  async addHourly(manager: EntityManager, rows: ExchangeHourlyIncrement[]): Promise<void> {
    const placeholders = rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
    const values = rows.flatMap((d) => [d.exchangeCampaignId, d.hour, d.impressions, d.impressionsSent, d.clicksSent, d.clicksReceived, d.conversions]);
    const columns = '(exchangeCampaignId, hour, impressions, impressionsSent, clicksSent, clicksReceived, conversions)';
    const conflict = this.mysql
      ? `ON DUPLICATE KEY UPDATE impressions = impressions + VALUES(impressions), impressionsSent = impressionsSent + VALUES(impressionsSent),
         clicksSent = clicksSent + VALUES(clicksSent), clicksReceived = clicksReceived + VALUES(clicksReceived),
         conversions = conversions + VALUES(conversions)`
      : `ON CONFLICT (exchangeCampaignId, hour) DO UPDATE SET impressions = impressions + excluded.impressions,
         impressionsSent = impressionsSent + excluded.impressionsSent, clicksSent = clicksSent + excluded.clicksSent,
         clicksReceived = clicksReceived + excluded.clicksReceived, conversions = conversions + excluded.conversions`;
    await manager.query(`INSERT INTO exchange_stats_hourly ${columns} VALUES ${placeholders} ${conflict}`, values);
  }

  async addCampaignCounters(manager: EntityManager, exchangeCampaignId: string, total: ExchangeCounts): Promise<void> {
    await manager.query(
      `UPDATE exchange_campaigns SET impressions = impressions + ?, impressionsSent = impressionsSent + ?,
         clicksSent = clicksSent + ?, clicksReceived = clicksReceived + ?, conversions = conversions + ? WHERE id = ?`,
      [total.impressions, total.impressionsSent, total.clicksSent, total.clicksReceived, total.conversions, exchangeCampaignId],
    );
  }
}
