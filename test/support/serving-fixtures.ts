import type { Response } from 'supertest';
import { FETCH, CLICK, flushStats, refreshIndex, UA } from './serving-helpers';
import { ADMIN_KEY, TestApp } from './test-app';
import { createCampaign } from './factories';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = Record<string, any>;

export const MINUTE = 60 * 1000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const BLOCK_BASE = '/api/v2/openapi/ad/block';
export const CAMPAIGN_BASE = '/api/v2/openapi/ad/campaign';

/** Well-formed, never issued: the id layout of the service (26 lower-case Crockford base32 characters). */
export const UNKNOWN_ID = '01hzzzzzzzzzzzzzzzzzzzzzzz';

export const BLOCK_NOT_FOUND = {
  code: 404,
  message: 'adBlockId: ad block not found',
  data: { errors: [{ field: 'adBlockId', message: 'ad block not found' }] },
};

let userCounter = 0;
/** A messenger user id nobody else in the run uses. */
export function newUser(tag = 'u'): string {
  userCounter += 1;
  return `${tag}-${process.pid}-${Date.now().toString(36)}-${userCounter}`;
}

/** Ends every campaign that is not ended yet (admin sees all) and reloads the index: a clean slate for serving. */
export async function endAllCampaigns(t: TestApp): Promise<void> {
  const ids: string[] = [];
  for (let current = 1; ; current++) {
    const response = await t.http().get(`${CAMPAIGN_BASE}/list`).query({ current, pageSize: 100 }).set('x-api-key', ADMIN_KEY).expect(200);
    const campaigns = response.body.data.campaigns as Body[];
    for (const item of campaigns) if (item.campaignStatus !== 'ended') ids.push(item.id);
    if (campaigns.length < 100) break;
  }
  for (const campaignId of ids) await setStatus(t, ADMIN_KEY, campaignId, 'end');
  await refreshIndex(t);
}

export async function setStatus(t: TestApp, apiKey: string, campaignId: string, status: string): Promise<void> {
  const response = await t.http().post(`${CAMPAIGN_BASE}/status`).set('x-api-key', apiKey).send({ campaignId, status });
  if (response.status !== 200) throw new Error(`status ${status} failed: ${JSON.stringify(response.body)}`);
}

/** Creates a campaign and makes sure this process's serving index holds it before the test goes on. */
export async function createServable(t: TestApp, apiKey: string, body: object): Promise<string> {
  const id = await createCampaign(t, apiKey, body);
  await refreshIndex(t);
  return id;
}

export interface FetchOptions {
  limit?: number | string;
  ip?: string;
  /** the User-Agent; `null` sends none */
  ua?: string | null;
  lang?: string;
  debug?: string;
}

/** GET matching/ad as a user's browser would call it; answers the raw response. */
export function fetchRaw(t: TestApp, apiKey: string, adBlockId: string, openId: string, options: FetchOptions = {}) {
  let request = t
    .http()
    .get(FETCH)
    .query({ adBlockId, openId, type: 'messenger', limit: options.limit ?? 9 })
    .set('x-api-key', apiKey);
  const ua = options.ua === undefined ? UA.Android : options.ua;
  // null: no User-Agent at all, not even the browser's one every test request carries by default
  request = ua === null ? request.unset('user-agent') : request.set('user-agent', ua);
  if (options.ip) request = request.set('x-forwarded-for', options.ip);
  if (options.lang !== undefined) request = request.set('accept-language', options.lang);
  if (options.debug !== undefined) request = request.set('debug', options.debug);
  return request;
}

/** The served ads of a successful fetch (checks the envelope). */
export async function fetchAds(t: TestApp, apiKey: string, adBlockId: string, openId: string, options: FetchOptions = {}): Promise<Body[]> {
  const response = await fetchRaw(t, apiKey, adBlockId, openId, options);
  if (response.status !== 200) throw new Error(`fetch failed: ${response.status} ${JSON.stringify(response.body)}`);
  expect(response.body.code).toBe(0);
  expect(response.body.message).toBe('success');
  expect(response.body.data.success).toBe(true);
  return response.body.data.ads as Body[];
}

/** Campaign ids of a fetch, in answer order. */
export async function fetchIds(t: TestApp, apiKey: string, adBlockId: string, openId: string, options: FetchOptions = {}) {
  return (await fetchAds(t, apiKey, adBlockId, openId, options)).map((ad) => ad.campaignId as string);
}

export function clickRaw(t: TestApp, apiKey: string, eventData: Record<string, unknown>) {
  return t.http().post(CLICK).set('x-api-key', apiKey).send({ eventType: 'click', eventData });
}

/** Reports a click on a served ad for that user; answers the raw response. */
export function clickAd(t: TestApp, apiKey: string, ad: Body, messengerUserId: string) {
  return clickRaw(t, apiKey, { adBlockId: ad.adBlockId, messengerUserId, adId: ad.adId, campaignId: ad.campaignId });
}

export async function blockDetail(t: TestApp, apiKey: string, adBlockId: string): Promise<Body> {
  const response = await t.http().get(`${BLOCK_BASE}/detail`).query({ adBlockId }).set('x-api-key', apiKey).expect(200);
  return response.body.data;
}

/** Campaign counters as the advertiser sees them, after the buffered impression counters are written. */
export async function flushedCampaign(t: TestApp, campaignId: string): Promise<Body> {
  await flushStats(t);
  const response = await t.http().get(`${CAMPAIGN_BASE}/detail`).query({ campaignId }).set('x-api-key', ADMIN_KEY).expect(200);
  return response.body.data;
}

/** 400 in the error envelope, naming `field` in the message and in data.errors. */
export function expectValidationError(response: Response, field: string): void {
  expect({ status: response.status, code: response.body.code }).toEqual({ status: 400, code: 400 });
  expect(typeof response.body.message).toBe('string');
  const errors = (response.body.data?.errors ?? []) as { field: string; message: string }[];
  const entry = errors.find((error) => error.field === field);
  if (!entry) throw new Error(`no error for ${field}: ${JSON.stringify(response.body)}`);
  expect(entry.message).toContain(field);
  expect(response.body.message).toContain(field);
}

/** Milliseconds from `now` to just after the next UTC midnight. */
export function untilNextUtcMidnight(now: number, slackMs = MINUTE): number {
  return DAY - (now % DAY) + slackMs;
}
