import type { BlockControls } from '../ad-blocks/ad-blocks.service';
import { refusedBy } from './block-controls';
import type { IndexedCampaign, MatchContext } from './campaign-matcher';
import { isLive } from './targeting-rules';

/** How many matching campaigns a cached entry keeps: enough for the first rounds of any request (limit 9 + spares). */
const CACHED_DEPTH = 32;
const MAX_CACHED_CONTEXTS = 10_000;

/** The best live, matching campaigns of a context not in a skip set, in rank order, and when that answer holds. */
interface MatchAnswer {
  campaigns: IndexedCampaign[];
  /** True when these are all of them (the scan reached the end of the ranked list). */
  complete: boolean;
  /** The times for which the answer holds: no scanned campaign starts or ends inside [validFrom, validUntil). */
  validFrom: number;
  validUntil: number;
}

interface CachedMatch extends MatchAnswer {
  /** The context's matching positions, for the scans past `campaigns`. */
  matching: ContextBits;
  /** The answer for one skip set (see select), with the set it was found for. */
  skipping: (MatchAnswer & { skip: ReadonlySet<string> }) | undefined;
}

/**
 * Campaigns skipped since the shared skip set was built (see CampaignIndexService), in the order they were: a set for
 * lookups, and the list, from which MatchCache keeps their positions as a bitset, adding only the ones new since.
 */
export class RecentSkips {
  private readonly set = new Set<string>();
  readonly ids: string[] = [];

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.set.has(id);
  }

  add(id: string): void {
    if (this.set.has(id)) return;
    this.set.add(id);
    this.ids.push(id);
  }
}

/** What targeting sees of a context: requests with equal keys match the same campaigns. */
export function targetingKey(context: MatchContext): string {
  return `${context.country ?? ''}|${context.language ?? ''}|${context.platform ?? ''}|${flagBitsOf(context)}`;
}

/**
 * Which campaigns of a ranked list each targeting value lets through, as bitsets over the list's positions (bit i
 * is ranked[i]). One pass over the list files every campaign under the values its targeting names; the set of a
 * value is then a few word operations (those without an include list and not excluding the value, or including
 * it). ANDing the four sets of a context gives the campaigns it matches, in rank order, without a targeting check
 * per campaign: checking all 10,000 campaigns for each of a hundred contexts stalled the process for a quarter of a
 * second after every index refresh.
 */
class TargetingBitsets {
  private readonly words!: number;
  private readonly regions: ListBitsets;
  private readonly languages: ListBitsets;
  private readonly anyPlatform: Uint32Array;
  private readonly platform = new Map<string, Uint32Array>();
  /** Campaigns by the flags they require (targetingKey's bits). */
  private readonly byRequiredFlags: Uint32Array[] = [];
  private readonly cache = new Map<string, Uint32Array>();
  /** Each campaign's position in the list, for skip sets as bitsets. */
  private readonly positions = new Map<string, number>();
  /** Shared skip sets as bitsets over the list's positions, by the set (see skipBits). */
  private readonly skipBitsBySet = new WeakMap<ReadonlySet<string>, Uint32Array>();
  private recentOf: RecentSkips | null = null;
  private recentBitset = new Uint32Array(0);
  private recentMarked = 0;

  constructor(private readonly ranked: readonly IndexedCampaign[]) {
    const words = (this.words = Math.ceil(ranked.length / 32));
    this.regions = new ListBitsets(words);
    this.languages = new ListBitsets(words);
    this.anyPlatform = new Uint32Array(words);
    for (let m = 0; m < 32; m++) this.byRequiredFlags.push(new Uint32Array(words));
  }

  static of(ranked: readonly IndexedCampaign[]): TargetingBitsets {
    const bitsets = new TargetingBitsets(ranked);
    bitsets.file(0, ranked.length);
    return bitsets;
  }

