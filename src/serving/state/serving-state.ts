import { PacingPeriod, paceShare, pacingLine, periodBudget } from '../../campaigns/pacing';
/**
 * The state that serving and clicks share between requests and processes: budget counters, served
 * impressions (to bind clicks), click dedup and the per-user exclusion of rule 6. One interface, two
 * implementations: process memory (embedded profile) and Redis with Lua scripts (MySQL + Redis profile),
 * each operation atomic so that spend never passes a budget by more than one unit price.
 */
export const SERVING_STATE = Symbol('SERVING_STATE');

/**
 * A click binds to an impression of the same ad, user and block within this window; an impression takes at most
 * one click in its whole life (a repeat is answered success and not counted again).
 */
export const IMPRESSION_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The window of the network-wide cap USER_IMPRESSIONS_PER_HOUR (rolling). */
export const USER_CAP_WINDOW_MS = 60 * 60 * 1000;

export interface BudgetFacts {
  campaignId: string;
  totalBudgetMicros: number;
  dailyBudgetMicros: number;
  /** Spend the database knows of; seeds the shared counter when it has none (first use, or Redis lost it). */
  knownSpentMicros: number;
  knownDaySpentMicros: number;
  /** The key of the campaign's budget day at the request's time (its account's zone): the daily budget's counter. */
  day: string;
  /**
   * The pacing period holding the request's time when the campaign paces evenly (null or absent: it does not): the
   * day's counter may reach the pacing line (paceLimit) and no more (docs/CONTRACT.md §16).
   */
  pace?: PacingPeriod | null;
}

export interface ImpressionCandidate extends BudgetFacts {
  adId: string;
  /** What one impression costs: costPer/1000 for CPM, 0 for CPC. */
  priceMicros: number;
  /** The campaign's frequency cap: at most `impressions` to one user within any `windowMs` (rolling). */
  frequencyCap?: FrequencyCap | null;
}

export interface FrequencyCap {
  impressions: number;
  windowMs: number;
}

export interface ReserveRequest {
  userId: string;
  adBlockId: string;
  now: number;
  limit: number;
  /** Network-wide cap: most impressions of this (block, user) pair within any hour; 0 or absent: no cap. */
  userImpressionsPerHour?: number;
  /**
   * The request is general invalid traffic: served as usual (budget must be left), but nothing is billed, and its
   * impressions are marked invalid (a click on them is invalid too).
   */
  invalid?: boolean;
  /** When the request's first Redis call began (wall clock): its calls together wait at most REDIS_DEADLINE_MS. */
  redisSince?: number;
}

export interface ReserveResult {
  /** Indexes into the candidates that were served (and billed), in order. */
  served: number[];
  /** Indexes of candidates skipped because their total or daily budget is spent. */
  exhausted: number[];
  /** Indexes of candidates skipped because they are ahead of their pacing line (they serve again as it moves on). */
  heldBack?: number[];
  /** The (block, user) pair reached USER_IMPRESSIONS_PER_HOUR: no further candidate would be served. */
  userCapped?: boolean;
}

export interface ClickRequest extends BudgetFacts {
  userId: string;
  adBlockId: string;
  adId: string;
  now: number;
  /** What the click costs: costPer for CPC, 0 for CPM. */
  priceMicros: number;
  /** How long the clicked ad stays hidden from this user; 0 turns the exclusion off (test environment). */
  exclusionMs: number;
  /**
   * The id its row will have: a killed process's billed clicks are given back unless a row with it exists, and the
   * binding of a click re-sent with the same id (a reply lost to a reconnect) answers as the first one.
   */
  clickId?: string;
  /** The campaign may bill now (status and time window; for CPC the budget is checked here). Default true. */
  billable?: boolean;
  /** The click's own request is general invalid traffic. */
  invalidRequest?: boolean;
  /** A click sooner than this after its impression is invalid. Default 0. */
  minDelayMs?: number;
}

/**
 * How a click bound to its impression is recorded: `counted` (billed when the campaign pays per click),
 * `unbilled` (the campaign was not billable, its budget included) or `invalid` (see ClickInvalidReason).
 */
export type BoundClickStatus = 'counted' | 'unbilled' | 'invalid';
/** `request`: the click's own request is invalid; `invalidImpression`: its impression was; `tooSoon`: min delay. */
export type ClickInvalidReason = 'request' | 'invalidImpression' | 'tooSoon';

