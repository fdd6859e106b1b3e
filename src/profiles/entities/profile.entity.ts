import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

/**
 * A user profile as one publisher uploaded it: keyed by (publisher account, messengerUserId), merged from that
 * publisher's batches only, read when serving that publisher's ad blocks (docs/TRUST_AND_SAFETY.md). A null column
 * was never given or was cleared with an explicit null. Written only by the batch upsert (ProfilesRepository).
 */
@Entity('profiles')
export class Profile {
  /** The publisher whose batches wrote this profile and whose ad blocks it targets. */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  accountId: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  messengerUserId: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ipAddress: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  walletAddress: string | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  walletClassify: string | null;

  @Column({ type: 'boolean', nullable: true })
  isPremium: boolean | null;

  @Column({ type: 'boolean', nullable: true })
  isHighValue: boolean | null;

  @Column({ type: 'boolean', nullable: true })
  walletHasBalance: boolean | null;

  @Column({ type: 'varchar', length: 8, nullable: true })
  language: string | null;

  /** Bits of the optional fields the last upload of this user carried (see fieldMask); the upsert's merge key. */
  @Column({ type: 'int', default: 0 })
  lastFields: number;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  updatedAt: number;
}
