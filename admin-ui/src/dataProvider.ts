import type { CreateResult, DataProvider, GetListParams, GetListResult, GetManyReferenceParams, Identifier, RaRecord, UpdateResult } from 'react-admin';
import { api as defaultApi, type Api } from './api';
import type { Me } from './authProvider';

const OPENAPI = '/api/v2/openapi';
const ADMIN = '/api/v2/admin';
/** The API's largest page: used when the panel has to filter or sort on its side. */
const MAX_PAGE_SIZE = 100;
/** When filtering on the panel's side, at most this many items are read (50 pages of 100). */
const MAX_FILTERED_ITEMS = 5000;

const DAY_MS = 86_400_000;
/** Budgets and stats count days in UTC. */
export const startOfUtcDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

export type StatusAction = 'start' | 'paused' | 'end';
export type Granularity = 'hour' | 'day';
export interface SeriesRange {
  from?: number;
  to?: number;
  granularity?: Granularity;
}

interface PagedList {
  items: RaRecord[];
  total: number;
}

/** A form's values, or an API record: named fields of any shape, read field by field. */
export type FormData = Record<string, unknown>;

/** One bucket of a stats series: its start (ms) and its counters (which ones depends on the resource). */
export interface SeriesPoint {
  time: number;
  [counter: string]: number;
}

/** What the Reports page asks for (GET /report). */
export interface ReportQuery {
  groupBy?: string;
  from?: number;
  to?: number;
  timeZone?: string;
}

export interface ReportAnswer {
  timeZone: string;
  from: number;
  to: number;
  groupBy: string[];
  rows: Record<string, string | number>[];
  totals: Record<string, number>;
}

/** One call to an advertiser's verification endpoint (GET ad/campaign/verification). */
export interface VerificationCall {
  clickId: string;
  attempt: number;
  outcome: string;
  httpStatus?: number | null;
  latencyMs: number;
  error?: string | null;
  calledAt: number;
}

/** A campaign's verification health: the endpoint, its clicks by outcome and the latest calls. */
export interface VerificationHealth {
  verificationUrl?: string | null;
  clicks: Record<'verified' | 'unverified' | 'pending' | 'error', number>;
  calls: VerificationCall[];
}

/** One reward callback of a rewarded block (GET ad/block/rewards). */
export interface RewardDelivery {
  eventId: string;
  messengerUserId: string;
  campaignId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** What a test call to a block's rewardUrl answered (POST ad/block/rewards/test). */
export interface RewardTestResult {
  statusCode: number | null;
  ms: number;
  error: string | null;
}

/** One batch of a profile import (GET user/profile/batch/status). */
export interface ProfileBatchStatus {
  batchId: string;
  status: 'queued' | 'processing' | 'done' | 'failed';
  total: number;
  processed: number;
  attempts?: number;
  error?: string | null;
}

/** An API key as the key lists answer it (no secret). */
export interface ApiKey {
  keyId: string;
  label: string;
  scope: KeyScope;
  allowedOrigins?: string[] | null;
  active?: boolean;
  createdAt?: number;
}
/** A key as the panel lists it: with its react-admin `id` (the key id). */
export type ApiKeyRecord = ApiKey & RaRecord;

/** A record as a detail or update endpoint answers it, before it gets its react-admin `id`. */
type ApiRecord<IdField extends string> = { [field in IdField]: string } & Record<string, unknown>;
/** A page of a list endpoint: its items under `listField`, and the total. */
type ApiPage<ListField extends string, Item> = { [field in ListField]: Item[] } & { total: number };
interface SeriesAnswer {
  series: SeriesPoint[];
}
type PageReader = (current: number, pageSize: number) => Promise<PagedList>;

/** What ad/campaign/forecast answers. */
export interface CampaignForecast {
  dailyRequests: number;
  dailyImpressions: number;
  dailyClicks: number;
  dailySpend: number;
  daysToSpendTotal: number | null;
  limitedBy: 'budget' | 'bid' | 'inventory' | 'schedule';
}

/** The fields of the campaign shape the create/update endpoints take; stats and ids are left out. */
export function campaignBody(data: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of ['name', 'targeting', 'budget', 'bidding', 'ad', 'optimizationEvent', 'category'] as const) {
    if (data[key] !== undefined) body[key] = data[key];
  }
  const url = typeof data.verificationUrl === 'string' ? data.verificationUrl.trim() : data.verificationUrl;
  if (url) body.verificationUrl = url;
  const frequencyCap = frequencyCapBody(data.frequencyCap);
  if (frequencyCap) body.frequencyCap = frequencyCap;
  return body;
}

