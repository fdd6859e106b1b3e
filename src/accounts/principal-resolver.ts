import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNTS_CONFIG, AccountsConfig } from './accounts.config';
import { RUNTIME_CONFIG, RuntimeConfig } from '../common/runtime.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ChangeBus } from '../common/change-bus';
import { MetricsService } from '../metrics/metrics.service';
import { hashApiKey } from './api-key-secret';
import { Account } from './entities/account.entity';
import { ApiKey } from './entities/api-key.entity';
import { LruCache } from '../common/lru-cache';
import { readWithinDeadline, staleReads } from '../common/stale-reads';
import type { Principal } from './principal';

interface CachedPrincipal {
  principal: Principal | null;
  expiresAt: number;
}

const MAX_CACHED_KEYS = 50_000;
const MAX_KEY_LENGTH = 200;
/** Presented keys whose hash is remembered, least recently used out first: a flood of new keys costs their hashing only. */
const MAX_REMEMBERED_HASHES = 10_000;
/** Change notice naming the cache entry of a revoked key: every process forgets it at once (Redis pub/sub). */
const KEY_REVOKED = 'api-key-revoked';

type Headers = Record<string, string | string[] | undefined>;

function firstOf(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

/** The `x-api-key` header of a request (the first, if repeated). */
export function presentedKey(headers: Headers): string | undefined {
  return firstOf(headers['x-api-key']);
}

/** How a request presents its key: the key itself, or a publishable (`serve`) key by its keyId. */
export type Credential = { kind: 'key'; value: string | undefined } | { kind: 'keyId'; value: string };

/**
 * The credential of a request. Every route reads `x-api-key`. The ton-ai-sdk's routes (@SdkKeyHeaders()) also read
 * `apikey` (the SDK sends its app key in both), and without a key `x-api-id`: its app id, which here names a `serve`
 * key by its keyId. A keyId is no secret, so it stands only for a key that is public anyway (docs/CONTRACT.md §14).
 */
export function presentedCredential(headers: Headers, sdkHeaders: boolean): Credential {
  const key = presentedKey(headers) ?? (sdkHeaders ? firstOf(headers['apikey']) : undefined);
  const keyId = sdkHeaders && key === undefined ? firstOf(headers['x-api-id']) : undefined;
  return keyId === undefined ? { kind: 'key', value: key } : { kind: 'keyId', value: keyId };
}

/** The 401 message for a credential that names no usable key. */
export function unknownCredentialMessage(credential: Credential): string {
  return credential.kind === 'keyId'
    ? "x-api-id is not a publishable (serve) key's id (unknown, revoked, or the id of a full key)"
    : 'x-api-key is not a valid key (unknown or revoked)';
}

const KEY_ID_PATTERN = /^[0-9a-z]{26}$/;
/** Cache entries of keys presented by keyId; a key hash is hex, so the two never meet. */
const KEY_ID_CACHE_PREFIX = 'keyid:';

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
  /** Presented key -> its sha256: hashing the key of every request cost about 2 µs of each ad fetch. */
  private readonly keyHashes = new LruCache<string, string>(MAX_REMEMBERED_HASHES);
  private lookups = 0;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(ACCOUNTS_CONFIG) private readonly accountsConfig: AccountsConfig,
    @Inject(RUNTIME_CONFIG) private readonly runtimeConfig: RuntimeConfig,
    private readonly changes: ChangeBus,
    metrics: MetricsService,
  ) {
    this.accounts = dataSource.getRepository(Account);
    this.keys = dataSource.getRepository(ApiKey);
    this.unknownKeyCache = new LruCache(accountsConfig.unknownKeyCacheMax);
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

  /** Why a credential cannot name a key at all (the 401 message), or null when it is worth resolving. */
  malformedCredentialMessage(credential: Credential): string | null {
    if (credential.kind === 'key') return this.malformedKeyMessage(credential.value);
    return KEY_ID_PATTERN.test(credential.value) ? null : 'x-api-id is not a valid key id';
  }

  /** cached() for either kind of credential. */
  cachedCredential(credential: Credential): Principal | null | undefined {
    if (credential.kind === 'key') return this.cached(credential.value);
    return this.cachedEntry(KEY_ID_CACHE_PREFIX + credential.value);
  }

  /** resolve() for either kind of credential (checked by malformedCredentialMessage first). */
  resolveCredential(credential: Credential): Promise<Principal | null> {
    return credential.kind === 'key' ? this.resolve(credential.value!) : this.resolveKeyId(credential.value);
  }

  /** The principal of a `serve` key named by its keyId; null for an unknown or revoked one, or a full key's id. */
  private async resolveKeyId(keyId: string): Promise<Principal | null> {
    const cacheKey = KEY_ID_CACHE_PREFIX + keyId;
    const cached = this.cachedEntry(cacheKey);
    if (cached !== undefined) return cached;
    return readWithinDeadline(this.load(cacheKey));
  }

  /** Reads a cache entry's key row and remembers its principal (a key hash, or KEY_ID_CACHE_PREFIX + a serve key's id). */
  private async load(cacheKey: string): Promise<Principal | null> {
    this.lookups += 1;
    if (cacheKey.startsWith(KEY_ID_CACHE_PREFIX)) {
      const key = await this.keys.findOneBy({ id: cacheKey.slice(KEY_ID_CACHE_PREFIX.length) });
      return this.remember(cacheKey, key && key.scope === 'serve' ? key : null);
    }
    return this.remember(cacheKey, await this.keys.findOneBy({ keyHash: cacheKey }));
  }

  /** The principal of a key, from the cache or the database; null for an unknown or revoked key. */
  async resolve(rawKey: string): Promise<Principal | null> {
    const cached = this.cached(rawKey);
    if (cached !== undefined) return cached;
    // a key this process never saw (or forgot): the database must answer, within the deadline
    return readWithinDeadline(this.load(this.hashOf(rawKey)));
  }

  /** The principal of a key row (null when revoked or its account is gone), cached under `cacheKey`. */
  private async remember(cacheKey: string, key: ApiKey | null): Promise<Principal | null> {
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
    if (this.accountsConfig.keyCacheTtlMs > 0) {
      const expiresAt = Date.now() + this.accountsConfig.keyCacheTtlMs;
      if (principal) this.principalCache.set(cacheKey, { principal, expiresAt });
      else {
        this.principalCache.delete(cacheKey);
        this.unknownKeyCache.set(cacheKey, expiresAt);
      }
    }
    return this.usable(principal);
  }

  /**
   * The principal of a key already resolved and still cached, without any I/O; null for a key remembered as
   * unknown or revoked; undefined when the key must go through resolve() (never seen, expired, missing or malformed).
   */
  cached(rawKey: string | string[] | undefined): Principal | null | undefined {
    if (typeof rawKey !== 'string' || rawKey.length === 0 || rawKey.length > MAX_KEY_LENGTH) return undefined;
    return this.cachedEntry(this.hashOf(rawKey));
  }

  private hashOf(rawKey: string): string {
    let hash = this.keyHashes.get(rawKey);
    if (hash === undefined) {
      hash = hashApiKey(rawKey);
      this.keyHashes.set(rawKey, hash);
    }
    return hash;
  }

  private cachedEntry(cacheKey: string): Principal | null | undefined {
    const now = Date.now();
    const cached = this.principalCache.get(cacheKey);
    if (cached && cached.expiresAt > now) return this.usable(cached.principal);
    if (cached) {
      // past its life: answered as it was while it is read again (stale while revalidate, src/common/stale-reads.ts),
      // so a known key never waits for the database, and keeps working through its outage
      staleReads.stale('keys', cacheKey, () => this.load(cacheKey));
      return this.usable(cached.principal);
    }
    const unknownUntil = this.unknownKeyCache.peek(cacheKey);
    if (unknownUntil !== undefined && unknownUntil > now) return null;
    return undefined;
  }

  /** Forgets a revoked key here and, by change notice, in every other process (by its hash and by its keyId). */
  forget(key: { keyHash: string; id: string }): void {
    for (const cacheKey of [key.keyHash, KEY_ID_CACHE_PREFIX + key.id]) {
      this.principalCache.delete(cacheKey);
      this.changes.publish(KEY_REVOKED, cacheKey);
    }
  }

  /** How many key lookups reached the database since start (a cached key costs none). */
  get databaseLookups(): number {
    return this.lookups;
  }

  /** The sandbox key is accepted only in the test environment. */
  private usable(principal: Principal | null): Principal | null {
    if (principal?.sandbox && this.runtimeConfig.appEnv !== 'test') return null;
    return principal;
  }
}
