import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../../database/column-types';
import type { KeyScope } from '../key-access';

/** Which configured key a row stands for: rotating the variable revokes the previous one. */
export type BootstrapKind = 'admin' | 'sandbox';

@Entity('api_keys')
export class ApiKey {
  /** Not secret: keys are shown and revoked by this id; no clear part of the key itself is stored. */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Index('idx_api_keys_account')
  @Column({ type: 'varchar', length: 26 })
  accountId: string;

  /** SHA-256 of the key: keys carry 256 random bits, so a fast hash cannot be brute-forced. */
  @Index('uq_api_keys_hash', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  keyHash: string;

  @Column({ type: 'varchar', length: 100, default: '' })
  label: string;

  @Column({ type: 'varchar', length: 10, default: 'full' })
  scope: KeyScope;

  /** Space-separated exact origins (origins hold no spaces); null: usable from any origin. */
  @Column({ type: 'text', nullable: true })
  allowedOrigins: string | null;

  /** Set on the key made from ADMIN_API_KEY or TEST_API_KEY. */
  @Column({ type: 'varchar', length: 10, nullable: true })
  bootstrap: BootstrapKind | null;

  @Column({ type: 'bigint', transformer: bigintToNumber })
  createdAt: number;

  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  revokedAt: number | null;

  get originList(): string[] | null {
    return this.allowedOrigins === null ? null : this.allowedOrigins.split(' ').filter(Boolean);
  }
}
