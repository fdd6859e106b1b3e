import http from 'node:http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export const FETCH = '/api/v2/openapi/matching/ad';
export const CLICK = '/api/v2/openapi/ad/event/report';
export const CONVERSION = '/api/v2/openapi/ad/event/report/conversion';
export const PROFILE_BATCH = '/api/v2/openapi/user/profile/batch';
export const PROFILE_STATUS = '/api/v2/openapi/user/profile/batch/status';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36';
/** Agents of general invalid traffic: served as usual, never billed, counted apart. */
const BOT_AGENTS = ['curl/8.5.0', 'python-requests/2.31', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', ''];
export const CLICK_MESSAGES = {
  counted: 'click counted',
  duplicate: 'duplicate click: not counted again',
  unbilled: 'click recorded, not billed: the campaign is not billable now',
  /** followed by the reason */
  invalid: 'click recorded as invalid traffic: ',
};

/** One HTTP exchange as the client saw it: a status, or `status: 0` with the network error. */
export interface Answer {
  status: number;
  body: Json | null;
  error: string | null;
  sentAt: number;
  doneAt: number;
  /** The response's headers, when there was a response. */
  headers?: http.IncomingHttpHeaders;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function call(
  port: number,
  method: 'GET' | 'POST',
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const sentAt = Date.now();
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string | number> = { 'user-agent': ANDROID, ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = payload.length;
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<Answer, 'sentAt' | 'doneAt'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, sentAt, doneAt: Date.now() });
    };
    const request = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error: NodeJS.ErrnoException) => finish({ status: 0, body: null, error: error.code ?? error.message }));
      response.on('end', () => {
        let body: Json | null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        } catch {
          body = null;
        }
        finish({ status: response.statusCode ?? 0, body, error: null, headers: response.headers });
      });
    });
    request.setTimeout(options.timeoutMs ?? 30_000, () => request.destroy(Object.assign(new Error('client timeout'), { code: 'TIMEOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => finish({ status: 0, body: null, error: error.code ?? error.message }));
    request.end(payload);
  });
}

/** Request figures of one phase. */
export class Tally {
  tried = 0;
  ok = 0;
  serverErrors = 0;
  networkErrors = 0;
  /** 503 "<dependency> unavailable: nothing was stored" with Retry-After: a dependency's outage, answered at once. */
  refused = 0;
  /**
   * 503 "impression records lost" or "being rebuilt": a click on an ad served before Redis restarted empty, or any
   * click without its mark while that loss settles (retry later, never 400).
   */
  stateLost = 0;
  /**
   * Per kind, 503 "request timed out; retry later" (HANDLER_TIMEOUT_MS): a write in flight when the database froze,
   * its outcome unknown when the request was answered; or 503 "whether this was stored is not known": a write whose
   * COMMIT answer was lost while the database stayed away (WriteOutcomeUnknownError).
   */
  readonly timedOut = new Map<string, number>();
  readonly byKind = new Map<string, Map<string, number>>();
  readonly samples: string[] = [];
  /** The first answers that took a second or more: kind, status, message, time and when sent (epoch ms). */
  readonly overASecond: string[] = [];
  /** Per kind, the longest an answer took (ms). */
  readonly slowest = new Map<string, number>();
  /** Per kind, how long each answer took (ms) and when its request was sent, in arrival order. */
  readonly durations = new Map<string, number[]>();
  readonly sentAts = new Map<string, number[]>();

  add(kind: string, answer: Answer): void {
    this.tried += 1;
    const status = answer.status === 0 ? `net:${answer.error}` : String(answer.status);
    const counts = this.byKind.get(kind) ?? new Map<string, number>();
    counts.set(status, (counts.get(status) ?? 0) + 1);
    this.byKind.set(kind, counts);
    this.slowest.set(kind, Math.max(this.slowest.get(kind) ?? 0, answer.doneAt - answer.sentAt));
    const durations = this.durations.get(kind) ?? [];
    durations.push(answer.doneAt - answer.sentAt);
    this.durations.set(kind, durations);
    const sentAts = this.sentAts.get(kind) ?? [];
    sentAts.push(answer.sentAt);
    this.sentAts.set(kind, sentAts);
    const message = (answer.body as { message?: unknown } | null)?.message;
    if (answer.doneAt - answer.sentAt >= 1000 && this.overASecond.length < 8) {
      const said = (answer.body as { data?: { msg?: unknown } } | null)?.data?.msg ?? message ?? answer.error;
      this.overASecond.push(`${kind} ${status} "${String(said)}" in ${answer.doneAt - answer.sentAt} ms, sent at ${answer.sentAt}`);
    }
    if (answer.status === 200) this.ok += 1;
    else if (answer.status === 503 && typeof message === 'string' && /unavailable: nothing was stored/.test(message)) this.refused += 1;
    else if (answer.status === 503 && typeof message === 'string' && /^impression records (lost|being rebuilt)/.test(message)) this.stateLost += 1;
    else if (
      answer.status === 503 &&
      (message === 'request timed out; retry later' || (typeof message === 'string' && /whether this was stored is not known/.test(message)))
    ) {
      this.timedOut.set(kind, (this.timedOut.get(kind) ?? 0) + 1);
    } else if (answer.status >= 500) this.serverErrors += 1;
    else if (answer.status === 0) this.networkErrors += 1;
    if ((answer.status >= 500 || answer.status === 0) && this.samples.length < 8 && !/^impression records (lost|being rebuilt)/.test(String(message))) {
      this.samples.push(`${kind} ${status} ${JSON.stringify(answer.body)?.slice(0, 160)}`);
    }
  }

  /** The answer time (ms) of this kind that `p` (0-1) of its answers did not exceed; 0 without answers. */
  percentile(kind: string, p: number): number {
    const sorted = [...(this.durations.get(kind) ?? [])].sort((a, b) => a - b);
    return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  }

  /** Per slice of `sliceMs` from `from` (by when requests were sent): "+<s> s: p50/max" of this kind's answer times. */
  timeline(kind: string, from: number, sliceMs: number): string {
    const slices = new Map<number, number[]>();
    const sentAts = this.sentAts.get(kind) ?? [];
    (this.durations.get(kind) ?? []).forEach((ms, i) => {
      const slice = Math.floor((sentAts[i] - from) / sliceMs);
      slices.set(slice, [...(slices.get(slice) ?? []), ms]);
    });
    return [...slices]
      .sort(([a], [b]) => a - b)
      .map(([slice, times]) => {
        const sorted = times.sort((a, b) => a - b);
        return `+${(slice * sliceMs) / 1000}s ${sorted[Math.floor(sorted.length / 2)]}/${sorted[sorted.length - 1]} ms (${sorted.length})`;
      })
      .join(', ');
  }

  /** Answers of this kind with a 2xx status, and all of them. */
  answered2xx(kind: string): { ok: number; all: number } {
    let ok = 0;
    let all = 0;
    for (const [status, n] of this.byKind.get(kind) ?? []) {
      all += n;
      if (/^2\d\d$/.test(status)) ok += n;
    }
    return { ok, all };
  }

  count(kind: string, status: string): number {
    return this.byKind.get(kind)?.get(status) ?? 0;
  }

  summary(): string {
    const kinds = [...this.byKind].map(([kind, counts]) => `${kind} ${[...counts].map(([status, n]) => `${status}×${n}`).join(' ')}`);
    return `${this.tried} requests (${kinds.join('; ')})`;
  }
}

export interface ClickRecord {
  campaignId: string;
  adBlockId: string;
  counted: number;
  /** answered "recorded, not billed" (the campaign was not billable) */
  unbilled: number;
  /** answered "recorded as invalid traffic" */
  invalid: number;
  duplicates: number;
  rejected: number;
  failed: number;
}

export interface ConversionRecord {
  ok: number;
  failed: number;
  /** the user had a click counted (answered 200) on this advertiser's campaigns before the first conversion was sent */
  afterCountedClick: boolean;
}

export interface BatchRecord {
  batchId: string;
  /** the uploader's key: the status endpoint answers only it (or an admin) */
  key: string;
  tag: string;
  size: number;
  premium: number;
  wallets: number;
}

/** What the clients were told, accumulated over every phase: what the database must hold in the end. */
export class Ledger {
  /** ads answered, by `campaignId|adBlockId` */
  readonly served = new Map<string, number>();
  /** ads answered to general invalid traffic (bot or empty agents), by `campaignId|adBlockId` */
  readonly invalidServed = new Map<string, number>();
  /** click reports by `messengerUserId|adBlockId|adId` */
  readonly clicks = new Map<string, ClickRecord>();
  /** conversion reports by `advertiserId|messengerUserId` */
  readonly conversions = new Map<string, ConversionRecord>();
  readonly batches: BatchRecord[] = [];

  /**
   * Ads answered by a process that was then killed outright, within its last STATS_FLUSH_MS: their counters may
   * have died with it (what a crash can lose), by `campaignId|adBlockId`.
   */
  readonly mayBeLost = new Map<string, number>();
  /** The same for the invalid impressions. */
  readonly invalidMayBeLost = new Map<string, number>();

  serve(campaignId: string, adBlockId: string, invalid = false): void {
    const key = `${campaignId}|${adBlockId}`;
    const served = invalid ? this.invalidServed : this.served;
    served.set(key, (served.get(key) ?? 0) + 1);
  }

  /** Takes in what another ledger recorded (its users are its own). */
  absorb(other: Ledger): void {
    for (const [key, count] of other.served) this.served.set(key, (this.served.get(key) ?? 0) + count);
    for (const [key, count] of other.invalidServed) this.invalidServed.set(key, (this.invalidServed.get(key) ?? 0) + count);
    for (const [key, count] of other.invalidMayBeLost) this.invalidMayBeLost.set(key, (this.invalidMayBeLost.get(key) ?? 0) + count);
    for (const [key, record] of other.clicks) this.clicks.set(key, record);
    for (const [key, record] of other.conversions) this.conversions.set(key, record);
    this.batches.push(...other.batches);
    for (const [key, count] of other.mayBeLost) this.mayBeLost.set(key, (this.mayBeLost.get(key) ?? 0) + count);
  }

  /** Records a click answer; true when it was counted. */
  click(user: string, ad: Json, answer: Answer): boolean {
    const key = `${user}|${ad.adBlockId}|${ad.adId}`;
    const record = this.clicks.get(key) ?? {
      campaignId: ad.campaignId,
      adBlockId: ad.adBlockId,
      counted: 0,
      unbilled: 0,
      invalid: 0,
      duplicates: 0,
      rejected: 0,
      failed: 0,
    };
    this.clicks.set(key, record);
    const msg = answer.status === 200 ? answer.body?.data?.msg : undefined;
    if (msg === CLICK_MESSAGES.counted) {
      record.counted += 1;
      return true;
    }
    if (msg === CLICK_MESSAGES.unbilled) record.unbilled += 1;
    else if (msg?.startsWith(CLICK_MESSAGES.invalid)) record.invalid += 1;
    else if (msg === CLICK_MESSAGES.duplicate) record.duplicates += 1;
    else if (answer.status >= 400 && answer.status < 500) record.rejected += 1;
    else record.failed += 1;
    return false;
  }

  conversion(advertiserId: string, user: string, afterCountedClick: boolean, answer: Answer): void {
    const key = `${advertiserId}|${user}`;
    const record = this.conversions.get(key) ?? { ok: 0, failed: 0, afterCountedClick };
    this.conversions.set(key, record);
    if (answer.status === 200 && answer.body?.status === 'success') record.ok += 1;
    else record.failed += 1;
  }

  get impressionsAnswered(): number {
    return [...this.served.values()].reduce((sum, n) => sum + n, 0);
  }

  get invalidImpressionsAnswered(): number {
    return [...this.invalidServed.values()].reduce((sum, n) => sum + n, 0);
  }
}

export interface Publisher {
  key: string;
  adBlockId: string;
}

export interface Advertiser {
  key: string;
  accountId: string;
}

/** The accounts, blocks and campaigns the load runs against, and the API ports it spreads over. */
export interface World {
  ports: number[];
  publishers: Publisher[];
  advertisers: Advertiser[];
  /** campaignId -> advertiser index */
  campaignOwner: Map<string, number>;
}

let users = 0;
const runTag = `${process.pid.toString(36)}${Date.now().toString(36)}`;
export function newUser(tag: string): string {
  users += 1;
  return `rel-${tag}-${runTag}-${users}`;
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];
const chance = (p: number) => Math.random() < p;

/**
 * One end user: an ad fetch on one API; clicks on about half the ads, a quarter of them sent twice at once
 * over both APIs (a double tap, a retry); then conversions for the advertisers clicked, some sent twice at once;
 * a few conversions of users who never clicked (unattributed). One user in twelve is a bot (a bot, crawler or HTTP
 * library agent, or none): served as usual, its impressions and clicks invalid, never billed; it never converts.
 */
/** One ad request of a new user (a bot's now and then) on either API, its ads recorded as served. */
async function fetchAdsOnce(world: World, ledger: Ledger, tally: Tally, tag: string) {
  const bot = chance(1 / 12);
  const user = newUser(bot ? `${tag}bot` : tag);
  const headers = bot ? { 'user-agent': pick(BOT_AGENTS) } : undefined;
  const publisher = pick(world.publishers);
  const port = pick(world.ports);
  const fetched = await call(port, 'GET', `${FETCH}?adBlockId=${publisher.adBlockId}&openId=${user}&type=messenger&limit=4`, { key: publisher.key, headers });
  tally.add('ad', fetched);
  const ads = fetched.status === 200 ? ((fetched.body?.data?.ads ?? []) as Json[]) : [];
  for (const ad of ads) ledger.serve(ad.campaignId, ad.adBlockId, bot);
  return { bot, user, headers, publisher, port, ads, ok: fetched.status === 200 };
}

export async function userFlow(world: World, ledger: Ledger, tally: Tally, tag: string): Promise<void> {
  const { bot, user, headers, publisher, port, ads, ok } = await fetchAdsOnce(world, ledger, tally, tag);
  if (!ok) return;

  const clicked = new Set<number>();
  await Promise.all(
    ads
      .filter(() => chance(0.5))
      .map(async (ad) => {
        const copies = chance(0.25) ? 2 : 1;
        const answers = await Promise.all(
          Array.from({ length: copies }, (_, k) =>
            call(k === 0 ? pick(world.ports) : otherPort(world, port), 'POST', CLICK, {
              key: publisher.key,
              headers,
              body: { eventType: 'click', eventData: { adBlockId: ad.adBlockId, messengerUserId: user, adId: ad.adId, campaignId: ad.campaignId } },
            }),
          ),
        );
        for (const answer of answers) {
          tally.add('click', answer);
          if (ledger.click(user, ad, answer)) clicked.add(world.campaignOwner.get(ad.campaignId)!);
        }
      }),
  );

  if (bot) return;
  const converting = [...clicked].filter(() => chance(0.6));
  if (clicked.size === 0 && chance(0.05)) converting.push(Math.floor(Math.random() * world.advertisers.length));
  await Promise.all(
    converting.map(async (index) => {
      const advertiser = world.advertisers[index];
      const copies = chance(0.2) ? 2 : 1;
      const answers = await Promise.all(
        Array.from({ length: copies }, () =>
          // longer than the suite's 30 s MariaDB freeze: a conversion whose commit was under way waits for its outcome
          call(pick(world.ports), 'POST', CONVERSION, {
            key: advertiser.key,
            body: { eventType: 'conversion', eventData: { messengerUserId: user } },
            timeoutMs: 60_000,
          }),
        ),
      );
      for (const answer of answers) {
        tally.add('conversion', answer);
        ledger.conversion(advertiser.accountId, user, clicked.has(index), answer);
      }
    }),
  );
}

function otherPort(world: World, port: number): number {
  return world.ports.find((candidate) => candidate !== port) ?? port;
}

let batches = 0;

/** Uploads one profile batch of `size` new users (every other premium, every third with a wallet). */
export async function uploadBatch(world: World, ledger: Ledger, tally: Tally, size: number): Promise<Answer> {
  batches += 1;
  const tag = `rp${runTag}x${batches}`;
  const list = Array.from({ length: size }, (_, i) => ({
    messengerUserId: `${tag}.${i}`,
    isPremium: i % 2 === 0,
    language: 'en',
    ...(i % 3 === 0 ? { walletAddress: `0x${tag}${i}`, walletClassify: 'evm' } : {}),
  }));
  const publisher = pick(world.publishers);
  const answer = await call(pick(world.ports), 'POST', PROFILE_BATCH, { key: publisher.key, body: { list } });
  tally.add('batch', answer);
  if (answer.status === 200 && answer.body?.data?.batchId) {
    ledger.batches.push({
      batchId: answer.body.data.batchId,
      key: publisher.key,
      tag,
      size,
      premium: list.filter((record) => record.isPremium).length,
      wallets: list.filter((record) => 'walletAddress' in record).length,
    });
  }
  return answer;
}

/**
 * Runs `concurrency` user flows back to back until `durationMs` passes (or `stop()` says so), plus a profile
 * batch every `batchEveryMs`. Answers when every started request has its answer.
 */
export async function runLoad(
  world: World,
  ledger: Ledger,
  tally: Tally,
  options: {
    durationMs: number;
    concurrency: number;
    tag: string;
    batchEveryMs?: number;
    batchSize?: number;
    stop?: () => boolean;
    /** Each loop starts a user flow at most this often (steady traffic: a refused request does not speed it up). */
    flowEveryMs?: number;
    /** Besides the flows, one ad request (no click) this often, whatever the flows wait for. */
    adsEveryMs?: number;
  },
): Promise<void> {
  const until = Date.now() + options.durationMs;
  const going = () => Date.now() < until && !(options.stop?.() ?? false);
  const loops = Array.from({ length: options.concurrency }, async () => {
    while (going()) {
      const started = Date.now();
      await userFlow(world, ledger, tally, options.tag);
      const rest = (options.flowEveryMs ?? 0) - (Date.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  });
  if (options.adsEveryMs) {
    const every = options.adsEveryMs;
    loops.push(
      (async () => {
        const fetches: Promise<unknown>[] = [];
        while (going()) {
          fetches.push(fetchAdsOnce(world, ledger, tally, options.tag));
          await new Promise((resolve) => setTimeout(resolve, every));
        }
        await Promise.all(fetches);
      })(),
    );
  }
  if (options.batchEveryMs) {
    loops.push(
      (async () => {
        while (going()) {
          const started = Date.now();
          await uploadBatch(world, ledger, tally, options.batchSize ?? 300);
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, options.batchEveryMs! - (Date.now() - started))));
        }
      })(),
    );
  }
  await Promise.all(loops);
}

/** Polls batch/status (spread over the APIs) until every batch of the ledger is done or failed. */
export async function waitForBatches(world: World, ledger: Ledger, timeoutMs: number): Promise<Map<string, Json>> {
  const deadline = Date.now() + timeoutMs;
  const last = new Map<string, Json>();
  let pending = ledger.batches.filter((batch) => !['done', 'failed'].includes(last.get(batch.batchId)?.status));
  while (pending.length > 0) {
    await Promise.all(
      pending.map(async (batch) => {
        const answer = await call(pick(world.ports), 'GET', `${PROFILE_STATUS}?batchId=${batch.batchId}`, { key: batch.key });
        if (answer.status === 200) last.set(batch.batchId, answer.body!.data);
      }),
    );
    pending = ledger.batches.filter((batch) => !['done', 'failed'].includes(last.get(batch.batchId)?.status));
    if (pending.length === 0) break;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return last;
}
