import type { Api } from '../api';
import type { Me } from '../authProvider';
import { ADMIN, OPENAPI, readList, resourceProvider, type PageReader } from './resource';
import type { Schemas } from './types';

/** `accounts`: every account, through the admin API (admins only). */
export function accountsProvider(api: Api) {
  const pages: PageReader = async (current, pageSize) => {
    const data = await api<Schemas['AccountListDto']>(`${ADMIN}/accounts`, { query: { current, pageSize } });
    return { items: data.accounts.map((account) => ({ ...account, id: account.accountId })), total: data.total };
  };
  const getOne = async (id: string) => {
    const data = await api<Schemas['AccountResponseDto']>(`${ADMIN}/accounts/${encodeURIComponent(id)}`);
    return { ...data, id: data.accountId };
  };
  return resourceProvider('accounts', {
    getList: (params) => readList(pages, params),
    getOne,
    create: async (data) => {
      const { accountId, apiKey } = await api<Schemas['AccountCreatedDto']>(`${ADMIN}/accounts`, {
        body: { name: data.name, roles: data.roles, timeZone: data.timeZone || undefined },
      });
      // The key is shown this once: the record carries it to the page that displays it.
      return { ...(await getOne(accountId)), apiKey };
    },
  });
}

/** The caller's own account (My account): who it is, its secrets and its time zone. */
export function ownAccountCalls(api: Api) {
  return {
    me: () => api<Me>(`${OPENAPI}/account/me`),
    rotateWebhookSecret: () => api<Me>(`${OPENAPI}/account/webhook-secret/rotate`, { body: {} }),
    changeTimeZone: (timeZone: string) => api<Me>(`${OPENAPI}/account/update`, { body: { timeZone } }),
    rotatePostbackToken: () => api<Me>(`${OPENAPI}/account/postback-token/rotate`, { body: {} }),
  };
}
