import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ACCOUNTS_CONFIG, AccountsConfig } from './accounts.config';
import { RUNTIME_CONFIG, RuntimeConfig } from '../common/runtime.config';
import { ChangeBus } from '../common/change-bus';
import { ForbiddenError, NotFoundError, ValidationError } from '../common/errors';
import { canonicalTimeZone, DEFAULT_TIME_ZONE, scheduleZoneChange, ZoneSchedule } from '../common/time-zone';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { AccountRepository } from './account.repository';
import { generateApiKey, generatePostbackToken, generateWebhookSecret, hashApiKey } from './api-key-secret';
import { Account, Role } from './entities/account.entity';
import { ApiKey, BootstrapKind } from './entities/api-key.entity';
import type { KeyScope } from './key-access';
import { LruCache } from '../common/lru-cache';
import { readWithinDeadline, staleReads } from '../common/stale-reads';
import { Principal } from './principal';
import { PrincipalResolver } from './principal-resolver';

export interface KeyOptions {
  scope: KeyScope;
  label: string;
  /** null or empty: usable from any origin. */
  allowedOrigins: string[] | null;
}

const MAX_CACHED_KEYS = 50_000;
/** Change notice topic: this account's webhook secret was replaced. */
const WEBHOOK_SECRET_CHANGED = 'webhookSecret';
const SANDBOX_ROLES: Role[] = ['advertiser', 'publisher', 'partner'];

/** Told of an account's new zone schedule once it is stored (the campaigns feature keeps a copy on its rows). */
export type ZoneScheduleListener = (accountId: string, schedule: ZoneSchedule) => Promise<void>;

@Injectable()
export class AccountsService implements OnModuleInit {
  private readonly logger = new Logger(AccountsService.name);
  /** Account id -> webhook secret, for checking signed viewers on the ad path; a rotation reaches every process by notice. */
  private readonly secretCache = new LruCache<string, { secret: string; expiresAt: number; loadedAt: number }>(MAX_CACHED_KEYS);
  /** Secrets loaded before this are reloaded at their next use (the change notices were lost meanwhile). */
  private secretsStaleBefore = 0;
  private readonly zoneListeners: ZoneScheduleListener[] = [];

  constructor(
    private readonly accounts: AccountRepository,
    @Inject(ACCOUNTS_CONFIG) private readonly accountsConfig: AccountsConfig,
    @Inject(RUNTIME_CONFIG) private readonly runtimeConfig: RuntimeConfig,
    private readonly changes: ChangeBus,
    private readonly principals: PrincipalResolver,
    private readonly clock: Clock,
  ) {
    changes.on(WEBHOOK_SECRET_CHANGED, (accountId) => this.secretCache.delete(accountId));
    changes.onReconnect(() => (this.secretsStaleBefore = Date.now()));
  }

  async onModuleInit(): Promise<void> {
    if (this.accountsConfig.adminApiKey) await this.ensureKeyAccount(this.accountsConfig.adminApiKey, 'admin', ['admin'], false);
    if (this.runtimeConfig.appEnv === 'test' && this.accountsConfig.testApiKey) {
      await this.ensureKeyAccount(this.accountsConfig.testApiKey, 'sandbox', SANDBOX_ROLES, true);
    }
  }

  /** The cached principal of a key (see PrincipalResolver.cached), for inspection. */
  cachedPrincipal(rawKey: string | string[] | undefined): Principal | null | undefined {
    return this.principals.cached(rawKey);
  }

  /** How many key lookups reached the database since start (a cached key costs none). */
  get keyDatabaseLookups(): number {
    return this.principals.databaseLookups;
  }

  async createAccount(name: string, roles: Role[], timeZone = DEFAULT_TIME_ZONE): Promise<{ account: Account; apiKey: string; keyId: string }> {
    const apiKey = generateApiKey();
    const { account, key } = await this.accounts.createAccountWithKey(this.newAccount(name, roles, false, timeZone), (accountId) =>
      this.newKey(accountId, apiKey, { scope: 'full', label: 'first key', allowedOrigins: null }),
    );
    return { account, apiKey, keyId: key.id };
  }

  async listAccounts(skip: number, take: number): Promise<[Account[], number]> {
    return this.accounts.page(skip, take);
  }

  async getAccount(accountId: string): Promise<Account> {
    const account = await this.accounts.findAccount(accountId);
    if (!account) throw new NotFoundError('accountId', 'account');
    return account;
  }

