import type { Api } from '../api';
import { ADMIN, OPENAPI, readList, resourceProvider, type PageReader } from './resource';
import type { KeyScope, Schemas } from './types';

/** Allowed origins as typed in the panel: separated by commas, spaces or new lines. */
export function parseOrigins(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/** The body of a key request: only what was given (the API defaults scope to `full` and origins to any). */
export function keyBody(data: { label?: string; scope?: KeyScope; allowedOrigins?: string[] | string }): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const label = data.label?.trim();
  if (label) body.label = label;
  if (data.scope) body.scope = data.scope;
  const origins = typeof data.allowedOrigins === 'string' ? parseOrigins(data.allowedOrigins) : (data.allowedOrigins ?? []);
  if (origins.length > 0) body.allowedOrigins = origins;
  return body;
}

/** A frontend's ad fetch (endpoint 5) with a publishable key, to paste into a page. */
export function servingSnippet(baseUrl: string, apiKey: string): string {
  return [
    `const response = await fetch(`,
    `  '${baseUrl}/api/v2/openapi/matching/ad?' +`,
    `    new URLSearchParams({ adBlockId: 'YOUR_AD_BLOCK_ID', openId: userId, type: 'messenger', limit: '3' }),`,
    `  { headers: { 'x-api-key': '${apiKey}' } },`,
    `);`,
    `const { data } = await response.json(); // data.ads: the ads to show`,
  ].join('\n');
}

/** The route of an account's keys through the admin API, or (null) of the caller's own through the self-service routes. */
const keysPath = (accountId: string | null) => (accountId === null ? `${OPENAPI}/account/keys` : `${ADMIN}/accounts/${encodeURIComponent(accountId)}/keys`);

/**
 * `keys`: the API keys of the account the filter names (`accountId`), or the caller's own (`own: true`); no filter,
 * no keys. The API answers the whole list at once.
 */
export function keysProvider(api: Api) {
  const pages =
    (accountId: string | null): PageReader =>
    async () => {
      const data = await api<Schemas['KeyListDto']>(keysPath(accountId));
      const keys = data.keys.map((key) => ({ ...key, id: key.keyId, ...(accountId === null ? {} : { accountId }) }));
      return { items: keys, total: keys.length };
    };
  return resourceProvider('keys', {
    getList: async (params) => {
      const { accountId, own, ...rest } = (params.filter ?? {}) as Record<string, unknown>;
      const whose = own === true ? null : typeof accountId === 'string' && accountId ? accountId : undefined;
      if (whose === undefined) return { data: [], total: 0 };
      return readList(pages(whose), { ...params, filter: rest, pagination: { page: 1, perPage: 1000 } });
    },
    create: async (data) => {
      const { accountId, own } = data as { accountId: string; own?: boolean };
      const body = keyBody(data);
      const { keyId, apiKey, scope } = await api<Schemas['KeyCreatedDto']>(keysPath(own === true ? null : accountId), { body });
      return { id: keyId, keyId, ...(own === true ? {} : { accountId }), label: body.label ?? '', scope, apiKey };
    },
  });
}

export function keyCalls(api: Api) {
  return {
    /** Revokes any key (admin API), or with `own` one of the caller's own keys (self-service). */
    revokeKey: (keyId: string, options: { own?: boolean } = {}) =>
      options.own ? api(`${OPENAPI}/account/keys/revoke`, { body: { keyId } }) : api(`${ADMIN}/keys/${encodeURIComponent(keyId)}/revoke`, { body: {} }),
  };
}