/** The frequency cap's filled-in fields; undefined when both are empty (no cap). A half-filled one goes as it is: the API names the missing field. */
export function frequencyCapBody(value: unknown): Record<string, unknown> | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const cap: Record<string, unknown> = {};
  for (const key of ['impressions', 'hours'] as const) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined && field !== null && field !== '') cap[key] = field;
  }
  return Object.keys(cap).length > 0 ? cap : undefined;
}

/** The fields an exchange campaign's create/update take; an emptied image is left out (create) or removed (update). */
export function exchangeCampaignBody(data: FormData, forUpdate = false): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of ['name', 'icon', 'text', 'destination', 'targeting'] as const) {
    if (data[key] !== undefined) body[key] = data[key];
  }
  const image = typeof data.image === 'string' ? data.image.trim() : data.image;
  if (image) body.image = image;
  else if (forUpdate && 'image' in data) body.image = null;
  return body;
}

/**
 * The fields ad/block/create and ad/block/update take (update also needs the block id). An emptied floor is left out
 * (create) or removed with null (update); the blocked domains come from a text of names separated by commas, spaces
 * or lines.
 */
export function adBlockBody(data: FormData, forUpdate = false): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (data.name !== undefined) body.name = data.name;
  if (typeof data.requireSignedViewer === 'boolean') body.requireSignedViewer = data.requireSignedViewer;
  for (const key of ['floorCpm', 'floorCpc'] as const) {
    const value = data[key];
    if (value !== undefined && value !== null && value !== '') body[key] = value;
    else if (forUpdate && key in data) body[key] = null;
  }
  if (Array.isArray(data.blockedCategories)) body.blockedCategories = data.blockedCategories;
  if (data.blockedDomains !== undefined) body.blockedDomains = parseDomains(data.blockedDomains);
  // rewarded-ad settings (docs/REWARDED_ADS.md): an emptied URL field removes the URL
  if (typeof data.format === 'string' && data.format !== '') body.format = data.format;
  if (typeof data.rewardUrl === 'string') body.rewardUrl = data.rewardUrl.trim() === '' ? null : data.rewardUrl.trim();
  else if (data.rewardUrl === null && 'rewardUrl' in data) body.rewardUrl = null;
  for (const field of ['minViewMs', 'dailyRewardCap'] as const) if (typeof data[field] === 'number') body[field] = data[field];
  return body;
}

/** Host names from a text (commas, spaces or lines between them) or a list; empty entries dropped. */
export function parseDomains(value: unknown): unknown {
  if (Array.isArray(value)) return value;
  if (value === null || value === '') return [];
  if (typeof value !== 'string') return value;
  return value.split(/[\s,]+/).filter(Boolean);
}

/** Filters the panel applies itself: the list endpoints page but do not filter. */
export function matchesFilter(record: RaRecord, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([name, wanted]) => {
    if (wanted === undefined || wanted === null || wanted === '') return true;
    if (name === 'q') {
      const needle = String(wanted).toLowerCase();
      return ['name', 'id', 'userId'].some((field) =>
        String(record[field] ?? '')
          .toLowerCase()
          .includes(needle),
      );
    }
    const value = record[name];
    if (Array.isArray(wanted)) return wanted.length === 0 || wanted.includes(value);
    if (Array.isArray(value)) return value.includes(wanted);
    return value === wanted;
  });
}

function compare(left: unknown, right: unknown): number {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  return String(left ?? '').localeCompare(String(right ?? ''));
}

const hasFilter = (filter: Record<string, unknown> | undefined) =>
  Object.values(filter ?? {}).some((value) => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0));

/**
 * Lists are read page by page from the API (newest first, its own order). A filter, or a sort other than
 * the API's, makes the panel read every page (up to MAX_FILTERED_ITEMS) and filter, sort and page itself.
 */
