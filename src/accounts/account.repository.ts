import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, DeepPartial, Repository } from 'typeorm';
import { readFromReplica } from '../database/replica-reads';
import type { AccountStore } from './account-store';
import type { ZoneSchedule } from '../common/time-zone';
import { Account, Role } from './entities/account.entity';
import { ApiKey, BootstrapKind } from './entities/api-key.entity';

/** The `accounts` and `api_keys` tables: the accounts feature's writes and reads, and the reads other features make. */
@Injectable()
export class AccountRepository implements AccountStore {
  private readonly accounts: Repository<Account>;
  private readonly keys: Repository<ApiKey>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.accounts = dataSource.getRepository(Account);
    this.keys = dataSource.getRepository(ApiKey);
  }

  async rolesOf(accountId: string): Promise<{ id: string; roles: Role[] } | null> {
    const account = await this.accounts.findOneBy({ id: accountId });
    return account ? { id: account.id, roles: account.roleList } : null;
  }

  /** New entities (not stored yet). */
  buildAccount(fields: DeepPartial<Account>): Account {
    return this.accounts.create(fields);
  }

  buildKey(fields: DeepPartial<ApiKey>): ApiKey {
    return this.keys.create(fields);
  }

  /** An account and its first key, in one transaction. */
  createAccountWithKey(account: Account, keyOf: (accountId: string) => ApiKey): Promise<{ account: Account; key: ApiKey }> {
    return this.dataSource.transaction(async (manager) => {
      const saved = await manager.save(account);
      const key = await manager.save(keyOf(saved.id));
      return { account: saved, key };
    });
  }

  /** Newest first, with the total (a list: read from a replica). */
  page(skip: number, take: number): Promise<[Account[], number]> {
    return readFromReplica(this.dataSource, (manager) => manager.findAndCount(Account, { order: { id: 'DESC' }, skip, take }));
  }

  findAccount(id: string): Promise<Account | null> {
    return this.accounts.findOneBy({ id });
  }

  async setTimeZoneSchedule(accountId: string, schedule: ZoneSchedule): Promise<void> {
    const { timeZone, nextTimeZone, timeZoneChangesAt } = schedule;
    await this.accounts.update({ id: accountId }, { timeZone, nextTimeZone, timeZoneChangesAt });
  }

  async setWebhookSecret(accountId: string, webhookSecret: string, previous?: { secret: string; rotatedAt: number }): Promise<void> {
    const rotation = previous ? { previousWebhookSecret: previous.secret, webhookSecretRotatedAt: previous.rotatedAt } : {};
    await this.accounts.update({ id: accountId }, { webhookSecret, ...rotation });
  }

  /** The account's webhook secret with the one before its last rotation; null for an unknown account. */
  webhookSecretsOf(accountId: string): Promise<Pick<Account, 'webhookSecret' | 'previousWebhookSecret' | 'webhookSecretRotatedAt'> | null> {
    return this.accounts.findOne({
      where: { id: accountId },
      select: { id: true, webhookSecret: true, previousWebhookSecret: true, webhookSecretRotatedAt: true },
    });
  }

  async setPostbackToken(accountId: string, postbackToken: string): Promise<void> {
    await this.accounts.update({ id: accountId }, { postbackToken });
  }

  /** The advertiser account a postback token names, or null. */
  async accountByPostbackToken(postbackToken: string): Promise<Account | null> {
    return this.accounts.findOneBy({ postbackToken });
  }

  /** The account's webhook secret; null for an unknown account. */
  async webhookSecretOf(accountId: string): Promise<string | null> {
    const account = await this.accounts.findOne({ where: { id: accountId }, select: { id: true, webhookSecret: true } });
    return account ? account.webhookSecret : null;
  }

  saveKey(key: ApiKey): Promise<ApiKey> {
    return this.keys.save(key);
  }

  /** The account's keys, newest first. */
  keysOf(accountId: string): Promise<ApiKey[]> {
    return this.keys.find({ where: { accountId }, order: { id: 'DESC' } });
  }

  /** A key by id, of one account when `accountId` is given. */
  findKey(id: string, accountId?: string): Promise<ApiKey | null> {
    return this.keys.findOneBy(accountId === undefined ? { id } : { id, accountId });
  }

  findKeyByHash(keyHash: string): Promise<ApiKey | null> {
    return this.keys.findOneBy({ keyHash });
  }

  async setKeyRevokedAt(keyId: string, revokedAt: number): Promise<void> {
    await this.keys.update({ id: keyId }, { revokedAt });
  }

  /**
   * In one transaction: revokes the live keys a configured key of this kind registered before, joins their account
   * (or saves `newAccount`), and saves the new key. Answers the keys it revoked and whether there were earlier ones.
   */
  registerBootstrapKey(
    kind: BootstrapKind,
    newAccount: () => Account,
    keyOf: (accountId: string) => ApiKey,
    now: number,
  ): Promise<{ revoked: ApiKey[]; replaced: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      const previous = await manager.find(ApiKey, { where: { bootstrap: kind }, order: { id: 'DESC' } });
      const revoked: ApiKey[] = [];
      for (const key of previous.filter((candidate) => candidate.revokedAt === null)) {
        await manager.update(ApiKey, { id: key.id }, { revokedAt: now });
        revoked.push(key);
      }
      const previousAccount = previous.length > 0 ? await manager.findOneBy(Account, { id: previous[0].accountId }) : null;
      const account = previousAccount ?? (await manager.save(newAccount()));
      await manager.save(keyOf(account.id));
      return { revoked, replaced: previous.length > 0 };
    });
  }
}