export type ClickOutcome =
  /**
   * `stateLostAt`: Redis lost the served marks then, less than IMPRESSION_WINDOW_MS ago (restarted empty), so the
   * impression may have been served before it (see redis-state-epoch.ts). `settling`: the loss is so recent that
   * the impressions served before it may not be written to the database yet (every process flushes within a settle
   * time after it sees the loss, `settlesAt`), so the database cannot tell yet whether the impression existed.
   */
  | { kind: 'noImpression'; stateLostAt?: number; settlesAt?: number }
  | { kind: 'duplicate' }
  /** `budgetSpent`: the campaign's total or daily budget has nothing left after this click (CPC). */
  | { kind: 'counted'; status: BoundClickStatus; invalidReason: ClickInvalidReason | null; costMicros: number; budgetSpent: boolean };

/** A view reported of a served ad (the ton-ai-sdk's `impression` event): never billed. */
export interface ViewRequest {
  userId: string;
  adBlockId: string;
  adId: string;
  now: number;
  /** The view's own request is general invalid traffic. */
  invalidRequest?: boolean;
}

/**
 * `counted`: the first view of a valid impression; `invalid`: the first view, but its request or its impression is
 * invalid traffic (not counted); `duplicate`: that impression's view was reported already.
 */
export type ViewOutcome = 'noImpression' | 'duplicate' | 'counted' | 'invalid';

/** A completed view reported of a served ad (endpoint 6's `complete`, docs/REWARDED_ADS.md): never billed. */
export interface CompletionRequest {
  userId: string;
  adBlockId: string;
  adId: string;
  now: number;
  /** A completion sooner than this after the serve does not count (and leaves the impression to a later one). */
  minViewMs: number;
  /** The completion's own request is general invalid traffic. */
  invalidRequest?: boolean;
}

/**
 * `tooSoon`: sooner than minViewMs after the serve, not taken; `duplicate`: that impression's completion was counted
 * (or refused as invalid) already; `counted` / `invalid` (its request or its impression is invalid traffic): the first
 * completion of the impression served at `servedAt`, which names the impression (its reward's event id).
 */
export type CompletionOutcome = { kind: 'noImpression' } | { kind: 'tooSoon' } | { kind: 'duplicate' } | { kind: 'counted' | 'invalid'; servedAt: number };

/** What to read for a preview: the user and block are optional (without them nothing per user is read). */
export interface PreviewRequest {
  userId: string | null;
  adBlockId: string | null;
  now: number;
}

/** What the serving state holds of one candidate, read without changing anything (the delivery diagnosis). */
export interface CandidateState {
  /** Until when the ad is hidden from the user after a click (rule 6); null: it is not. */
  excludedUntil: number | null;
  /** The user's impressions of this campaign within its frequency cap's window (0 without a cap or a user). */
  cappedImpressions: number;
  /**
   * The shared budget counters: spent, or handed out to serving processes as leases (Redis), seeded from the spend
   * the database knew when the state has none yet.
   */
  spentMicros: number;
  daySpentMicros: number;
  /** Budget this process holds for the campaign in a lease it may still bill from (Redis profile; else 0). */
  leasedMicros: number;
  /** This process's lease covers one more impression (for CPC, its permission is still fresh). */
  leaseCoversUnit: boolean;
}

export interface ServingPreview {
  /** Impressions of the (block, user) pair within the last hour (0 without both). */
  userImpressionsInHour: number;
  /** One per candidate, in order. */
  candidates: CandidateState[];
}

/** Why the serving state would not serve a candidate (see previewReserve). */
export type StateRefusal = 'excluded' | 'frequencyCap' | 'budget' | 'pacing' | 'userCap';

/** An ad a user clicked is hidden from them until `excludedUntil` (rule 6). */
export function isExcluded(excludedUntil: number | null | undefined, now: number): boolean {
  return excludedUntil !== null && excludedUntil !== undefined && excludedUntil > now;
}

/**
 * The most the day's counter may hold before the candidate is held back by its pacing line at `now` (Infinity when it
 * does not pace): the period's budget times the elapsed share plus the margin (src/campaigns/pacing.ts).
 */
