/**
 * The words of the delivery diagnosis ("why is my ad not showing?", docs/CONTRACT.md §15): each check is the verdict
 * of a rule the serving path itself applies (campaign-rules.ts, campaign-matcher.ts, the serving state's preview),
 * put in plain words. Pure: no I/O, so a property test can hold it against the matcher.
 */
import type { BlockControls } from '../ad-blocks/ad-blocks.service';
import { budgetDayOf, hasDailyBudgetLeft, hasTotalBudgetLeft, isRunning, spentToday } from '../campaigns/campaign-rules';
import { blockingDomain } from '../common/hosts';
import { refusedBy } from './block-controls';
import type { Campaign } from '../campaigns/entities/campaign.entity';
import { fromMicros } from '../common/money';
import { IndexedCampaign, isLive, MatchContext, TargetingRule, targetingVerdicts } from './campaign-matcher';
import type { CandidateState, FrequencyCap, ImpressionCandidate } from './state/serving-state';
import type { CampaignBlockPlan } from './block-optimization';
import { countersLeaveBudget, isExcluded, paceLimit } from './state/serving-state';

export interface DeliveryCheck {
  /** What was checked, e.g. `status`, `schedule`, `targeting.includedRegions`, `frequencyCap`, `rank`. */
  check: string;
  passed: boolean;
  /** Why, in plain words. */
  detail: string;
}