  /**
   * Asks for the account's days to follow `timeZone` (an IANA name): the zone in force keeps today, and the new one
   * applies from its next local midnight, so a budget day is never cut short or counted twice by a change.
   */
  async changeTimeZone(accountId: string, timeZone: string): Promise<Account> {
    const zone = canonicalTimeZone(timeZone);
    if (zone === null) throw ValidationError.of('timeZone', 'must be an IANA time zone name such as Europe/Berlin or UTC');
    const account = await this.getAccount(accountId);
    const schedule = scheduleZoneChange(account, zone, this.clock.now());
    Object.assign(account, schedule);
    await this.accounts.setTimeZoneSchedule(accountId, account);
    for (const listener of this.zoneListeners) await listener(accountId, schedule);
    return account;
  }

  /** Calls `listener` after every change of an account's zone schedule (before the change is answered). */
  onTimeZoneChange(listener: ZoneScheduleListener): void {
    this.zoneListeners.push(listener);
  }

  /** The account's zone schedule as stored (UTC days for an account that never chose a zone). */
  async zoneScheduleOf(accountId: string): Promise<ZoneSchedule> {
    const { timeZone, nextTimeZone, timeZoneChangesAt } = await this.getAccount(accountId);
    return { timeZone, nextTimeZone, timeZoneChangesAt };
  }

  /**
   * A new webhook secret: verification calls are signed with it from the moment this commits, and viewer tokens
   * signed with the old one stop being accepted (in other processes within the change notice's delivery).
   */
  async rotateWebhookSecret(accountId: string): Promise<Account> {
    const account = await this.getAccount(accountId);
    const previous = { secret: account.webhookSecret, rotatedAt: Date.now() };
    account.webhookSecret = generateWebhookSecret();
    await this.accounts.setWebhookSecret(accountId, account.webhookSecret, previous);
    this.secretCache.delete(accountId);
    this.changes.publish(WEBHOOK_SECRET_CHANGED, accountId);
    return account;
  }

  /** The account as `account/me` shows it: an advertiser's made before postbacks existed gets its postback token now. */
  async ownAccount(accountId: string): Promise<Account> {
    const account = await this.getAccount(accountId);
    if (account.postbackToken === null && takesPostbacks(account.roleList)) {
      account.postbackToken = generatePostbackToken();
      await this.accounts.setPostbackToken(accountId, account.postbackToken);
    }
    return account;
  }

  /** A new postback token: postback URLs with the old one are refused (401) from the moment this commits. */
  async rotatePostbackToken(accountId: string): Promise<Account> {
    const account = await this.getAccount(accountId);
    account.postbackToken = generatePostbackToken();
    await this.accounts.setPostbackToken(accountId, account.postbackToken);
    return account;
  }

  /** The id of the advertiser (or admin) account a postback token names, or null. */
  async advertiserOfPostbackToken(postbackToken: string): Promise<string | null> {
    // within the read deadline: a postback then waits on the database only for its write (src/common/write-deadline.ts)
    const account = await readWithinDeadline(this.accounts.accountByPostbackToken(postbackToken));
    return account !== null && takesPostbacks(account.roleList) ? account.id : null;
  }

  /** The account's webhook secret (remembered for KEY_CACHE_TTL_MS); null for an unknown account. */
  async webhookSecretOf(accountId: string): Promise<string | null> {
    const cached = this.secretCache.get(accountId);
    if (cached) {
      // past its life: answered while it is read again (stale while revalidate, src/common/stale-reads.ts)
      if (cached.expiresAt <= Date.now() || cached.loadedAt < this.secretsStaleBefore) {
        staleReads.stale('webhookSecrets', accountId, () => this.loadSecret(accountId));
      }
      return cached.secret;
    }
    return readWithinDeadline(this.loadSecret(accountId));
  }

  private async loadSecret(accountId: string): Promise<string | null> {
    const now = Date.now();
    const secret = await this.accounts.webhookSecretOf(accountId);
    if (secret === null) {
      this.secretCache.delete(accountId);
      return null;
    }
    if (this.accountsConfig.keyCacheTtlMs > 0) {
      this.secretCache.set(accountId, { secret, expiresAt: now + this.accountsConfig.keyCacheTtlMs, loadedAt: now });
    }
    return secret;
  }

  async issueKey(accountId: string, options: KeyOptions): Promise<{ key: ApiKey; apiKey: string }> {
    await this.getAccount(accountId);
    const apiKey = generateApiKey();
    const key = await this.accounts.saveKey(this.newKey(accountId, apiKey, options));
    return { key, apiKey };
  }