  /** Built in slices, the event loop turning between them (for the index's periodic refresh). */
  static async inSlices(ranked: readonly IndexedCampaign[], slice = 1000): Promise<TargetingBitsets> {
    const bitsets = new TargetingBitsets(ranked);
    for (let from = 0; from < ranked.length; from += slice) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      bitsets.file(from, Math.min(ranked.length, from + slice));
    }
    return bitsets;
  }

  private file(from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const campaign = this.ranked[i];
      const word = i >>> 5;
      const bit = 1 << (i & 31);
      this.positions.set(campaign.id, i);
      this.regions.add(campaign.includedRegions, campaign.excludedRegions, word, bit);
      this.languages.add(campaign.includedLanguages, campaign.excludedLanguages, word, bit);
      if (campaign.platform === 'All') this.anyPlatform[word] |= bit;
      else bitsetOf(this.platform, campaign.platform, this.words)[word] |= bit;
      this.byRequiredFlags[requiredFlags(campaign)][word] |= bit;
    }
  }

  isFor(ranked: readonly IndexedCampaign[]): boolean {
    return this.ranked === ranked;
  }

  /**
   * The positions whose campaigns pass every targeting rule for the context (time windows not checked), as the four
   * sets of its values: a scan ANDs a word of each as it reads it (matchingWord), so one that stops early reads only
   * the words it needs and its cost does not grow with the campaigns behind the ones it takes.
   */
  matching(context: MatchContext, flagBits: number, controls: BlockControls | null): ContextBits {
    return {
      allowed:
        controls === null ? this.memo('a', () => new Uint32Array(this.words).fill(0xffffffff)) : this.memo(`b${controls.key}`, () => this.allowedBy(controls)),
      region: this.memo(`r${context.country}`, () => this.regions.passing(context.country)),
      language: this.memo(`l${context.language}`, () => this.languages.passing(context.language)),
      platform: this.memo(`p${context.platform}`, () => or(this.anyPlatform, context.platform === null ? undefined : this.platform.get(context.platform))),
      flags: this.memo(`f${flagBits}`, () => {
        const allowed = new Uint32Array(this.words);
        // a campaign passes when every flag it requires is among the user's
        for (let m = 0; m < 32; m++) if ((m & ~flagBits) === 0) orInto(allowed, this.byRequiredFlags[m]);
        return allowed;
      }),
    };
  }

  /**
   * The positions of a skip set's campaigns, built once per set: a scan clears them a word at a time instead of
   * looking each campaign up in the set (holding back the best fifth of 100,000 campaigns put 20,000 lookups in a scan).
   */
  skipBits(skip: ReadonlySet<string>): Uint32Array {
    let bits = this.skipBitsBySet.get(skip);
    if (bits === undefined) {
      bits = new Uint32Array(this.words);
      for (const id of skip) this.mark(bits, id);
      this.skipBitsBySet.set(skip, bits);
    }
    return bits;
  }

  /** RecentSkips' positions, kept for one RecentSkips: only the campaigns added since the last call are set. */
  recentBits(recent: RecentSkips): Uint32Array {
    if (this.recentOf !== recent) {
      this.recentOf = recent;
      this.recentBitset = new Uint32Array(this.words);
      this.recentMarked = 0;
    }
    for (; this.recentMarked < recent.ids.length; this.recentMarked++) this.mark(this.recentBitset, recent.ids[this.recentMarked]);
    return this.recentBitset;
  }

  private mark(bits: Uint32Array, id: string): void {
    const i = this.positions.get(id);
    if (i !== undefined) bits[i >>> 5] |= 1 << (i & 31);
  }

  /** The positions a block's controls let through: one pass over the list per controls, not a check per request. */
  private allowedBy(controls: BlockControls): Uint32Array {
    const allowed = new Uint32Array(this.words);
    for (let i = 0; i < this.ranked.length; i++) if (refusedBy(controls, this.ranked[i]) === null) allowed[i >>> 5] |= 1 << (i & 31);
    return allowed;
  }

  private memo(key: string, build: () => Uint32Array): Uint32Array {
    let bits = this.cache.get(key);
    if (bits === undefined) {
      bits = build();
      this.cache.set(key, bits);
    }
    return bits;
  }
}

