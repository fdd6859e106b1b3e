import type { Role } from './entities/account.entity';

/** The account rows' port for the other features (the accounts feature owns the `accounts` table). */
export interface AccountStore {
  /** The account's id as stored and its roles; null for an unknown account. */
  rolesOf(accountId: string): Promise<{ id: string; roles: Role[] } | null>;
}

export const ACCOUNT_STORE = Symbol('ACCOUNT_STORE');
