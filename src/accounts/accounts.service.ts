import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { ChangeBus } from '../common/change-bus';
import { NotFoundError } from '../common/errors';
import { newId } from '../common/ids';
import { displayPrefix, generateApiKey, generateWebhookSecret, hashApiKey } from './api-key-secret';
import { Account, Role } from './entities/account.entity';
import { ApiKey } from './entities/api-key.entity';
import { Principal } from './principal';

interface CachedPrincipal {
  principal: Principal | null;
  expiresAt: number;
}

const MAX_CACHED_KEYS = 50_000;
const MAX_CACHED_SECRETS = 50_000;
/** Change notice topic: this account's webhook secret was replaced. */
const WEBHOOK_SECRET_CHANGED = 'webhookSecret';
const SANDBOX_ROLES: Role[] = ['advertiser', 'publisher', 'partner'];

@Injectable()
export class AccountsService implements OnModuleInit {
  private readonly logger = new Logger(AccountsService.name);
  private readonly accounts: Repository<Account>;
  private readonly keys: Repository<ApiKey>;
  /** Key hash -> principal. Keeps key checks off the database on hot paths; revocation clears it here at once, elsewhere within KEY_CACHE_TTL_MS. */
  private readonly principalCache = new Map<string, CachedPrincipal>();
  /** Account id -> webhook secret, for checking signed viewers on the ad path; a rotation reaches every process by notice. */
  private readonly secretCache = new Map<string, { secret: string; expiresAt: number }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly changes: ChangeBus,
  ) {
    this.accounts = dataSource.getRepository(Account);
    this.keys = dataSource.getRepository(ApiKey);
    changes.on(WEBHOOK_SECRET_CHANGED, (accountId) => this.secretCache.delete(accountId));
    changes.onReconnect(() => this.secretCache.clear());
  }

  async onModuleInit(): Promise<void> {
    if (this.config.adminApiKey) await this.ensureKeyAccount(this.config.adminApiKey, 'admin', ['admin'], false);
    if (this.config.appEnv === 'test' && this.config.testApiKey) {
      await this.ensureKeyAccount(this.config.testApiKey, 'sandbox', SANDBOX_ROLES, true);
    }
  }

  async authenticate(rawKey: string): Promise<Principal | null> {
    const keyHash = hashApiKey(rawKey);
    const now = Date.now();
    const cached = this.principalCache.get(keyHash);
    if (cached && cached.expiresAt > now) return this.usable(cached.principal);

    const key = await this.keys.findOneBy({ keyHash });
    const account = key && key.revokedAt === null ? await this.accounts.findOneBy({ id: key.accountId }) : null;
    const principal: Principal | null =
      key && account
        ? { accountId: account.id, keyId: key.id, roles: account.roleList, sandbox: account.sandbox }
        : null;
    if (this.principalCache.size >= MAX_CACHED_KEYS) this.principalCache.clear();
    if (this.config.keyCacheTtlMs > 0) {
      this.principalCache.set(keyHash, { principal, expiresAt: now + this.config.keyCacheTtlMs });
    }
    return this.usable(principal);
  }

  /**
   * The principal of a key already checked and still cached, without any I/O (the hot routes' fast lanes);
   * undefined when the key must go through authenticate() (never seen, expired, missing or malformed).
   */
  cachedPrincipal(rawKey: string | string[] | undefined): Principal | null | undefined {
    if (typeof rawKey !== 'string' || rawKey.length === 0 || rawKey.length > 200) return undefined;
    const cached = this.principalCache.get(hashApiKey(rawKey));
    if (!cached || cached.expiresAt <= Date.now()) return undefined;
    return this.usable(cached.principal);
  }

  /** The sandbox key is accepted only in the test environment. */
  private usable(principal: Principal | null): Principal | null {
    if (principal?.sandbox && this.config.appEnv !== 'test') return null;
    return principal;
  }

  async createAccount(name: string, roles: Role[]): Promise<{ account: Account; apiKey: string; keyId: string }> {
    const apiKey = generateApiKey();
    return this.dataSource.transaction(async (manager) => {
      const account = await manager.save(this.newAccount(name, roles, false));
      const key = await manager.save(this.newKey(account.id, apiKey, 'first key'));
      return { account, apiKey, keyId: key.id };
    });
  }

  async listAccounts(skip: number, take: number): Promise<[Account[], number]> {
    return this.accounts.findAndCount({ order: { id: 'DESC' }, skip, take });
  }

  async getAccount(accountId: string): Promise<Account> {
    const account = await this.accounts.findOneBy({ id: accountId });
    if (!account) throw new NotFoundError('accountId', 'account');
    return account;
  }

  /**
   * A new webhook secret: verification calls are signed with it from the moment this commits, and viewer tokens
   * signed with the old one stop being accepted (in other processes within the change notice's delivery).
   */
  async rotateWebhookSecret(accountId: string): Promise<Account> {
    const account = await this.getAccount(accountId);
    account.webhookSecret = generateWebhookSecret();
    await this.accounts.update({ id: accountId }, { webhookSecret: account.webhookSecret });
    this.secretCache.delete(accountId);
    this.changes.publish(WEBHOOK_SECRET_CHANGED, accountId);
    return account;
  }

  /** The account's webhook secret (remembered for KEY_CACHE_TTL_MS); null for an unknown account. */
  async webhookSecretOf(accountId: string): Promise<string | null> {
    const now = Date.now();
    const cached = this.secretCache.get(accountId);
    if (cached && cached.expiresAt > now) return cached.secret;
    const account = await this.accounts.findOne({ where: { id: accountId }, select: { id: true, webhookSecret: true } });
    if (!account) return null;
    if (this.config.keyCacheTtlMs > 0) {
      if (this.secretCache.size >= MAX_CACHED_SECRETS) this.secretCache.delete(this.secretCache.keys().next().value as string);
      this.secretCache.set(accountId, { secret: account.webhookSecret, expiresAt: now + this.config.keyCacheTtlMs });
    }
    return account.webhookSecret;
  }

  async issueKey(accountId: string, label: string): Promise<{ key: ApiKey; apiKey: string }> {
    await this.getAccount(accountId);
    const apiKey = generateApiKey();
    const key = await this.keys.save(this.newKey(accountId, apiKey, label));
    return { key, apiKey };
  }

  async listKeys(accountId: string): Promise<ApiKey[]> {
    await this.getAccount(accountId);
    return this.keys.find({ where: { accountId }, order: { id: 'DESC' } });
  }

  async revokeKey(keyId: string): Promise<ApiKey> {
    const key = await this.keys.findOneBy({ id: keyId });
    if (!key) throw new NotFoundError('keyId', 'key');
    if (key.revokedAt === null) {
      key.revokedAt = Date.now();
      await this.keys.update({ id: key.id }, { revokedAt: key.revokedAt });
    }
    this.principalCache.delete(key.keyHash);
    return key;
  }

  private newAccount(name: string, roles: Role[], sandbox: boolean): Account {
    return this.accounts.create({
      id: newId(),
      name,
      roles: [...new Set(roles)].join(','),
      webhookSecret: generateWebhookSecret(),
      sandbox,
      createdAt: Date.now(),
    });
  }

  private newKey(accountId: string, apiKey: string, label: string): ApiKey {
    return this.keys.create({
      id: newId(),
      accountId,
      keyHash: hashApiKey(apiKey),
      prefix: displayPrefix(apiKey),
      label,
      createdAt: Date.now(),
      revokedAt: null,
    });
  }

  /** Makes sure a configured key (ADMIN_API_KEY, TEST_API_KEY) belongs to an account; safe when processes race. */
  private async ensureKeyAccount(rawKey: string, name: string, roles: Role[], sandbox: boolean): Promise<void> {
    const existing = await this.keys.findOneBy({ keyHash: hashApiKey(rawKey) });
    if (existing) {
      if (existing.revokedAt !== null) this.logger.warn(`the configured ${name} key was revoked; it stays revoked`);
      return;
    }
    try {
      await this.dataSource.transaction(async (manager) => {
        const account = await manager.save(this.newAccount(name, roles, sandbox));
        await manager.save(this.newKey(account.id, rawKey, `${name} key from the environment`));
      });
      this.logger.log(`created the ${name} account for the configured key`);
    } catch (error) {
      // Another process created it between our read and write: the unique key hash kept it single.
      if (!(await this.keys.findOneBy({ keyHash: hashApiKey(rawKey) }))) throw error;
    }
  }
}
