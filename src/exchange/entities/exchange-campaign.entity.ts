import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

export const EXCHANGE_STATUSES = ['onGoing', 'paused', 'ended'] as const;
export type ExchangeStatus = (typeof EXCHANGE_STATUSES)[number];

export interface ExchangeTargeting {
  includedRegions: string[];
  excludedRegions: string[];
  includedLanguages: string[];
  excludedLanguages: string[];
}

/**
 * A partner's cross-promotion campaign: promoted in other partners' apps (traffic in) and the slot from which the
 * partner shows theirs (traffic out). The counters are the traffic ledger; the exchange_clicks rows are its events.
 */
@Entity('exchange_campaigns')
@Index('idx_exchange_campaigns_account', ['accountId', 'id'])
export class ExchangeCampaign {
  /** Time-ordered, so `ORDER BY id DESC` is newest first. */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  accountId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  status: ExchangeStatus;

  @Column({ type: 'varchar', length: 2048 })
  icon: string;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  image: string | null;

  @Column({ type: 'varchar', length: 1000 })
  text: string;

  @Column({ type: 'varchar', length: 32 })
  actionType: string;

  @Column({ type: 'varchar', length: 2048 })
  destinationUrl: string;

  @Column({ type: 'simple-json' })
  targeting: ExchangeTargeting;

  /** Times this campaign was shown as an entry in other partners' apps. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressions: number;

  /** Entries of other partners shown through this campaign. */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  impressionsSent: number;

  /** Counted clicks on other partners' entries shown through this campaign: traffic it gave (credit). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicksSent: number;

  /** Counted clicks on this campaign's entry in other partners' apps: traffic it got (debit). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  clicksReceived: number;

  /** Conversions its partner reported for users it received, credited to one of those clicks (docs/CONTRACT.md §14). */
  @Column({ type: 'bigint', default: 0, transformer: bigintToNumber })
  conversions: number;

  /** Bumped by every edit and status change: concurrent writers compare it, so none overwrites another. */
  @Column({ type: 'int', default: 1 })
  version: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  updatedAt: number;
}
