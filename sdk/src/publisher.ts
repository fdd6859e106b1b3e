import { AdnetError } from './errors.js';
import { Transport, type CallOptions, type ClientOptions } from './transport.js';
import type { ClickResult, CompletionResult, ExchangeClickResult, ExchangeEntry, ServedAd } from './types.js';

/** The service's answer to a completion sent sooner than the block's minViewMs after the serve. */
export const COMPLETION_TOO_SOON = "completion not counted: sooner than the block's minViewMs after the ad was served";
import type { components } from './generated/openapi.js';

export const OPENAPI_PATH = '/api/v2/openapi';

export interface PublisherOptions extends ClientOptions {
  /**
   * On ad blocks with `requireSignedViewer` (docs/SIGNED_VIEWERS.md): makes the `x-adnet-viewer` token for a user,
   * typically by asking your own server, which signs it with your webhook secret. Called by `getAds` / `getAd`
   * unless the call gives its own `viewerToken`.
   */
  viewerToken?: (openId: string) => string | Promise<string>;
}

export interface AdRequest {
  adBlockId: string;
  /** The user's id on the messaging platform; report the click with the same id. */
  openId: string;
  /** 1 to 9 ads (default 1). Fetching several at once is recommended. */
  limit?: number;
  /** The signed-viewer token for this user (see PublisherOptions.viewerToken). */
  viewerToken?: string;
  /** Test ads, never counted nor billed. */
  debug?: boolean;
}

export interface ExchangeRequest {
  /** Your exchange campaign, the one whose placement shows the entries. */
  exchangeCampaignId: string;
  openId: string;
  /** 1 to 9 entries (default 1). */
  limit?: number;
}

/** The most click reports remembered (the oldest are forgotten first); a browser session stays far below it. */
const REMEMBERED_REPORTS = 10_000;

/**
 * The publisher's side, for the end user's frontend (a browser, a mini-app) with a `serve` key: fetch ads and
 * exchange entries, report clicks on them. The service sees the user's IP, language and device this way, which is
 * what targeting needs (interface: ad fetch and click report from the end user's frontend).
 *
 * Clicks follow the interface's rules 2 and 3: each is reported once (a second call for the same served ad and
 * user, also while the first is in flight, answers the first call's outcome without a request), and a report that
 * got no answer, a 5xx or a 429 is retried a few times with backoff, which is safe because the service counts one
 * click per served impression.
 */
export class AdnetPublisher {
  private readonly transport: Transport;
  /** Each ad or entry this client fetched, numbered: one fetch is one impression, and one impression one click. */
  private readonly impressions = new WeakMap<object, number>();
  private impressionCount = 0;
  private readonly reports = new Map<string, Promise<unknown>>();
  /** The openId each fetched ad was fetched for: reportComplete's default user. */
  private readonly viewers = new WeakMap<object, string>();

  constructor(private readonly options: PublisherOptions) {
    this.transport = new Transport(options);
  }

  /** Ads for this user on this ad block, best first; each one answered is an impression. May be fewer than `limit`. */
  async getAds(request: AdRequest, call?: CallOptions): Promise<ServedAd[]> {
    const viewerToken = request.viewerToken ?? (await this.options.viewerToken?.(request.openId));
    const data = await this.transport.request<components['schemas']['ServedAdsDto']>(
      {
        method: 'GET',
        path: `${OPENAPI_PATH}/matching/ad`,
        query: { adBlockId: request.adBlockId, openId: request.openId, type: 'messenger', limit: request.limit ?? 1 },
        headers: { 'x-adnet-viewer': viewerToken, debug: request.debug ? 'true' : undefined },
        // A repeated fetch would bill another impression.
        repeatable: 'once',
      },
      call,
    );
    this.remember(data.ads);
    for (const ad of data.ads) this.viewers.set(ad, request.openId);
    return data.ads;
  }

  /** One ad, or null when none matches this user now. */
  async getAd(request: Omit<AdRequest, 'limit'>, call?: CallOptions): Promise<ServedAd | null> {
    const [ad] = await this.getAds({ ...request, limit: 1 }, call);
    return ad ?? null;
  }

  /** Reports that `messengerUserId` (the `openId` the ad was fetched for) clicked `ad`. Only on a real click. */
  reportClick(ad: ServedAd, messengerUserId: string, call?: CallOptions): Promise<ClickResult> {
    const key = `click:${this.impressionOf(ad, ad.adBlockId, ad.adId, ad.campaignId)}:${messengerUserId}`;
    return this.once(key, () =>
      this.transport.request<ClickResult>(
        {
          method: 'POST',
          path: `${OPENAPI_PATH}/ad/event/report`,
          json: { eventType: 'click', eventData: { adBlockId: ad.adBlockId, messengerUserId, adId: ad.adId, campaignId: ad.campaignId } },
          repeatable: 'idempotent',
        },
        call,
      ),
    );
  }