async function readList(readPage: PageReader, params: Partial<GetListParams>, defaultSortField: string): Promise<GetListResult> {
  const page = params.pagination?.page ?? 1;
  const perPage = params.pagination?.perPage ?? 20;
  const sort = params.sort;
  const apiOrder = !sort?.field || (sort.field === defaultSortField && sort.order === 'DESC') || sort.field === 'id';
  if (!hasFilter(params.filter) && apiOrder && perPage <= MAX_PAGE_SIZE) {
    const { items, total } = await readPage(page, perPage);
    return { data: items, total };
  }
  const all: RaRecord[] = [];
  for (let current = 1; all.length < MAX_FILTERED_ITEMS; current++) {
    const { items, total } = await readPage(current, MAX_PAGE_SIZE);
    all.push(...items);
    if (items.length < MAX_PAGE_SIZE || all.length >= total) break;
  }
  let rows = all.filter((record) => matchesFilter(record, params.filter ?? {}));
  if (sort?.field && !apiOrder) {
    const direction = sort.order === 'ASC' ? 1 : -1;
    rows = [...rows].sort((left, right) => direction * compare(left[sort.field], right[sort.field]));
  }
  return { data: rows.slice((page - 1) * perPage, page * perPage), total: rows.length };
}

const unsupported = (what: string, resource: string) => Promise.reject(new Error(`${what} is not available for ${resource}`));

export type KeyScope = 'full' | 'serve';

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

