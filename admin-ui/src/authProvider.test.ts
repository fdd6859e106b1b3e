import { beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT_STORAGE, API_KEY_STORAGE, createApiClient } from './api';
import { createAuthProvider, hasRole } from './authProvider';

function authWith(answer: (key: string | undefined) => { status: number; json: unknown }) {
  const seen: (string | undefined)[] = [];
  const fetchImpl = async (_url: RequestInfo | URL, init: RequestInit = {}) => {
    const key = (init.headers as Record<string, string>)['x-api-key'];
    seen.push(key);
    const { status, json } = answer(key);
    return new Response(JSON.stringify(json), { status });
  };
  return { auth: createAuthProvider(createApiClient(fetchImpl as typeof fetch)), seen };
}

const me = { accountId: 'a1', name: 'Acme', roles: ['advertiser', 'publisher'], webhookSecret: 's' };

describe('auth provider', () => {
  beforeEach(() => localStorage.clear());

  it('should check the key against account/me and keep it with the roles', async () => {
    const { auth, seen } = authWith(() => ({ status: 200, json: { code: 0, message: 'success', data: me } }));

    await auth.login({ apiKey: '  adn_good  ' });

    expect(seen).toEqual(['adn_good']);
    expect(localStorage.getItem(API_KEY_STORAGE)).toBe('adn_good');
    expect(JSON.parse(localStorage.getItem(ACCOUNT_STORAGE)!)).toEqual(me);
    await expect(auth.checkAuth({})).resolves.toBeUndefined();
    expect(await auth.getPermissions!({})).toEqual(['advertiser', 'publisher']);
    expect(await auth.getIdentity!()).toEqual({ id: 'a1', fullName: 'Acme' });
  });

  it('should refuse a wrong key and store nothing', async () => {
    const { auth } = authWith(() => ({
      status: 401,
      json: { code: 401, message: 'x-api-key is not a valid key (unknown or revoked)', data: {} },
    }));

    await expect(auth.login({ apiKey: 'adn_wrong' })).rejects.toThrow('This API key was refused: x-api-key is not a valid key (unknown or revoked)');
    expect(localStorage.getItem(API_KEY_STORAGE)).toBeNull();
    await expect(auth.checkAuth({})).rejects.toThrow('Log in with your API key');
  });

  it('should refuse an empty key without calling the API', async () => {
    const { auth, seen } = authWith(() => ({ status: 200, json: {} }));
    await expect(auth.login({ apiKey: ' ' })).rejects.toThrow('Enter an API key');
    expect(seen).toEqual([]);
  });

  it('should log out on 401 and 403 but not on other errors', async () => {
    const { auth } = authWith(() => ({ status: 200, json: { code: 0, message: 'success', data: me } }));
    for (const status of [401, 403]) {
      await auth.login({ apiKey: 'adn_good' });
      await expect(auth.checkError({ status })).rejects.toThrow('Your API key was refused: log in again');
      expect(localStorage.getItem(API_KEY_STORAGE)).toBeNull();
      expect(localStorage.getItem(ACCOUNT_STORAGE)).toBeNull();
    }
    await auth.login({ apiKey: 'adn_good' });
    for (const status of [400, 404, 409, 500]) await expect(auth.checkError({ status })).resolves.toBeUndefined();
    expect(localStorage.getItem(API_KEY_STORAGE)).toBe('adn_good');
    await auth.logout({});
    expect(localStorage.getItem(API_KEY_STORAGE)).toBeNull();
  });

  it('should let admin stand for every role', () => {
    expect(hasRole(['admin'], 'publisher')).toBe(true);
    expect(hasRole(['advertiser'], 'publisher')).toBe(false);
    expect(hasRole(undefined, 'publisher')).toBe(false);
  });
});
