import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';

@Entity('api_keys')
export class ApiKey {
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Index('idx_api_keys_account')
  @Column({ type: 'varchar', length: 26 })
  accountId: string;

  /** SHA-256 of the key: keys carry 256 random bits, so a fast hash cannot be brute-forced. */
  @Index('uq_api_keys_hash', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  keyHash: string;

  /** The first characters of the key, enough for a person to tell keys apart; never enough to use. */
  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  @Column({ type: 'varchar', length: 100, default: '' })
  label: string;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  revokedAt: number | null;
}