/** Where each fact of the match context came from, to word what is missing and how to supply it. */
export interface FactSources {
  /** The address the country was looked up for (and the traffic verdict made on). */
  ip: string;
  country: 'query' | 'ip' | 'profile' | null;
  language: 'query' | 'profile' | 'acceptLanguage' | null;
  platform: 'query' | 'userAgent' | null;
  /** A profile of the user was read (the block's publisher uploaded it); false: every flag is false. */
  profile: boolean;
  /** Why no profile was read, when none was. */
  noProfileReason: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const usdt = (micros: number) => `${fromMicros(micros)} USDT`;
const list = (values: Set<string>) => [...values].sort().join(', ');

/** Loopback, private, link-local and unique-local addresses: no country, as in a local run. */
export function isLocalAddress(ip: string): boolean {
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return (
    v4 === '::1' ||
    /^127\./.test(v4) ||
    /^10\./.test(v4) ||
    /^192\.168\./.test(v4) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(v4) ||
    /^169\.254\./.test(v4) ||
    /^f[cd][0-9a-f]{2}:/i.test(v4) ||
    /^fe80:/i.test(v4)
  );
}

/** Why the context has no country, and how to test with one. */
export function noCountryDetail(sources: FactSources): string {
  const how = isLocalAddress(sources.ip) ? 'a local address has none: give a country to test' : 'give a country to test';
  return `no country for ${sources.ip}: region-targeted campaigns cannot match; ${how}`;
}

const NO_LANGUAGE = 'no language for this user (none given, no Accept-Language, no profile language)';
const NO_PLATFORM = 'no platform: the User-Agent names none of iOS, Android, Desktop';

/** The user facts a flag rule reads, its words, and the context field. */
const FLAGS: Partial<Record<TargetingRule, { words: string; has: (context: MatchContext) => boolean }>> = {
  messengerPremium: { words: 'a premium messenger user', has: (context) => context.premium },
  isHighValueUser: { words: 'a high-value user', has: (context) => context.highValue },
  userLinkedWallet: { words: 'a user with a linked wallet', has: (context) => context.linkedWallet },
  userLinkedChainWallet: { words: 'a user with a linked primary wallet', has: (context) => context.linkedChainWallet },
  userWalletHasBalanceOnChain: { words: 'a user whose wallet has a balance on chain', has: (context) => context.walletHasBalance },
};

/** The campaign's status and its budgets as the database holds them (what the serving index loads it by). */
export function campaignChecks(
  campaign: Pick<
    Campaign,
    | 'status'
    | 'approved'
    | 'spentMicros'
    | 'totalBudgetMicros'
    | 'daySpentMicros'
    | 'spentDay'
    | 'dailyBudgetMicros'
    | 'timeZone'
    | 'nextTimeZone'
    | 'timeZoneChangesAt'
  >,
  now: number,
): DeliveryCheck[] {
  const running = isRunning(campaign);
  const statusWords: Record<string, string> = {
    paused: 'paused: start it to serve',
    inReview: 'waiting for review: an admin must approve (start) it',
    ended: 'ended: an ended campaign never serves again',
    onGoing: 'onGoing but not approved: an admin must start it',
  };
  const today = spentToday(campaign, now);
  return [
    { check: 'status', passed: running, detail: running ? 'onGoing and approved' : statusWords[campaign.status] },
    {
      check: 'budget.total',
      passed: hasTotalBudgetLeft(campaign),
      detail: `${usdt(campaign.spentMicros)} spent of ${usdt(campaign.totalBudgetMicros)}${hasTotalBudgetLeft(campaign) ? '' : ': the total budget is spent'}`,
    },
    {
      check: 'budget.daily',
      passed: hasDailyBudgetLeft(campaign, now),
      detail: `${usdt(today)} spent today (the account's day, ${campaign.timeZone}) of ${usdt(campaign.dailyBudgetMicros)}${
        hasDailyBudgetLeft(campaign, now) ? '' : `: the daily budget is spent, serving resumes at ${iso(budgetDayOf(campaign, now).end)}`
      }`,
    },
  ];
}

/**
 * The time window and every targeting rule of the campaign for one context. All of them pass exactly when the
 * matcher lets the campaign through (isLive and matchesTargeting): campaign-matcher.spec.ts holds them to it.
 */
export function matchChecks(campaign: IndexedCampaign, context: MatchContext, sources: FactSources): DeliveryCheck[] {
  const live = isLive(campaign, context.now);
  const schedule: DeliveryCheck = {
    check: 'schedule',
    passed: live,
    detail: live
      ? `running from ${iso(campaign.startTime)} to ${iso(campaign.endTime)}`
      : context.now < campaign.startTime
        ? `not started: starts at ${iso(campaign.startTime)}`
        : `finished: ended at ${iso(campaign.endTime)}`,
  };
  return [
    schedule,
    ...targetingVerdicts(campaign, context).map(({ rule, passed }) => ({
      check: `targeting.${rule}`,
      passed,
      detail: ruleDetail(rule, passed, campaign, context, sources),
    })),
  ];
}

function ruleDetail(rule: TargetingRule, passed: boolean, campaign: IndexedCampaign, context: MatchContext, sources: FactSources): string {
  const { country, language, platform } = context;
  switch (rule) {
    case 'includedRegions':
      if (campaign.includedRegions.size === 0) return 'any region';
      if (country === null) return noCountryDetail(sources);
      return passed ? `${country} is an included region` : `${country} is not among the included regions (${list(campaign.includedRegions)})`;
    case 'excludedRegions':
      if (campaign.excludedRegions.size === 0) return 'no region excluded';
      if (country === null) return 'no country: an exclude list does not exclude an unknown one';
      return passed ? `${country} is not excluded` : `${country} is an excluded region`;
    case 'includedLanguages':
      if (campaign.includedLanguages.size === 0) return 'any language';
      if (language === null) return `${NO_LANGUAGE}: language-targeted campaigns cannot match; give a language to test`;
      return passed ? `${language} is an included language` : `${language} is not among the included languages (${list(campaign.includedLanguages)})`;
    case 'excludedLanguages':
      if (campaign.excludedLanguages.size === 0) return 'no language excluded';
      if (language === null) return 'no language: an exclude list does not exclude an unknown one';
      return passed ? `${language} is not excluded` : `${language} is an excluded language`;
    case 'platform':
      if (campaign.platform === 'All') return 'any platform';
      if (platform === null) return `${NO_PLATFORM}; the campaign targets ${campaign.platform}`;
      return passed ? `${platform}, as targeted` : `${platform}: the campaign targets ${campaign.platform}`;
    default: {
      const flag = FLAGS[rule]!;
      if (!campaign[rule]) return `not required (${flag.words} or not)`;
      if (passed) return `requires ${flag.words}: the user's profile says so`;
      if (!sources.profile) return `requires ${flag.words}, and no profile was read: ${sources.noProfileReason ?? 'the user is unknown'}`;
      return `requires ${flag.words}: the user's profile says not`;
    }
  }
}

/**
 * What the serving state holds of the campaign for this user: the budget counters every process bills against,
 * the frequency cap, the exclusion after a click. `userGiven`: checks per user need an openId.
 */
export function stateChecks(
  /** The budgets, and the spend the database has recorded. */
  campaign: Pick<IndexedCampaign, 'totalBudgetMicros' | 'dailyBudgetMicros' | 'spentMicros'>,
  state: CandidateState,
  cap: FrequencyCap | null,
  userGiven: boolean,
  now: number,
): DeliveryCheck[] {
  const countersOk = countersLeaveBudget(campaign, state.spentMicros, state.daySpentMicros);
  const budgetLeft = state.leaseCoversUnit || countersOk;
  const beyond = Math.max(0, state.spentMicros - campaign.spentMicros);
  const budget: DeliveryCheck = {
    check: 'budget.serving',
    passed: budgetLeft,
    detail:
      `serving counters: ${usdt(state.spentMicros)} of ${usdt(campaign.totalBudgetMicros)} in all and ${usdt(state.daySpentMicros)} of ` +
      `${usdt(campaign.dailyBudgetMicros)} today spent or held by serving processes (${usdt(beyond)} beyond the recorded spend)` +
      (state.leasedMicros > 0 ? `, ${usdt(state.leasedMicros)} held by this process` : '') +
      (budgetLeft ? '' : ': nothing left to serve from'),
  };
  const frequencyCap: DeliveryCheck = !cap
    ? { check: 'frequencyCap', passed: true, detail: 'no frequency cap' }
    : !userGiven
      ? { check: 'frequencyCap', passed: true, detail: `not checked: no user (openId) given; the cap is ${cap.impressions} per ${hoursOf(cap.windowMs)}` }
      : {
          check: 'frequencyCap',
          passed: state.cappedImpressions < cap.impressions,
          detail: `${state.cappedImpressions} of ${cap.impressions} impressions to this user within ${hoursOf(cap.windowMs)}${
            state.cappedImpressions < cap.impressions ? '' : ': capped for this user'
          }`,
        };
  const excluded = isExcluded(state.excludedUntil, now);
  const exclusion: DeliveryCheck = !userGiven
    ? { check: 'exclusion', passed: true, detail: 'not checked: no user (openId) given' }
    : {
        check: 'exclusion',
        passed: !excluded,
        detail: excluded ? `the user clicked this ad: hidden from them until ${iso(state.excludedUntil!)}` : 'not hidden from this user',
      };
  return [budget, frequencyCap, exclusion];
}

/**
 * The even pacing line (docs/CONTRACT.md §16) against the serving counters: a campaign at or past it is held back
 * until the line moves on; `asap`, or outside its pacing period, it always passes.
 */
export function pacingCheck(candidate: ImpressionCandidate, state: CandidateState, now: number): DeliveryCheck {
  const pace = candidate.pace;
  if (!pace) return { check: 'pacing', passed: true, detail: 'not paced: asap, or outside its window today' };
  const line = paceLimit(candidate, state.spentMicros, state.daySpentMicros, now);
  const passed = state.leaseCoversUnit || state.daySpentMicros < line;
  const elapsed = Math.round((100 * (now - pace.start)) / (pace.end - pace.start));
  return {
    check: 'pacing',
    passed,
    detail:
      `even pacing: ${usdt(state.daySpentMicros)} of today's spent or held at ${elapsed} % of its period; the line is ${usdt(line)} now` +
      (passed ? '' : ': ahead of its line, held back until the line moves on'),
  };
}

/**
 * Optimization toward the campaign's event (docs/CONTRACT.md §13): the request's block's estimate beside the
 * campaign's, and whether the block's lower pacing line holds the campaign back there now. Fails only then.
 */
export function optimizationCheck(
  campaign: Pick<IndexedCampaign, 'pacing' | 'optimizationEvent'>,
  plan: Pick<CampaignBlockPlan, 'campaignEventRate'>,
  adBlockId: string | null,
  blockRate: number | null,
  heldBackFirst: boolean,
  candidate: ImpressionCandidate,
  state: CandidateState,
  now: number,
): DeliveryCheck {
  const event = campaign.optimizationEvent;
  const perMille = (rate: number) => `${Math.round(rate * 1e6) / 1e3} per 1000 impressions`;
  const campaignPart = `the campaign's estimate of ${event} is ${perMille(plan.campaignEventRate)}`;
  if (campaign.pacing !== 'even') return { check: 'optimization', passed: true, detail: `asap: no block is held back first; ${campaignPart}` };
  if (adBlockId === null) return { check: 'optimization', passed: true, detail: `${campaignPart}; give adBlockId to see the block's` };
  const blockEstimate = blockRate === null ? `${perMille(plan.campaignEventRate)} (no data yet: the campaign's)` : perMille(blockRate);
  const blockPart = `this block's estimate is ${blockEstimate}, the campaign's ${perMille(plan.campaignEventRate)}`;
  const margin = candidate.pace?.margin;
  if (margin === undefined && !heldBackFirst)
    return { check: 'optimization', passed: true, detail: `optimizes toward ${event}: ${blockPart}; a preferred block` };
  if (margin === undefined || !candidate.pace) {
    return {
      check: 'optimization',
      passed: true,
      detail: `optimizes toward ${event}: ${blockPart}; held back here first when ahead of its time (not paced now)`,
    };
  }
  const line = paceLimit(candidate, state.spentMicros, state.daySpentMicros, now);
  // a lease this process holds serves only better blocks once the counters reach this block's line
  const passed = state.daySpentMicros < line;
  const ahead = Math.round(margin * 1000) / 10;
  return {
    check: 'optimization',
    passed,
    detail:
      `optimizes toward ${event}: ${blockPart}; held back here first: the line on this block runs ${ahead} % ahead of the time elapsed (${usdt(line)} now)` +
      (passed ? '' : ': ahead of it, serving better blocks until the line moves on'),
  };
}

function hoursOf(windowMs: number): string {
  const hours = windowMs / 3_600_000;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}

/** "1st", "2nd", "3rd", "11th", … */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** A bid in words: "2.5 USDT per 1000 impressions (CPM)" or "0.05 USDT per click (CPC)". */
function bidWords(campaign: Pick<IndexedCampaign, 'billingType' | 'costPerMicros'>): string {
  return campaign.billingType === 'CPM' ? `${usdt(campaign.costPerMicros)} per 1000 impressions (CPM)` : `${usdt(campaign.costPerMicros)} per click (CPC)`;
}

/**
 * The block's controls for the campaign (docs/CONTRACT.md §18): its floor for the campaign's billing type, its blocked
 * categories and domains. Each fails exactly when refusedBy names it (block-controls.spec.ts holds them to it).
 */
export function controlChecks(campaign: IndexedCampaign, controls: BlockControls | null): DeliveryCheck[] {
  const floor = controls === null ? 0 : campaign.billingType === 'CPM' ? controls.floorCpmMicros : controls.floorCpcMicros;
  const category = campaign.category ?? 'other';
  const host = campaign.destinationHost ?? '';
  const domain = controls === null ? null : blockingDomain(host, controls.blockedDomains);
  return [
    {
      check: 'floor',
      passed: campaign.costPerMicros >= floor,
      detail:
        floor === 0
          ? `this block has no ${campaign.billingType} floor`
          : campaign.costPerMicros >= floor
            ? `${bidWords(campaign)} is at or above this block's floor of ${usdt(floor)}`
            : `${bidWords(campaign)} is below this block's floor of ${usdt(floor)}: bid at least that to serve here`,
    },
    controls !== null && controls.blockedCategories.has(category)
      ? { check: 'category', passed: false, detail: `blocked category: ${category} is not served on this block` }
      : { check: 'category', passed: true, detail: `${category} is not blocked on this block` },
    domain !== null
      ? { check: 'domain', passed: false, detail: `blocked domain: the landing host ${host} is under ${domain}, blocked on this block` }
      : { check: 'domain', passed: true, detail: `the landing host ${host} is not blocked on this block` },
  ];
}

/**
 * Without a block: how many of the network's ad blocks each control keeps the campaign off, never which blocks or
 * whose. A check fails only when every block refuses the campaign.
 */
export function networkControlChecks(campaign: IndexedCampaign, network: { blocks: number; controls: readonly BlockControls[] }): DeliveryCheck[] {
  const refusing = { floor: [] as number[], category: 0, domain: 0 };
  for (const controls of network.controls) {
    const rule = refusedBy(controls, campaign);
    if (rule === 'floor') refusing.floor.push(campaign.billingType === 'CPM' ? controls.floorCpmMicros : controls.floorCpcMicros);
    else if (rule !== null) refusing[rule] += 1;
  }
  const of = (n: number) => `${n} of ${network.blocks} ad ${network.blocks === 1 ? 'block' : 'blocks'}`;
  const passed = (n: number) => network.blocks === 0 || n < network.blocks;
  const floors = refusing.floor.length;
  const category = campaign.category ?? 'other';
  return [
    {
      check: 'floor',
      passed: passed(floors),
      detail:
        floors === 0
          ? `${bidWords(campaign)} clears the floor of every ad block`
          : `${bidWords(campaign)} is below the floor of ${of(floors)}; ${usdt(Math.max(...refusing.floor))} clears them all`,
    },
    {
      check: 'category',
      passed: passed(refusing.category),
      detail: refusing.category === 0 ? `${category} is blocked on no ad block` : `${category} is a blocked category on ${of(refusing.category)}`,
    },
    {
      check: 'domain',
      passed: passed(refusing.domain),
      detail:
        refusing.domain === 0
          ? `the landing host ${campaign.destinationHost ?? ''} is blocked on no ad block`
          : `the landing host ${campaign.destinationHost ?? ''} is a blocked domain on ${of(refusing.domain)}`,
    },
  ];
}

/** A block's own controls in words, for its publisher (a block alone): what it refuses. */
export function blockControlChecks(controls: BlockControls | null): DeliveryCheck[] {
  const floorWords = (micros: number) => (micros === 0 ? 'none' : usdt(micros));
  const categories = controls === null ? [] : [...controls.blockedCategories].sort();
  const domains = controls === null ? [] : [...controls.blockedDomains].sort();
  return [
    {
      check: 'floor',
      passed: true,
      detail: `floors: CPM ${floorWords(controls?.floorCpmMicros ?? 0)} per 1000 impressions, CPC ${floorWords(controls?.floorCpcMicros ?? 0)} per click; lower bids are not served here`,
    },
    {
      check: 'category',
      passed: true,
      detail: categories.length === 0 ? 'no category blocked' : `blocked categories: ${categories.join(', ')}`,
    },
    {
      check: 'domain',
      passed: true,
      detail: domains.length === 0 ? 'no domain blocked' : `blocked domains (and their subdomains): ${domains.join(', ')}`,
    },
  ];
}