  /**
   * Reports that the user watched `ad` to the end (rewarded ad blocks, docs/REWARDED_ADS.md); `messengerUserId`
   * defaults to the `openId` this client fetched the ad for. The service decides whether it counts (at least the
   * block's `minViewMs` after the serve) and, on a rewarded block, sends your server the signed reward callback.
   * Reported once per impression like a click, except that a report the service found too early may be sent again.
   */
  reportComplete(ad: ServedAd, messengerUserId?: string, call?: CallOptions): Promise<CompletionResult> {
    const user = messengerUserId ?? this.viewers.get(ad);
    if (user === undefined) return Promise.reject(new TypeError('reportComplete: pass the messengerUserId of an ad this client did not fetch'));
    const key = `complete:${this.impressionOf(ad, ad.adBlockId, ad.adId, ad.campaignId)}:${user}`;
    const report = this.once(key, () =>
      this.transport.request<CompletionResult>(
        {
          method: 'POST',
          path: `${OPENAPI_PATH}/ad/event/report`,
          json: { eventType: 'complete', eventData: { adBlockId: ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } },
          repeatable: 'idempotent',
        },
        call,
      ),
    );
    return report.then((result) => {
      // too early: the impression is still open, so a later report is sent, not answered from memory
      if (result.msg === COMPLETION_TOO_SOON && this.reports.get(key) === report) this.reports.delete(key);
      return result;
    });
  }

  /** Other partners' entries to show in your exchange campaign's placement; each one answered is an impression. */
  async getExchangeAds(request: ExchangeRequest, call?: CallOptions): Promise<ExchangeEntry[]> {
    const data = await this.transport.request<components['schemas']['ExchangeEntriesDto']>(
      {
        method: 'GET',
        path: `${OPENAPI_PATH}/matching/exchange`,
        query: { exchangeCampaignId: request.exchangeCampaignId, openId: request.openId, type: 'messenger', limit: request.limit ?? 1 },
        repeatable: 'once',
      },
      call,
    );
    this.remember(data.exchangeCampaigns);
    return data.exchangeCampaigns;
  }

  /** Reports a click on an exchange entry, once, like reportClick. */
  reportExchangeClick(entry: ExchangeEntry, messengerUserId: string, call?: CallOptions): Promise<ExchangeClickResult> {
    const key = `exchange:${this.impressionOf(entry, entry.inExchangeCampaignId, entry.outExchangeCampaignId)}:${messengerUserId}`;
    return this.once(key, () =>
      this.transport.request<ExchangeClickResult>(
        {
          method: 'POST',
          path: `${OPENAPI_PATH}/exchange/event/report`,
          json: {
            eventType: 'click',
            eventData: { messengerUserId, inExchangeCampaignId: entry.inExchangeCampaignId, outExchangeCampaignId: entry.outExchangeCampaignId },
          },
          repeatable: 'idempotent',
        },
        call,
      ),
    );
  }

  private remember(served: object[]): void {
    for (const item of served) this.impressions.set(item, ++this.impressionCount);
  }

  /**
   * The impression an ad object stands for: its fetch when this client fetched that very object; otherwise (an ad
   * rebuilt from storage, say) its ids, so that in doubt a click is not reported twice.
   */
  private impressionOf(item: object, ...ids: string[]): string {
    const fetched = this.impressions.get(item);
    return fetched === undefined ? `ids:${ids.map(encodeURIComponent).join(':')}` : `fetch:${fetched}`;
  }

  /**
   * The report of `key`, sent at most once: a repeat shares the first call's promise. A report that ended without
   * an answer that settles it (network error, timeout, abort, 5xx, 408, 429) is forgotten, so a later call may send
   * it again (the service would count it once anyway); a success or a refusal (another 4xx) is kept.
   */
  private once<T>(key: string, send: () => Promise<T>): Promise<T> {
    const known = this.reports.get(key);
    if (known) return known as Promise<T>;
    const report = send();
    this.reports.set(key, report);
    if (this.reports.size > REMEMBERED_REPORTS) this.reports.delete(this.reports.keys().next().value as string);
    report.catch((error: unknown) => {
      const settled = error instanceof AdnetError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
      if (!settled && this.reports.get(key) === report) this.reports.delete(key);
    });
    return report;
  }
}
