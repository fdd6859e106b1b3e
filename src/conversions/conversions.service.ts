import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { Principal } from '../accounts/principal';
import { Clock, DAY_MS, hourStart } from '../common/clock';
import { ValidationError } from '../common/errors';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Click } from '../events/entities/click.entity';
import { ConversionSummaryDto, ConversionSummaryQueryDto } from './dto/conversion.dto';
import { Conversion } from './entities/conversion.entity';

const DUPLICATE_KEY_CODES = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT']);

export type ConversionOutcome = { attributed: true; campaignId: string; clickId: string } | { attributed: false };

/**
 * Conversions (endpoint 7, DESIGN §6): credited to the user's latest counted click on this advertiser's campaigns
 * within ATTRIBUTION_DAYS, at most once per click (a unique index decides between concurrent reports); otherwise
 * kept unattributed. Committed before the answer.
 */
@Injectable()
export class ConversionsService {
  private readonly mysql: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.mysql = config.database.type === 'mysql';
  }

  async report(principal: Principal, messengerUserId: string): Promise<ConversionOutcome> {
    const now = this.clock.now();
    const since = now - this.config.attributionDays * DAY_MS;
    try {
      return await this.dataSource.transaction(async (manager) => {
        const click = await manager
          .getRepository(Click)
          .createQueryBuilder('click')
          .select(['click.id', 'click.campaignId'])
          .where('click.messengerUserId = :messengerUserId AND click.advertiserId = :advertiserId AND click.createdAt >= :since', {
            messengerUserId,
            advertiserId: principal.accountId,
            since,
          })
          // unbilled and invalid clicks are never credited (docs/TRUST_AND_SAFETY.md)
          .andWhere("click.status = 'counted'")
          .orderBy('click.createdAt', 'DESC')
          .addOrderBy('click.id', 'DESC')
          .getOne();
        if (!click) {
          await this.insert(manager, principal, messengerUserId, null, now);
          return { attributed: false as const };
        }
        await this.insert(manager, principal, messengerUserId, click, now);
        await manager.query('UPDATE campaigns SET conversions = conversions + 1 WHERE id = ?', [click.campaignId]);
        await this.countHourly(manager, click.campaignId, hourStart(now));
        return { attributed: true as const, campaignId: click.campaignId, clickId: click.id };
      });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // The latest click was credited already (by an earlier or a concurrent report): keep this one apart.
      await this.dataSource.transaction((manager) => this.insert(manager, principal, messengerUserId, null, now));
      return { attributed: false };
    }
  }

  async summary(principal: Principal, query: ConversionSummaryQueryDto): Promise<ConversionSummaryDto> {
    const to = query.to ?? this.clock.now();
    const from = query.from ?? to - 30 * DAY_MS;
    if (from >= to) throw ValidationError.of('from', 'must be before to');
    const rows: { attributed: number | string | null; total: number | string }[] = await this.dataSource.query(
      `SELECT COUNT(clickId) AS attributed, COUNT(*) AS total FROM conversions
       WHERE advertiserId = ? AND createdAt >= ? AND createdAt < ?`,
      [principal.accountId, from, to],
    );
    const attributed = Number(rows[0]?.attributed ?? 0);
    return { from, to, attributed, unattributed: Number(rows[0]?.total ?? 0) - attributed };
  }

  private async insert(
    manager: EntityManager,
    principal: Principal,
    messengerUserId: string,
    click: Pick<Click, 'id' | 'campaignId'> | null,
    now: number,
  ): Promise<void> {
    await manager.insert(Conversion, {
      id: newId(now),
      advertiserId: principal.accountId,
      messengerUserId,
      clickId: click?.id ?? null,
      campaignId: click?.campaignId ?? null,
      createdAt: now,
    });
  }

  /** Conversions sit in the campaign's hourly row of no ad block (a conversion happens off the publisher's app). */
  private async countHourly(manager: EntityManager, campaignId: string, hour: number): Promise<void> {
    const conflict = this.mysql
      ? 'ON DUPLICATE KEY UPDATE conversions = conversions + 1'
      : 'ON CONFLICT (campaignId, adBlockId, hour) DO UPDATE SET conversions = conversions + 1';
    await manager.query(
      `INSERT INTO stats_hourly (campaignId, adBlockId, hour, impressions, clicks, conversions, spendMicros, earningsMicros)
       VALUES (?, '', ?, 0, 0, 1, 0, 0) ${conflict}`,
      [campaignId, hour],
    );
  }
}

function isDuplicateKey(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error as QueryFailedError & { driverError?: { code?: string } }).driverError?.code;
  return code !== undefined && DUPLICATE_KEY_CODES.has(code);
}