export function paceLimit(
  facts: Pick<BudgetFacts, 'totalBudgetMicros' | 'dailyBudgetMicros' | 'pace'>,
  spentMicros: number,
  daySpentMicros: number,
  now: number,
): number {
  if (!facts.pace) return Number.POSITIVE_INFINITY;
  return pacingLine(periodBudget(facts.totalBudgetMicros, facts.dailyBudgetMicros, spentMicros, daySpentMicros), paceShare(facts.pace, now));
}

/** The budget counters leave room for one more unit (the last one may pass the budget by less than a unit). */
export function countersLeaveBudget(facts: Pick<BudgetFacts, 'totalBudgetMicros' | 'dailyBudgetMicros'>, spentMicros: number, daySpentMicros: number): boolean {
  return spentMicros < facts.totalBudgetMicros && daySpentMicros < facts.dailyBudgetMicros;
}

/**
 * What reserveImpressions would answer for this request given a preview of the state, and why each candidate it
 * skips is skipped (null: served, or not reached because `limit` ads were served before it). It bills and marks
 * nothing: the delivery diagnosis ranks a campaign with it.
 */
export function previewReserve(
  request: Pick<ReserveRequest, 'now' | 'limit' | 'userImpressionsPerHour'>,
  candidates: ImpressionCandidate[],
  preview: ServingPreview,
): ReserveResult & { refusals: (StateRefusal | null)[] } {
  const served: number[] = [];
  const exhausted: number[] = [];
  const heldBack: number[] = [];
  const refusals: (StateRefusal | null)[] = candidates.map(() => null);
  const userCap = request.userImpressionsPerHour ?? 0;
  let userImpressions = preview.userImpressionsInHour;
  for (let i = 0; i < candidates.length && served.length < request.limit; i++) {
    if (userCap > 0 && userImpressions >= userCap) {
      for (let k = i; k < candidates.length; k++) refusals[k] = 'userCap';
      break;
    }
    const candidate = candidates[i];
    const state = preview.candidates[i];
    if (isExcluded(state.excludedUntil, request.now)) refusals[i] = 'excluded';
    else if (candidate.frequencyCap && state.cappedImpressions >= candidate.frequencyCap.impressions) refusals[i] = 'frequencyCap';
    else if (!hasBudgetFor(candidate, state)) {
      refusals[i] = 'budget';
      exhausted.push(i);
    } else if (!state.leaseCoversUnit && state.daySpentMicros >= paceLimit(candidate, state.spentMicros, state.daySpentMicros, request.now)) {
      refusals[i] = 'pacing';
      heldBack.push(i);
    } else {
      served.push(i);
      userImpressions++;
    }
  }
  return { served, exhausted, heldBack, userCapped: userCap > 0 && userImpressions >= userCap, refusals };
}

/** Budget is left when this process holds a lease covering a unit, or the counters leave one. */
function hasBudgetFor(candidate: ImpressionCandidate, state: CandidateState): boolean {
  return state.leaseCoversUnit || countersLeaveBudget(candidate, state.spentMicros, state.daySpentMicros);
}

/** What a process holds of the shared budgets (Redis budget leases, see budget-leases.ts): none in process memory. */
export interface HeldLeases {
  leases: number;
  remainingMicros: number;
}

export interface ServingState {
  /** The budget leases this process bills from now (for /metrics). */
  heldLeases(): HeldLeases;
  reserveImpressions(request: ReserveRequest, candidates: ImpressionCandidate[]): Promise<ReserveResult>;
  /** Reads what reserveImpressions would decide on (exclusions, frequency caps, budget counters); changes nothing. */
  preview(request: PreviewRequest, candidates: ImpressionCandidate[]): Promise<ServingPreview>;
  registerClick(request: ClickRequest): Promise<ClickOutcome>;
  /** Takes back a counted click whose ledger write failed: its spend, dedup mark and exclusion. */
  undoClick(request: ClickRequest, costMicros: number): Promise<void>;
  /**
   * A counted click's row is committed. Until then a billed click's price is held aside (Redis: in the campaign's
   * leases hash, under its holder), so that a process killed between the two gives it back instead of leaving it
   * billed unrecorded.
   */
  clickCommitted(request: ClickRequest): Promise<void>;
  /**
   * A counted click's row may or may not be committed (its write lost its COMMIT answer and the database did not say
   * in time): it stays bound, and its price stays held aside until the orphan sweep finds whether the row exists
   * (kept for good) or not (given back).
   */
  clickOutcomeUnknown(request: ClickRequest): void;
  /** Binds a view to an impression served within IMPRESSION_WINDOW_MS: at most one view per served impression. */
  registerView(request: ViewRequest): Promise<ViewOutcome>;
  /** Binds a completion to an impression served within IMPRESSION_WINDOW_MS, at least minViewMs ago: one per impression. */
  registerCompletion(request: CompletionRequest): Promise<CompletionOutcome>;
}

