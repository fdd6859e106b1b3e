import type { Role } from './entities/account.entity';

/** The account rows' port for the other features (the accounts feature owns the `accounts` table). */
export interface AccountStore {
  /** The account's id as stored and its roles; null for an unknown account. */
  rolesOf(accountId: string): Promise<{ id: string; roles: Role[] } | null>;
  /**
   * The account's webhook secret, the one before its last rotation and when that was (both null before any rotation),
   * read from the database; null for an unknown account. Signs the reward callbacks (docs/REWARDED_ADS.md).
   */
  webhookSecretsOf(accountId: string): Promise<{ webhookSecret: string; previousWebhookSecret: string | null; webhookSecretRotatedAt: number | null } | null>;
}

export const ACCOUNT_STORE = Symbol('ACCOUNT_STORE');