/** The sets of the values of one context (TargetingBitsets.matching); all of the same length. */
interface ContextBits {
  /** The positions the block's controls let through (all of them for a block without controls). */
  allowed: Uint32Array;
  region: Uint32Array;
  language: Uint32Array;
  platform: Uint32Array;
  flags: Uint32Array;
}

/** Word `w` of the context's matching positions. */
function matchingWord(bits: ContextBits, w: number): number {
  return bits.allowed[w] & bits.region[w] & bits.language[w] & bits.platform[w] & bits.flags[w];
}

/** An include/exclude list pair of every campaign, filed by value (the rule of matchesTargeting). */
class ListBitsets {
  /** Campaigns without an include list: they pass any value they do not exclude, and an unknown one. */
  private readonly open: Uint32Array;
  private readonly included = new Map<string, Uint32Array>();
  private readonly excluded = new Map<string, Uint32Array>();

  constructor(private readonly words: number) {
    this.open = new Uint32Array(words);
  }

  add(included: Set<string>, excluded: Set<string>, word: number, bit: number): void {
    if (included.size === 0) this.open[word] |= bit;
    for (const value of included) bitsetOf(this.included, value, this.words)[word] |= bit;
    for (const value of excluded) bitsetOf(this.excluded, value, this.words)[word] |= bit;
  }

  passing(value: string | null): Uint32Array {
    const result = new Uint32Array(this.words);
    if (value === null) {
      result.set(this.open);
      return result;
    }
    const included = this.included.get(value);
    const excluded = this.excluded.get(value);
    for (let w = 0; w < this.words; w++) {
      result[w] = (this.open[w] | (included ? included[w] : 0)) & ~(excluded ? excluded[w] : 0);
    }
    return result;
  }
}

function bitsetOf(sets: Map<string, Uint32Array>, value: string, words: number): Uint32Array {
  let bits = sets.get(value);
  if (bits === undefined) {
    bits = new Uint32Array(words);
    sets.set(value, bits);
  }
  return bits;
}

function or(a: Uint32Array, b: Uint32Array | undefined): Uint32Array {
  const result = new Uint32Array(a);
  if (b) orInto(result, b);
  return result;
}

function orInto(target: Uint32Array, source: Uint32Array): void {
  for (let w = 0; w < target.length; w++) target[w] |= source[w];
}

/** Premium, high value, linked wallet, primary wallet, wallet balance, as bits 1, 2, 4, 8, 16. */
function flagBits(premium: boolean, highValue: boolean, wallet: boolean, primaryWallet: boolean, balance: boolean): number {
  return (premium ? 1 : 0) | (highValue ? 2 : 0) | (wallet ? 4 : 0) | (primaryWallet ? 8 : 0) | (balance ? 16 : 0);
}

/** The flags a campaign requires. */
function requiredFlags(c: IndexedCampaign): number {
  return flagBits(c.messengerPremium, c.isHighValueUser, c.userLinkedWallet, c.userLinkedChainWallet, c.userWalletHasBalanceOnChain);
}

/** The flags the user has. */
function flagBitsOf(c: MatchContext): number {
  return flagBits(c.premium, c.highValue, c.linkedWallet, c.linkedChainWallet, c.walletHasBalance);
}

/**
 * selectCandidates with memory: thousands of requests a second share a few hundred targeting contexts, so the
 * matching campaigns of a context are found once per ranked list (a new list, after any change, starts afresh)
 * and reused while the request's time is inside the window in which none of them starts or ends.
 * Same answers as selectCandidates. When the kept entries do not reach `max` (later rounds, many campaigns skipped)
 * it scans the context's matching positions from the top, skipping `skip`: never a targeting check per campaign,
 * which over 100,000 campaigns cost milliseconds per request for a context few of them match.
 */
export class MatchCache {
  private ranked: readonly IndexedCampaign[] | null = null;
  /** The answers of blocks without controls, by targeting key. */
  private entries = new Map<string, CachedMatch>();
  /**
   * The answers of blocks with controls, by controls key, then targeting key: two lookups of strings built once (the
   * controls key is the block's, the targeting key the request's), never a key concatenated per request.
   */
  private controlledEntries = new Map<string, Map<string, CachedMatch>>();
  private cachedCount = 0;
  private bitsets: TargetingBitsets | null = null;