/**
 * Redis keys carry a hash tag (the first `{...}` of a key picks its Redis Cluster slot): `{u:<user>}` for a user's
 * served marks, exclusions, frequency caps, click and view marks; `{c:<campaign>}` for a campaign's budget counters
 * and its leases hash; `{h:<holder>}` for a lease holder's heartbeat and campaigns. Every script touches one tag only
 * (docs/SCALING.md). The memory-only keys have none.
 */
export const stateKeys = {
  spent: (campaignId: string) => `spend:{c:${campaignId}}`,
  daySpent: (campaignId: string, day: string) => `dspend:{c:${campaignId}}:${day}`,
  excluded: (userId: string, adId: string) => `excl:${userId}:${adId}`,
  served: (userId: string, adBlockId: string, adId: string) => `imp:${userId}:${adBlockId}:${adId}`,
  /** Redis: one hash per user and block, ad id -> when it was last served. */
  servedAds: (userId: string, adBlockId: string) => `imps:{u:${userId}}:${adBlockId}`,
  /** Redis: one hash per user, ad id -> until when it is excluded (rule 6). */
  excludedAds: (userId: string) => `excls:{u:${userId}}`,
  /** When the impression a click used up was served: it takes no second click. */
  clicked: (userId: string, adBlockId: string, adId: string) => `clk:{u:${userId}}:${adBlockId}:${adId}`,
  /** The click id and status of the click that used the impression up (click-bind.lua answers its re-run from it). */
  clickedBy: (userId: string, adBlockId: string, adId: string) => `clkby:{u:${userId}}:${adBlockId}:${adId}`,
  /** When the impression whose view was reported was served: it takes no second view. */
  viewed: (userId: string, adBlockId: string, adId: string) => `view:{u:${userId}}:${adBlockId}:${adId}`,
  /** When the impression whose completion was counted was served: it takes no second completion. */
  completed: (userId: string, adBlockId: string, adId: string) => `done:{u:${userId}}:${adBlockId}:${adId}`,
  /** Redis: one hash per user, ad id -> when its capped campaign was served to the user (frequency caps). */
  cappedImpressions: (userId: string) => `fcaps:{u:${userId}}`,
  /** Memory: when a capped campaign's ad was served to the user. */
  cappedImpressionLog: (userId: string, adId: string) => `fcap:${userId}:${adId}`,
  /** Memory: when ads were served to the user on the block, within the last hour (USER_IMPRESSIONS_PER_HOUR). */
  userImpressionLog: (userId: string, adBlockId: string) => `ucap:${userId}:${adBlockId}`,
  /** Memory: the impression of this served key was invalid traffic. */
  invalidServed: (servedKey: string) => `inv:${servedKey}`,
  /** Redis: the ids of the processes that hold or held budget leases (see budget-leases.ts). */
  leaseHolders: () => 'leaseholders',
  /** Redis: a lease holder's heartbeat. */
  leaseHolder: (holderId: string) => `leaseholder:{h:${holderId}}`,
  /** Redis: the campaigns in whose leases hash a holder has (or had) fields: where its reclaim looks. */
  holderCampaigns: (holderId: string) => `holdercamps:{h:${holderId}}`,
  /**
   * Redis: a campaign's outstanding leases and billed clicks waiting for their rows, one hash per campaign:
   * holder|day -> micro-USDT (leaseField), holder|day|... -> a click's price (pendingClickField).
   */
  campaignLeases: (campaignId: string) => `leases:{c:${campaignId}}`,
  /** Redis: a give-back that ran (its command is not run twice), in its campaign's slot. */
  giveBackToken: (campaignId: string, token: string) => `giveback:{c:${campaignId}}:${token}`,
  /** Redis: when the serving state began, and whether a loss of it began it (redis-state-epoch.ts). */
  epoch: () => 'stateepoch',
  /** Redis: a bill that ran and its answer (bill.lua; not run twice), in the slot of its leases' campaigns. */
  billToken: (campaignId: string, token: string) => `bill:{c:${campaignId}}:${token}`,
};
