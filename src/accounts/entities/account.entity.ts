import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

export const ROLES = ['advertiser', 'publisher', 'partner', 'admin'] as const;
export type Role = (typeof ROLES)[number];

@Entity('accounts')
@Index('uq_accounts_postback_token', ['postbackToken'], { unique: true })
export class Account {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Comma-separated roles, e.g. `advertiser,publisher`. */
  @Column({ type: 'varchar', length: 100 })
  roles: string;

  /** Signs the verification calls made to the advertiser (docs/CONTRACT.md §7). */
  @Column({ type: 'varchar', length: 64 })
  webhookSecret: string;

  /** The secret before the last rotation and when it was rotated: reward callbacks carry both for a while (docs/REWARDED_ADS.md). */
  @Column({ type: 'varchar', length: 64, nullable: true }) previousWebhookSecret: string | null;
  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber }) webhookSecretRotatedAt: number | null;
  /**
   * Names the advertiser in server-to-server postback URLs (docs/CONTRACT.md §20): it can only report conversions.
   * Made with the account, or on the first `account/me` of an account older than postbacks; rotatable.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  postbackToken: string | null;

  /** The sandbox account behind TEST_API_KEY; its key only works when APP_ENV=test. */
  @Column({ type: 'boolean', default: false })
  sandbox: boolean;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  /** The IANA zone whose calendar days the account's daily budgets and day series follow (src/common/time-zone.ts). */
  @Column({ type: 'varchar', length: 64, default: 'UTC' })
  timeZone: string;

  /** A zone asked for that applies from `timeZoneChangesAt`, the next local midnight of `timeZone` when it was asked. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  nextTimeZone: string | null;

  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  timeZoneChangesAt: number | null;

  get roleList(): Role[] {
    return this.roles.split(',').filter(Boolean) as Role[];
  }
}