  async listKeys(accountId: string): Promise<ApiKey[]> {
    await this.getAccount(accountId);
    return this.accounts.keysOf(accountId);
  }

  /** Revokes any key (admin API). */
  async revokeKey(keyId: string): Promise<ApiKey> {
    const key = await this.accounts.findKey(keyId);
    if (!key) throw new NotFoundError('keyId', 'key');
    return this.revoke(key);
  }

  /** Self-service: a new key for the caller's own account. */
  async issueOwnKey(principal: Principal, options: KeyOptions): Promise<{ key: ApiKey; apiKey: string }> {
    this.assertMayManageKeys(principal);
    return this.issueKey(principal.accountId, options);
  }

  async listOwnKeys(principal: Principal): Promise<ApiKey[]> {
    this.assertMayManageKeys(principal);
    return this.listKeys(principal.accountId);
  }

  /** Revokes one of the caller's own keys; another account's key answers like an unknown one. */
  async revokeOwnKey(principal: Principal, keyId: string): Promise<ApiKey> {
    this.assertMayManageKeys(principal);
    const key = await this.accounts.findKey(keyId, principal.accountId);
    if (!key) throw new NotFoundError('keyId', 'key');
    return this.revoke(key);
  }

  /** The published test key is everyone's: whoever holds it could revoke it, or mint keys that outlive it. */
  private assertMayManageKeys(principal: Principal): void {
    if (principal.sandbox) throw new ForbiddenError('the published test key (TEST_API_KEY) cannot manage keys');
  }

  private async revoke(key: ApiKey): Promise<ApiKey> {
    if (key.revokedAt === null) {
      key.revokedAt = Date.now();
      await this.accounts.setKeyRevokedAt(key.id, key.revokedAt);
    }
    this.principals.forget(key);
    return key;
  }

  private newAccount(name: string, roles: Role[], sandbox: boolean, timeZone = DEFAULT_TIME_ZONE): Account {
    return this.accounts.buildAccount({
      id: newId(),
      name,
      roles: [...new Set(roles)].join(','),
      webhookSecret: generateWebhookSecret(),
      postbackToken: takesPostbacks(roles) ? generatePostbackToken() : null,
      sandbox,
      createdAt: Date.now(),
      timeZone: canonicalTimeZone(timeZone) ?? DEFAULT_TIME_ZONE,
      nextTimeZone: null,
      timeZoneChangesAt: null,
    });
  }

  private newKey(accountId: string, apiKey: string, options: KeyOptions, bootstrap: BootstrapKind | null = null): ApiKey {
    const origins = options.allowedOrigins && options.allowedOrigins.length > 0 ? [...new Set(options.allowedOrigins)] : null;
    return this.accounts.buildKey({
      id: newId(),
      accountId,
      keyHash: hashApiKey(apiKey),
      label: options.label,
      scope: options.scope,
      allowedOrigins: origins === null ? null : origins.join(' '),
      bootstrap,
      createdAt: Date.now(),
      revokedAt: null,
    });
  }

  /**
   * Makes sure a configured key (ADMIN_API_KEY, TEST_API_KEY) belongs to an account; safe when processes race.
   * A new value (the variable was rotated) revokes the key of the previous value and joins its account.
   */
  private async ensureKeyAccount(rawKey: string, name: BootstrapKind, roles: Role[], sandbox: boolean): Promise<void> {
    const existing = await this.accounts.findKeyByHash(hashApiKey(rawKey));
    if (existing) {
      if (existing.revokedAt !== null) this.logger.warn(`the configured ${name} key was revoked; it stays revoked`);
      return;
    }
    const options: KeyOptions = { scope: 'full', label: `${name} key from the environment`, allowedOrigins: null };
    try {
      const { revoked, replaced } = await this.accounts.registerBootstrapKey(
        name,
        () => this.newAccount(name, roles, sandbox),
        (accountId) => this.newKey(accountId, rawKey, options, name),
        Date.now(),
      );
      if (replaced) this.logger.warn(`the configured ${name} key changed: the previous one is revoked`);
      for (const key of revoked) {
        this.principals.forget(key);
      }
      this.logger.log(`the configured ${name} key is registered`);
    } catch (error) {
      // Another process created it between our read and write: the unique key hash kept it single.
      if (!(await this.accounts.findKeyByHash(hashApiKey(rawKey)))) throw error;
    }
  }
}

/** Accounts that report conversions: advertisers (and admins, who hold every role). */
function takesPostbacks(roles: Role[]): boolean {
  return roles.includes('advertiser') || roles.includes('admin');
}