/** react-admin's data provider over the same endpoints integrators use, plus the admin API. */
export function createDataProvider(api: Api = defaultApi) {
  const campaignPages: PageReader = async (current, pageSize) => {
    const data = await api<ApiPage<'campaigns', RaRecord>>(`${OPENAPI}/ad/campaign/list`, { query: { current, pageSize } });
    return { items: data.campaigns, total: data.total };
  };
  const adBlockPages: PageReader = async (current, pageSize) => {
    const data = await api<ApiPage<'adBlocks', ApiRecord<'adBlockId'>>>(`${OPENAPI}/ad/block/list`, { query: { current, pageSize } });
    return { items: data.adBlocks.map((block) => ({ ...block, id: block.adBlockId })), total: data.total };
  };
  const accountPages: PageReader = async (current, pageSize) => {
    const data = await api<ApiPage<'accounts', ApiRecord<'accountId'>>>(`${ADMIN}/accounts`, { query: { current, pageSize } });
    return { items: data.accounts.map((account) => ({ ...account, id: account.accountId })), total: data.total };
  };
  const exchangePages: PageReader = async (current, pageSize) => {
    const data = await api<ApiPage<'exchangeCampaigns', RaRecord>>(`${OPENAPI}/exchange/campaign/list`, { query: { current, pageSize } });
    return { items: data.exchangeCampaigns, total: data.total };
  };
  /** An account's keys through the admin API, or (own) the caller's own through the self-service routes. */
  const keyPages =
    (accountId: string | null): PageReader =>
    async () => {
      const data = await api<{ keys: ApiKey[] }>(accountId === null ? `${OPENAPI}/account/keys` : `${ADMIN}/accounts/${encodeURIComponent(accountId)}/keys`);
      const keys = data.keys.map((key) => ({ ...key, id: key.keyId, ...(accountId === null ? {} : { accountId }) }));
      return { items: keys, total: keys.length };
    };

  const getCampaign = async (id: string) => {
    const data = await api<ApiRecord<'campaignId'>>(`${OPENAPI}/ad/campaign/detail`, { query: { campaignId: id } });
    return { ...data, id: data.campaignId };
  };
  const getAdBlock = async (id: string) => {
    const data = await api<ApiRecord<'adBlockId'>>(`${OPENAPI}/ad/block/detail`, { query: { adBlockId: id } });
    return { ...data, id: data.adBlockId };
  };
  const getExchangeCampaign = async (id: string) => {
    const data = await api<ApiRecord<'exchangeCampaignId'>>(`${OPENAPI}/exchange/campaign/detail`, { query: { exchangeCampaignId: id } });
    return { ...data, id: data.exchangeCampaignId };
  };
  const getAccount = async (id: string) => {
    const data = await api<ApiRecord<'accountId'>>(`${ADMIN}/accounts/${encodeURIComponent(id)}`);
    return { ...data, id: data.accountId };
  };
  const getOneOf = (resource: string, id: string): Promise<RaRecord> => {
    switch (resource) {
      case 'campaigns':
        return getCampaign(id);
      case 'adBlocks':
        return getAdBlock(id);
      case 'accounts':
        return getAccount(id);
      case 'exchangeCampaigns':
        return getExchangeCampaign(id);
      default:
        return unsupported('getOne', resource);
    }
  };

  const provider = {
    async getList(resource: string, params: GetListParams): Promise<GetListResult> {
      switch (resource) {
        case 'campaigns':
          return readList(campaignPages, params, 'createdAt');
        case 'adBlocks':
          return readList(adBlockPages, params, 'createdAt');
        case 'accounts':
          return readList(accountPages, params, 'createdAt');
        case 'exchangeCampaigns':
          return readList(exchangePages, params, 'createdAt');
        case 'keys': {
          const { accountId, own, ...rest } = (params.filter ?? {}) as Record<string, unknown>;
          const whose = own === true ? null : typeof accountId === 'string' && accountId ? accountId : undefined;
          if (whose === undefined) return { data: [], total: 0 };
          return readList(keyPages(whose), { ...params, filter: rest, pagination: { page: 1, perPage: 1000 } }, 'createdAt');
        }
        default:
          return unsupported('getList', resource);
      }
    },

    async getOne(resource: string, params: { id: Identifier }) {
      return { data: await getOneOf(resource, String(params.id)) };
    },

    async getMany(resource: string, params: { ids: Identifier[] }) {
      return { data: await Promise.all(params.ids.map((id) => getOneOf(resource, String(id)))) };
    },

    async getManyReference(resource: string, params: GetManyReferenceParams) {
      return provider.getList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } });
    },

    async create(resource: string, params: { data: FormData }): Promise<CreateResult> {
      switch (resource) {
        case 'campaigns': {
          const { campaignId } = await api<{ campaignId: string }>(`${OPENAPI}/ad/campaign/create`, { body: campaignBody(params.data) });
          return { data: await getCampaign(campaignId) };
        }
        case 'adBlocks': {
          const { adBlockId } = await api<{ adBlockId: string }>(`${OPENAPI}/ad/block/create`, { body: adBlockBody(params.data) });
          return { data: await getAdBlock(adBlockId) };
        }
        case 'accounts': {
          const { accountId, apiKey } = await api<{ accountId: string; apiKey: string }>(`${ADMIN}/accounts`, {
            body: { name: params.data.name, roles: params.data.roles, timeZone: params.data.timeZone || undefined },
          });
          // The key is shown this once: the record carries it to the page that displays it.
          return { data: { ...(await getAccount(accountId)), apiKey } };
        }
        case 'exchangeCampaigns': {
          const { exchangeCampaignId } = await api<{ exchangeCampaignId: string }>(`${OPENAPI}/exchange/campaign/create`, {
            body: exchangeCampaignBody(params.data),
          });
          return { data: await getExchangeCampaign(exchangeCampaignId) };
        }
        case 'keys': {
          const { accountId, own } = params.data as { accountId: string; own?: boolean };
          const body = keyBody(params.data);
          const path = own === true ? `${OPENAPI}/account/keys` : `${ADMIN}/accounts/${encodeURIComponent(accountId)}/keys`;
          const { keyId, apiKey, scope } = await api<{ keyId: string; apiKey: string; scope: KeyScope }>(path, { body });
          return { data: { id: keyId, keyId, ...(own === true ? {} : { accountId }), label: body.label ?? '', scope, apiKey } };
        }
        default:
          return unsupported('create', resource);
      }
    },

    async update(resource: string, params: { id: Identifier; data: FormData }): Promise<UpdateResult> {
      if (resource === 'exchangeCampaigns') {
        const body = { exchangeCampaignId: String(params.id), ...exchangeCampaignBody(params.data, true) };
        const data = await api<ApiRecord<'exchangeCampaignId'>>(`${OPENAPI}/exchange/campaign/update`, { body });
        return { data: { ...data, id: data.exchangeCampaignId } };
      }
      if (resource === 'adBlocks') {
        const data = await api<ApiRecord<'adBlockId'>>(`${OPENAPI}/ad/block/update`, {
          body: { adBlockId: String(params.id), ...adBlockBody(params.data, true) },
        });
        return { data: { ...data, id: data.adBlockId } };
      }
      if (resource !== 'campaigns') return unsupported('update', resource);
      const body: Record<string, unknown> = { campaignId: String(params.id), ...campaignBody(params.data) };
      // An emptied verification URL removes it.
      if (!body.verificationUrl && 'verificationUrl' in params.data) body.verificationUrl = null;
      // Emptied cap fields remove the cap.
      if (!body.frequencyCap && 'frequencyCap' in params.data) body.frequencyCap = null;
      const data = await api<ApiRecord<'campaignId'>>(`${OPENAPI}/ad/campaign/update`, { body });
      return { data: { ...data, id: data.campaignId } };
    },

    updateMany: (resource: string) => unsupported('updateMany', resource),
    delete: (resource: string) => unsupported('delete', resource),
    deleteMany: (resource: string) => unsupported('deleteMany', resource),

    // Beyond CRUD: the calls the panel's buttons and charts make.
    me: () => api<Me>(`${OPENAPI}/account/me`),
    rotateWebhookSecret: () => api<Me>(`${OPENAPI}/account/webhook-secret/rotate`, { body: {} }),
    /** A create body (and `campaignId` for an edit of one's own campaign) forecast over a day; nothing is stored. */
    forecastCampaign: (body: Record<string, unknown>) => api<CampaignForecast>(`${OPENAPI}/ad/campaign/forecast`, { body }),
    changeTimeZone: (timeZone: string) => api<Me>(`${OPENAPI}/account/update`, { body: { timeZone } }),
    rotatePostbackToken: () => api<Me>(`${OPENAPI}/account/postback-token/rotate`, { body: {} }),
    /** A report (GET /report, JSON): rows grouped by up to 3 dimensions, and their totals. */
    report: (query: ReportQuery) => api<ReportAnswer>(`${OPENAPI}/report`, { query: { ...query } }),
    setCampaignStatus: (campaignId: string, status: StatusAction) => api(`${OPENAPI}/ad/campaign/status`, { body: { campaignId, status } }),
    campaignSeries: (campaignId: string, range: SeriesRange = {}) =>
      api<SeriesAnswer>(`${OPENAPI}/ad/campaign/stats`, { query: { campaignId, ...range } }).then((data) => data.series),
    /** What the campaign spent in the current UTC day (its daily budget's day): the cost of today's stats bucket. */
    adBlockSeries: (adBlockId: string, range: SeriesRange = {}) =>
      api<SeriesAnswer>(`${OPENAPI}/ad/block/stats`, { query: { adBlockId, ...range } }).then((data) => data.series),
    rewardLog: (adBlockId: string, pageSize = 50) =>
      api<{ rewards: RewardDelivery[]; total: number }>(`${OPENAPI}/ad/block/rewards`, { query: { adBlockId, pageSize } }),
    replayReward: (eventId: string) => api<RewardDelivery>(`${OPENAPI}/ad/block/rewards/replay`, { body: { eventId } }),
    testReward: (adBlockId: string) => api<RewardTestResult>(`${OPENAPI}/ad/block/rewards/test`, { body: { adBlockId } }),
    verificationHealth: (campaignId: string, limit = 20) => api<VerificationHealth>(`${OPENAPI}/ad/campaign/verification`, { query: { campaignId, limit } }),
    setExchangeCampaignStatus: (exchangeCampaignId: string, status: StatusAction) =>
      api(`${OPENAPI}/exchange/campaign/status`, { body: { exchangeCampaignId, status } }),
    exchangeCampaignSeries: (exchangeCampaignId: string, range: SeriesRange = {}) =>
      api<SeriesAnswer>(`${OPENAPI}/exchange/campaign/stats`, { query: { exchangeCampaignId, ...range } }).then((data) => data.series),
    /**
     * Sends a CSV file as is (the API streams it) and answers `{batchIds, total}`: one batch per 5000 rows. The profiles
     * are the caller's own; an admin names the publisher they are for (`publisherId`).
     */
    importProfilesCsv: (file: Blob, publisherId?: string) =>
      api<{ batchIds: string[]; total: number }>(`${OPENAPI}/user/profile/batch/csv`, {
        query: { publisherId },
        raw: { body: file, contentType: 'text/csv' },
      }),
    profileBatchStatus: (batchId: string) => api<ProfileBatchStatus>(`${OPENAPI}/user/profile/batch/status`, { query: { batchId } }),
    /** Revokes any key (admin API), or with `own` one of the caller's own keys (self-service). */
    revokeKey: (keyId: string, options: { own?: boolean } = {}) =>
      options.own ? api(`${OPENAPI}/account/keys/revoke`, { body: { keyId } }) : api(`${ADMIN}/keys/${encodeURIComponent(keyId)}/revoke`, { body: {} }),
  };
  return provider;
}

export type AdnetDataProvider = ReturnType<typeof createDataProvider> & DataProvider;
export const dataProvider = createDataProvider() as unknown as AdnetDataProvider;
