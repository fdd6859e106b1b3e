import { AdnetBatchFailedError } from './errors.js';
import { OPENAPI_PATH } from './publisher.js';
import { sleep, Transport, type CallOptions, type ClientOptions } from './transport.js';
import type {
  AccountMe,
  ApiKey,
  ApiKeyCreate,
  ApiKeyCreated,
  AdBlock,
  AdBlockCreate,
  AdBlockPage,
  AdBlockSeries,
  AdBlockSeriesQuery,
  AdBlockUpdate,
  Campaign,
  CampaignCreate,
  CampaignListItem,
  CampaignPage,
  CampaignSeries,
  CampaignSeriesQuery,
  CampaignStatusAction,
  CampaignUpdate,
  ConversionResult,
  ConversionSubject,
  Report,
  ReportQuery,
  CustomEventResult,
  CustomEventType,
  ProfileBatchStatus,
  ProfileCsvImported,
  ProfileRecord,
} from './types.js';
import { CUSTOM_EVENT_TYPES } from './types.js';

/** The most records one profile batch takes (docs/CONTRACT.md §8). */
export const PROFILE_BATCH_MAX = 5000;

export interface PageQuery {
  /** Page number from 1 (default 1). */
  current?: number;
  /** 1 to 100 (default 20). */
  pageSize?: number;
}

export interface ProfileUploadProgress {
  /** Records given, and records the service has applied so far. */
  recordsTotal: number;
  recordsProcessed: number;
  /** The batches so far, in upload order, each with its latest status. */
  batches: ProfileBatchStatus[];
}

export interface ProfileUploadOptions extends CallOptions {
  /** Called after every upload and status read. */
  onProgress?: (progress: ProfileUploadProgress) => void;
  /** Time between two status reads of a batch (default 1000 ms). */
  pollIntervalMs?: number;
  /** Admins only: the publisher whose profiles these are. */
  publisherId?: string;
}

export interface ProfileUploadResult {
  recordsTotal: number;
  batches: ProfileBatchStatus[];
}

/**
 * Your server's side, with a `full` key: campaigns and their figures (advertisers), conversions and custom
 * events (advertisers), ad blocks and user profiles (publishers), your account. Never ship a `full` key to a browser.
 */