  private prepared: TargetingBitsets | null = null;

  /**
   * Builds the bitsets of a ranked list about to be served, in slices (a periodic refresh of thousands of campaigns
   * would otherwise stall requests for milliseconds when the first of them arrives).
   */
  async prepare(ranked: readonly IndexedCampaign[]): Promise<void> {
    const bitsets = await TargetingBitsets.inSlices(ranked);
    this.prepared = bitsets;
  }

  /**
   * The first `max` live campaigns matching the context that are in neither `skip` nor `offered`, in rank order.
   * `skip` is what the index skips now (out of budget, ahead of the pacing line). When it leaves too few of the kept
   * entries and it is `sharedSkip` (the index's own set, handed to every request: the index hands out a new one
   * whenever what it skips changes and never changes one it handed out), the answer past them is kept too, found again
   * by the set's identity. Without it, every request of a context whose best campaigns were held back scanned past
   * them. `offered` (a request's own earlier candidates) and `recent` (skipped since the shared set was built) are
   * filtered from either answer.
   */
  select(
    ranked: readonly IndexedCampaign[],
    context: MatchContext,
    max: number,
    skip?: ReadonlySet<string>,
    controls: BlockControls | null = null,
    offered?: ReadonlySet<string>,
    sharedSkip = false,
    recent?: RecentSkips,
  ): IndexedCampaign[] {
    if (ranked !== this.ranked || this.cachedCount >= MAX_CACHED_CONTEXTS) {
      if (ranked !== this.ranked) this.bitsets = this.prepared?.isFor(ranked) ? this.prepared : TargetingBitsets.of(ranked);
      this.prepared = null;
      this.ranked = ranked;
      this.entries = new Map();
      this.controlledEntries = new Map();
      this.cachedCount = 0;
    }
    const key = targetingKey(context);
    let entries = this.entries;
    if (controls !== null) {
      entries = this.controlledEntries.get(controls.key) ?? new Map<string, CachedMatch>();
      if (entries.size === 0) this.controlledEntries.set(controls.key, entries);
    }
    const now = context.now;
    let entry = entries.get(key);
    if (entry === undefined || now < entry.validFrom || now >= entry.validUntil) {
      if (entry === undefined) this.cachedCount += 1;
      const matching = this.bitsets!.matching(context, flagBitsOf(context), controls);
      const answer = scanAnswer(ranked, matching, now, CACHED_DEPTH);
      // every field set here, in one order: one hidden class for all entries (skipping is set later)
      entry = {
        campaigns: answer.campaigns,
        complete: answer.complete,
        validFrom: answer.validFrom,
        validUntil: answer.validUntil,
        matching,
        skipping: undefined,
      };
      entries.set(key, entry);
    }
    let skipping = entry.skipping;
    const kept = skipping !== undefined && skipping.skip === skip && now >= skipping.validFrom && now < skipping.validUntil;
    const shared = sharedSkip && skip !== undefined && skip.size > 0;
    if (!kept) {
      const picked = pickFrom(entry, max, skip, offered, recent);
      if (picked.length >= max || entry.complete) return picked;
      // the kept entries do not reach: a shared skip set's campaigns are cleared from the scan a word at a time, and the
      // answer past them is kept for the set (a set made for one request would only replace it; deeper rounds ask for
      // more than it holds)
      const skipBits = shared ? this.bitsets!.skipBits(skip) : undefined;
      if (skipBits === undefined || max > CACHED_DEPTH) return this.scan(ranked, entry.matching, now, max, skip, offered, recent, skipBits);
      const answer = scanAnswer(ranked, entry.matching, now, CACHED_DEPTH, skipBits);
      skipping = { campaigns: answer.campaigns, complete: answer.complete, validFrom: answer.validFrom, validUntil: answer.validUntil, skip: skip! };
      entry.skipping = skipping;
    }
    const picked = pickFrom(skipping!, max, undefined, offered, recent);
    if (picked.length >= max || skipping!.complete) return picked;
    return this.scan(ranked, entry.matching, now, max, skip, offered, recent, this.bitsets!.skipBits(skip!));
  }

