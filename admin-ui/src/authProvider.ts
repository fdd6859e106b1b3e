import type { AuthProvider } from 'react-admin';
import { ACCOUNT_STORAGE, API_KEY_STORAGE, api as defaultApi, type Api } from './api';

export type Role = 'advertiser' | 'publisher' | 'partner' | 'admin';
export interface Me {
  accountId: string;
  name: string;
  roles: Role[];
  webhookSecret?: string;
  /** Advertisers: names the account in postback URLs (GET /postback?token=). */
  postbackToken?: string;
  createdAt?: number;
  /** The IANA zone of the account's days (daily budgets, day series) in force now */
  timeZone?: string;
  /** A zone asked for that applies from `timeZoneChangesAt` (a local midnight of `timeZone`) */
  nextTimeZone?: string | null;
  timeZoneChangesAt?: number | null;
}

export function storedAccount(): Me | null {
  try {
    const raw = localStorage.getItem(ACCOUNT_STORAGE);
    return raw ? (JSON.parse(raw) as Me) : null;
  } catch {
    return null;
  }
}

function forget(): void {
  localStorage.removeItem(API_KEY_STORAGE);
  localStorage.removeItem(ACCOUNT_STORAGE);
}

/**
 * Logs in with an API key: the key is checked against `account/me` and kept in local storage, then sent as
 * `x-api-key` on every call. A 401 or 403 from the API logs out (the key was revoked, or lacks the role).
 */
export function createAuthProvider(api: Api = defaultApi): AuthProvider {
  return {
    async login(params: { apiKey?: string; password?: string }) {
      const apiKey = (params.apiKey ?? params.password ?? '').trim();
      if (!apiKey) throw new Error('Enter an API key');
      let me: Me;
      try {
        me = await api<Me>('/api/v2/openapi/account/me', { apiKey });
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status === 401 || status === 403) throw new Error(`This API key was refused: ${(error as Error).message}`, { cause: error });
        throw error;
      }
      localStorage.setItem(API_KEY_STORAGE, apiKey);
      localStorage.setItem(ACCOUNT_STORAGE, JSON.stringify(me));
    },
    async logout() {
      forget();
    },
    async checkAuth() {
      if (!localStorage.getItem(API_KEY_STORAGE)) throw new Error('Log in with your API key');
    },
    async checkError(error: { status?: number }) {
      if (error?.status === 401 || error?.status === 403) {
        forget();
        throw new Error('Your API key was refused: log in again');
      }
    },
    async getIdentity() {
      const me = storedAccount();
      if (!me) throw new Error('Not logged in');
      return { id: me.accountId, fullName: me.name };
    },
    async getPermissions() {
      return storedAccount()?.roles ?? [];
    },
  };
}

export const authProvider = createAuthProvider();

export const hasRole = (permissions: unknown, role: Role): boolean =>
  Array.isArray(permissions) && (permissions.includes(role) || permissions.includes('admin'));
export const isAdmin = (permissions: unknown): boolean => Array.isArray(permissions) && permissions.includes('admin');
