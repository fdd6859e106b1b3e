import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/** One counted exchange click: traffic leaving the out campaign for the in (promoted) campaign. */
@Entity('exchange_clicks')
@Index('idx_exchange_clicks_out_time', ['outExchangeCampaignId', 'createdAt'])
@Index('idx_exchange_clicks_in_time', ['inExchangeCampaignId', 'createdAt'])
@Index('idx_exchange_clicks_in_account_user_time', ['inAccountId', 'messengerUserId', 'createdAt'])
export class ExchangeClick {
  // MySQL's primary key is (id, createdAt): the table is partitioned by day of createdAt (docs/SCALING.md).
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 26 })
  inExchangeCampaignId: string;

  @Column({ type: 'varchar', length: 26 })
  outExchangeCampaignId: string;

  @Column({ type: 'varchar', length: 26 })
  inAccountId: string;

  @Column({ type: 'varchar', length: 26 })
  outAccountId: string;

  @Column({ type: 'varchar', length: 128 })
  messengerUserId: string;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;
}