  /** scanMatching, with the recently skipped campaigns cleared a word at a time too. */
  private scan(
    ranked: readonly IndexedCampaign[],
    matching: ContextBits,
    now: number,
    max: number,
    skip: ReadonlySet<string> | undefined,
    offered: ReadonlySet<string> | undefined,
    recent: RecentSkips | undefined,
    skipBits: Uint32Array | undefined,
  ): IndexedCampaign[] {
    const recentBits = recent !== undefined && recent.size > 0 ? this.bitsets!.recentBits(recent) : undefined;
    return scanMatching(ranked, matching, now, max, skip, offered, skipBits, recentBits);
  }
}

/** The first `max` campaigns of the answer in none of the sets. */
function pickFrom(
  answer: MatchAnswer,
  max: number,
  skip: ReadonlySet<string> | undefined,
  offered: ReadonlySet<string> | undefined,
  recent: RecentSkips | undefined,
): IndexedCampaign[] {
  const picked: IndexedCampaign[] = [];
  for (const campaign of answer.campaigns) {
    if (picked.length >= max) break;
    const id = campaign.id;
    if (!skip?.has(id) && !offered?.has(id) && !recent?.has(id)) picked.push(campaign);
  }
  return picked;
}

/** selectCandidates over the context's matching positions: the first `max` live ones not in `skip`, in rank order. */
function scanMatching(
  ranked: readonly IndexedCampaign[],
  matching: ContextBits,
  now: number,
  max: number,
  skip?: ReadonlySet<string>,
  offered?: ReadonlySet<string>,
  skipBits?: Uint32Array,
  recentBits?: Uint32Array,
): IndexedCampaign[] {
  const picked: IndexedCampaign[] = [];
  const words = matching.region.length;
  for (let w = 0; w < words; w++) {
    let word = matchingWord(matching, w);
    if (skipBits !== undefined) word &= ~skipBits[w];
    if (recentBits !== undefined) word &= ~recentBits[w];
    while (word !== 0) {
      const bit = 31 - Math.clz32(word & -word);
      word &= word - 1;
      const campaign = ranked[(w << 5) + bit];
      if ((skipBits === undefined && skip?.has(campaign.id)) || offered?.has(campaign.id) || !isLive(campaign, now)) continue;
      picked.push(campaign);
      if (picked.length >= max) return picked;
    }
  }
  return picked;
}

/**
 * The first `depth` live campaigns among the matching positions that are not in `skipBits`, and the time window the
 * answer holds for (a skipped campaign is left out whether it is live or not, so its times do not narrow it).
 */
function scanAnswer(ranked: readonly IndexedCampaign[], matching: ContextBits, now: number, depth: number, skipBits?: Uint32Array): MatchAnswer {
  const campaigns: IndexedCampaign[] = [];
  let validFrom = -Infinity;
  let validUntil = Infinity;
  const words = matching.region.length;
  for (let w = 0; w < words; w++) {
    let word = matchingWord(matching, w);
    if (skipBits !== undefined) word &= ~skipBits[w];
    while (word !== 0) {
      const bit = 31 - Math.clz32(word & -word);
      word &= word - 1;
      const campaign = ranked[(w << 5) + bit];
      if (now < campaign.startTime) {
        validUntil = Math.min(validUntil, campaign.startTime);
        continue;
      }
      if (now >= campaign.endTime) {
        validFrom = Math.max(validFrom, campaign.endTime);
        continue;
      }
      validFrom = Math.max(validFrom, campaign.startTime);
      validUntil = Math.min(validUntil, campaign.endTime);
      campaigns.push(campaign);
      if (campaigns.length >= depth) return { campaigns, complete: false, validFrom, validUntil };
    }
  }
  return { campaigns, complete: true, validFrom, validUntil };
}
