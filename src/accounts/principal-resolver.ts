import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ChangeBus } from '../common/change-bus';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { MetricsService } from '../metrics/metrics.service';
import { hashApiKey } from './api-key-secret';
import { Account } from './entities/account.entity';
import { ApiKey } from './entities/api-key.entity';
import { LruCache } from './lru-cache';
import type { Principal } from './principal';

interface CachedPrincipal {
  principal: Principal | null;
  expiresAt: number;
}

const MAX_CACHED_KEYS = 50_000;
const MAX_KEY_LENGTH = 200;
/** Change notice naming the hash of a revoked key: every process forgets it at once (Redis pub/sub). */
const KEY_REVOKED = 'api-key-revoked';

/** The `x-api-key` header of a request (the first, if repeated). */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const header = headers['x-api-key'];
  return Array.isArray(header) ? header[0] : header;
}

/**
 * Key -> principal, the one resolver used by the edge hook, the Nest guard, the fast lanes (through the principal
 * the edge hook leaves on the request) and the queue board.
 *
 * Key hash -> principal of a valid key, and apart from it the unknown (or revoked) keys, each a bounded LRU: a flood
 * of unknown keys never evicts a valid key's entry. Keeps key checks off the database on hot paths; a revocation
 * clears the entry in every process through a change notice (at the latest within KEY_CACHE_TTL_MS, should the
 * notice be lost).
 */
@Injectable()
export class PrincipalResolver {
  private readonly accounts: Repository<Account>;
  private readonly keys: Repository<ApiKey>;
  private readonly principalCache = new LruCache<string, CachedPrincipal>(MAX_CACHED_KEYS);
  private readonly unknownKeyCache: LruCache<string, number>;
  private lookups = 0;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly changes: ChangeBus,
    metrics: MetricsService,
  ) {
    this.accounts = dataSource.getRepository(Account);
    this.keys = dataSource.getRepository(ApiKey);
    this.unknownKeyCache = new LruCache(config.unknownKeyCacheMax);
    changes.on(KEY_REVOKED, (keyHash) => this.principalCache.delete(keyHash));
    metrics.gauge('adnet_key_cache_keys', 'Valid API keys cached in this process (key checks without the database).', () => this.principalCache.size);
    metrics.gauge(
      'adnet_key_cache_unknown_keys',
      'Unknown or revoked keys remembered in this process (refused without the database).',
      () => this.unknownKeyCache.size,
    );
  }

  /** Why a presented key cannot be a key at all (the 401 message), or null when it is worth resolving. */
  malformedKeyMessage(rawKey: string | undefined): string | null {
    if (!rawKey) return 'x-api-key header is missing';
    if (rawKey.length > MAX_KEY_LENGTH) return 'x-api-key is not a valid key';
    return null;
  }

  /** The principal of a key, from the cache or the database; null for an unknown or revoked key. */
  async resolve(rawKey: string): Promise<Principal | null> {
    const cached = this.cached(rawKey);
    if (cached !== undefined) return cached;

    const keyHash = hashApiKey(rawKey);
    this.lookups += 1;
    const key = await this.keys.findOneBy({ keyHash });
    const account = key && key.revokedAt === null ? await this.accounts.findOneBy({ id: key.accountId }) : null;
    const principal: Principal | null =
      key && account
        ? {
            accountId: account.id,
            keyId: key.id,
            roles: account.roleList,
            sandbox: account.sandbox,
            scope: key.scope,
            allowedOrigins: key.originList,
          }
        : null;
    if (this.config.keyCacheTtlMs > 0) {
      const expiresAt = Date.now() + this.config.keyCacheTtlMs;
      if (principal) this.principalCache.set(keyHash, { principal, expiresAt });
      else this.unknownKeyCache.set(keyHash, expiresAt);
    }
    return this.usable(principal);
  }

  /**
   * The principal of a key already resolved and still cached, without any I/O; null for a key remembered as
   * unknown or revoked; undefined when the key must go through resolve() (never seen, expired, missing or malformed).
   */
  cached(rawKey: string | string[] | undefined): Principal | null | undefined {
    if (typeof rawKey !== 'string' || rawKey.length === 0 || rawKey.length > MAX_KEY_LENGTH) return undefined;
    const keyHash = hashApiKey(rawKey);
    const now = Date.now();
    const cached = this.principalCache.get(keyHash);
    if (cached && cached.expiresAt > now) return this.usable(cached.principal);
    const unknownUntil = this.unknownKeyCache.peek(keyHash);
    if (unknownUntil !== undefined && unknownUntil > now) return null;
    return undefined;
  }

  /** Forgets a revoked key here and, by change notice, in every other process. */
  forget(keyHash: string): void {
    this.principalCache.delete(keyHash);
    this.changes.publish(KEY_REVOKED, keyHash);
  }

  /** How many key lookups reached the database since start (a cached key costs none). */
  get databaseLookups(): number {
    return this.lookups;
  }

  /** The sandbox key is accepted only in the test environment. */
  private usable(principal: Principal | null): Principal | null {
    if (principal?.sandbox && this.config.appEnv !== 'test') return null;
    return principal;
  }
}