export class AdnetServerClient {
  readonly campaigns: CampaignsApi;
  readonly adBlocks: AdBlocksApi;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.campaigns = new CampaignsApi(this.transport);
    this.adBlocks = new AdBlocksApi(this.transport);
  }

  /** The account behind the key; `webhookSecret` signs verification calls and viewer tokens (see `@adnet/sdk/server`). */
  me(call?: CallOptions): Promise<AccountMe> {
    return this.transport.request({ method: 'GET', path: `${OPENAPI_PATH}/account/me`, repeatable: 'idempotent' }, call);
  }

  /** Replaces your postback token (the old one's postback URLs answer 401 from then on); answers the account with the new one. */
  rotatePostbackToken(call?: CallOptions): Promise<AccountMe> {
    return this.transport.request({ method: 'POST', path: `${OPENAPI_PATH}/account/postback-token/rotate`, repeatable: 'once' }, call);
  }

  /**
   * A report (docs/CONTRACT.md §19): your figures grouped by up to 3 of hour, day, campaign, adBlock, country, platform,
   * as JSON (at most 10,000 rows; for more, download `format=csv` from the API).
   */
  report(query: Omit<ReportQuery, 'format'> = {}, call?: CallOptions): Promise<Report> {
    return this.transport.request({ method: 'GET', path: `${OPENAPI_PATH}/report`, query: { ...query }, repeatable: 'idempotent' }, call);
  }

  /**
   * Issues a key of your account, shown this once. A `serve` key is the publishable one for your frontend
   * (`AdnetPublisher`); `allowedOrigins` limits the web pages that may use it.
   */
  issueKey(key: ApiKeyCreate, call?: CallOptions): Promise<ApiKeyCreated> {
    return this.transport.request({ method: 'POST', path: `${OPENAPI_PATH}/account/keys`, json: key, repeatable: 'once' }, call);
  }

  /** Your account's keys, without their secrets. */
  async listKeys(call?: CallOptions): Promise<ApiKey[]> {
    const { keys } = await this.transport.request<{ keys: ApiKey[] }>({ method: 'GET', path: `${OPENAPI_PATH}/account/keys`, repeatable: 'idempotent' }, call);
    return keys;
  }

  revokeKey(keyId: string, call?: CallOptions): Promise<{ result: string }> {
    return this.transport.request({ method: 'POST', path: `${OPENAPI_PATH}/account/keys/revoke`, json: { keyId }, repeatable: 'idempotent' }, call);
  }

  /**
   * Reports that this user converted (endpoint 7). It is credited to the user's latest counted click on your
   * campaigns within the attribution window, at most once per click. Only when the user truly converted (rule 5).
   */
  sendConversion(subject: string | ConversionSubject, call?: CallOptions): Promise<ConversionResult> {
    return this.transport.request(
      {
        method: 'POST',
        path: `${OPENAPI_PATH}/ad/event/report/conversion`,
        json: { eventType: 'conversion', eventData: typeof subject === 'string' ? { messengerUserId: subject } : subject },
        // Credited at most once per click, so a repeat after a lost answer cannot count twice.
        repeatable: 'idempotent',
      },
      call,
    );
  }

  /** Reports a custom event of this user (docs/CONTRACT.md §13), attributed like a conversion, once per click and type. */
  sendEvent(eventType: CustomEventType, subject: string | ConversionSubject, call?: CallOptions): Promise<CustomEventResult> {
    if (!(CUSTOM_EVENT_TYPES as readonly string[]).includes(eventType)) {
      return Promise.reject(new TypeError(`eventType must be one of ${CUSTOM_EVENT_TYPES.join(', ')}`));
    }
    return this.transport.request(
      {
        method: 'POST',
        path: `${OPENAPI_PATH}/ad/event/report/custom`,
        json: { eventType, eventData: typeof subject === 'string' ? { messengerUserId: subject } : subject },
        repeatable: 'idempotent',
      },
      call,
    );
  }

  /**
   * Uploads profiles in batches of 5000 (endpoint 10), one after the other: each batch is applied before the next
   * is sent, so when a user appears twice the later record wins, as within one batch. Resolves once every batch is
   * `done`; rejects with AdnetBatchFailedError when one fails (the batches before it are applied).
   */
  async updateUserProfiles(records: ProfileRecord[], options: ProfileUploadOptions = {}): Promise<ProfileUploadResult> {
    if (records.length === 0) throw new TypeError('records must hold at least one profile');
    const batches: ProfileBatchStatus[] = [];
    const report = () => options.onProgress?.(progressOf(records.length, batches));
    for (let start = 0; start < records.length; start += PROFILE_BATCH_MAX) {
      const list = records.slice(start, start + PROFILE_BATCH_MAX);
      const { batchId } = await this.transport.request<{ batchId: string }>(
        {
          method: 'POST',
          path: `${OPENAPI_PATH}/user/profile/batch`,
          query: { publisherId: options.publisherId },
          json: { list },
          repeatable: 'once',
        },
        options,
      );
      batches.push(queued(batchId, list.length));
      report();
      await this.waitForBatch(batches, batches.length - 1, options, report);
    }
    return { recordsTotal: records.length, batches };
  }

  /**
   * Imports a CSV file of profiles (header row `messengerUserId,walletAddress,walletClassify`, optional columns of
   * docs/CONTRACT.md §8). The service checks it whole, then splits it into batches of 5000 rows; this waits until
   * every batch is `done` (rejects with AdnetBatchFailedError when one fails).
   */
  async importProfilesCsv(csv: string | Blob | Uint8Array, options: ProfileUploadOptions = {}): Promise<ProfileUploadResult> {
    const imported = await this.transport.request<ProfileCsvImported>(
      {
        method: 'POST',
        path: `${OPENAPI_PATH}/user/profile/batch/csv`,
        query: { publisherId: options.publisherId },
        raw: { contentType: 'text/csv', body: csv },
        repeatable: 'once',
      },
      options,
    );
    const batches = imported.batchIds.map((batchId, index) => queued(batchId, Math.min(PROFILE_BATCH_MAX, imported.total - index * PROFILE_BATCH_MAX)));
    const report = () => options.onProgress?.(progressOf(imported.total, batches));
    report();
    for (let index = 0; index < batches.length; index++) await this.waitForBatch(batches, index, options, report);
    return { recordsTotal: imported.total, batches };
  }

  /** The status of one profile batch. */
  profileBatchStatus(batchId: string, call?: CallOptions): Promise<ProfileBatchStatus> {
    return this.transport.request({ method: 'GET', path: `${OPENAPI_PATH}/user/profile/batch/status`, query: { batchId }, repeatable: 'idempotent' }, call);
  }

  private async waitForBatch(batches: ProfileBatchStatus[], index: number, options: ProfileUploadOptions, report: () => void): Promise<void> {
    const pollIntervalMs = options.pollIntervalMs ?? 1000;
    for (;;) {
      const status = await this.profileBatchStatus(batches[index].batchId, options);
      batches[index] = status;
      report();
      if (status.status === 'done') return;
      if (status.status === 'failed') throw new AdnetBatchFailedError(status.batchId, status.error);
      await sleep(pollIntervalMs, options.signal);
    }
  }
}

function queued(batchId: string, total: number): ProfileBatchStatus {
  return { batchId, status: 'queued', total, processed: 0, attempts: 0, error: null, createdAt: Date.now(), finishedAt: null };
}

function progressOf(recordsTotal: number, batches: ProfileBatchStatus[]): ProfileUploadProgress {
  return { recordsTotal, recordsProcessed: batches.reduce((sum, batch) => sum + batch.processed, 0), batches: batches.map((batch) => ({ ...batch })) };
}

/**
 * Pages through a newest-first list. An item created while paging pushes the older ones down a place, so a page
 * may repeat the previous page's last items: they are given once. Stops at the first page shorter than asked.
 */
async function* everyItem<T>(readPage: (current: number) => Promise<T[]>, pageSize: number, idOf: (item: T) => string): AsyncGenerator<T> {
  const seen = new Set<string>();
  for (let current = 1; ; current++) {
    const items = await readPage(current);
    for (const item of items) {
      const id = idOf(item);
      if (seen.has(id)) continue;
      seen.add(id);
      yield item;
    }
    if (items.length < pageSize) return;
  }
}

/** Advertisers' campaigns (endpoints 1 to 4, update, series). */
export class CampaignsApi {
  constructor(private readonly transport: Transport) {}

  /** Creates a campaign; it starts `onGoing` (or `inReview` where the network reviews campaigns). */
  create(campaign: CampaignCreate, call?: CallOptions): Promise<{ campaignId: string }> {
    return this.transport.request({ method: 'POST', path: `${OPENAPI_PATH}/ad/campaign/create`, json: campaign, repeatable: 'once' }, call);
  }

  /** `start`, `paused` or `end` (final). Repeating an action is harmless. */
  setStatus(campaignId: string, status: CampaignStatusAction, call?: CallOptions): Promise<{ result: string }> {
    return this.transport.request({ method: 'POST', path: `${OPENAPI_PATH}/ad/campaign/status`, json: { campaignId, status }, repeatable: 'idempotent' }, call);
  }

  /** Changes the fields given (nested objects merge, arrays replace); answers the campaign's detail. */
  update(campaignId: string, changes: CampaignUpdate, call?: CallOptions): Promise<Campaign> {
    return this.transport.request(
      { method: 'POST', path: `${OPENAPI_PATH}/ad/campaign/update`, json: { ...changes, campaignId }, repeatable: 'idempotent' },
      call,
    );
  }

  detail(campaignId: string, call?: CallOptions): Promise<Campaign> {
    return this.transport.request({ method: 'GET', path: `${OPENAPI_PATH}/ad/campaign/detail`, query: { campaignId }, repeatable: 'idempotent' }, call);
  }

  /** One page of your campaigns, newest first. */
  page(query: PageQuery = {}, call?: CallOptions): Promise<CampaignPage> {
    return this.transport.request(
      { method: 'GET', path: `${OPENAPI_PATH}/ad/campaign/list`, query: { current: query.current, pageSize: query.pageSize }, repeatable: 'idempotent' },
      call,
    );
  }

  /** Every campaign, newest first, read page by page as the loop goes: `for await (const campaign of list())`. */
  list(options: { pageSize?: number } & CallOptions = {}): AsyncGenerator<CampaignListItem> {
    const pageSize = options.pageSize ?? 100;
    return everyItem(
      async (current) => (await this.page({ current, pageSize }, options)).campaigns,
      pageSize,
      (campaign) => campaign.id,
    );
  }

  /** Zero-filled UTC buckets of the campaign's figures; their sums equal the detail's. */
  stats(query: CampaignSeriesQuery, call?: CallOptions): Promise<CampaignSeries> {
    return this.transport.request({ method: 'GET', path: `${OPENAPI_PATH}/ad/campaign/stats`, query: { ...query }, repeatable: 'idempotent' }, call);
  }
}

/** Publishers' ad blocks (the spots ads are fetched for) and their earnings. */
export class AdBlocksApi {
  constructor(private readonly transport: Transport) {}

  create(adBlock: AdBlockCreate, call?: CallOptions): Promise<{ adBlockId: string }> {
    return this.transport.request({ method: 'POST', path: `${OPENAPI_PATH}/ad/block/create`, json: adBlock, repeatable: 'once' }, call);
  }

  /** Changes the fields given; answers the block's detail. */
  update(adBlockId: string, changes: AdBlockUpdate, call?: CallOptions): Promise<AdBlock> {
    return this.transport.request({ method: 'POST', path: `${OPENAPI_PATH}/ad/block/update`, json: { ...changes, adBlockId }, repeatable: 'idempotent' }, call);
  }

  detail(adBlockId: string, call?: CallOptions): Promise<AdBlock> {
    return this.transport.request({ method: 'GET', path: `${OPENAPI_PATH}/ad/block/detail`, query: { adBlockId }, repeatable: 'idempotent' }, call);
  }

  page(query: PageQuery = {}, call?: CallOptions): Promise<AdBlockPage> {
    return this.transport.request(
      { method: 'GET', path: `${OPENAPI_PATH}/ad/block/list`, query: { current: query.current, pageSize: query.pageSize }, repeatable: 'idempotent' },
      call,
    );
  }

  list(options: { pageSize?: number } & CallOptions = {}): AsyncGenerator<AdBlock> {
    const pageSize = options.pageSize ?? 100;
    return everyItem(
      async (current) => (await this.page({ current, pageSize }, options)).adBlocks,
      pageSize,
      (adBlock) => adBlock.adBlockId,
    );
  }

  stats(query: AdBlockSeriesQuery, call?: CallOptions): Promise<AdBlockSeries> {
    return this.transport.request({ method: 'GET', path: `${OPENAPI_PATH}/ad/block/stats`, query: { ...query }, repeatable: 'idempotent' }, call);
  }
}
