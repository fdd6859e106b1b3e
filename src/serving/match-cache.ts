import type { BlockControls } from '../ad-blocks/ad-blocks.service';
import { refusedBy } from './block-controls';
import type { IndexedCampaign, MatchContext } from './campaign-matcher';
import type { SkipSet } from './skip-set';
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
  /**
   * The answer past the shared skip set (see select), with the set, its version and how far its change log reached
   * (generation and length) when it was found.
   */
  skipping: AnswerPast | undefined;
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
  /** Each campaign's position in the list, for the skip set as a bitset. */
  private readonly positions = new Map<string, number>();
  /** The shared skip set's positions (see skipBits), as of `skipApplied` changes of its generation `skipGeneration`. */
  private skipOf: SkipSet | null = null;
  private skipGeneration = -1;
  private skipApplied = 0;
  private skipBitset = new Uint32Array(0);

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
   * The positions of the shared skip set's campaigns, kept up to date by replaying the set's changes since the last
   * call (built whole for a new set or generation): a scan clears them a word at a time instead of looking each
   * campaign up in the set (holding back the best fifth of 100,000 campaigns put 20,000 lookups in a scan).
   */
  skipBits(skip: SkipSet): Uint32Array {
    const changes = skip.changes;
    if (this.skipOf !== skip || this.skipGeneration !== skip.generation) {
      this.skipOf = skip;
      this.skipGeneration = skip.generation;
      this.skipBitset = new Uint32Array(this.words);
      for (const id of skip.values()) {
        const i = this.positions.get(id);
        if (i !== undefined) this.skipBitset[i >>> 5] |= 1 << (i & 31);
      }
      this.skipApplied = changes.length;
      return this.skipBitset;
    }
    for (; this.skipApplied < changes.length; this.skipApplied++) {
      const id = changes[this.skipApplied];
      const i = this.positions.get(id);
      if (i === undefined) continue;
      if (skip.has(id)) this.skipBitset[i >>> 5] |= 1 << (i & 31);
      else this.skipBitset[i >>> 5] &= ~(1 << (i & 31));
    }
    return this.skipBitset;
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
   * The first `max` live campaigns matching the context that are in none of `shared`, `skip` and `offered`, in rank
   * order. `shared` is what the index skips now (out of budget, ahead of the pacing line; see SkipSet): when it leaves
   * too few of the kept entries, the answer past it is kept too, for the set's version, and found again until
   * campaigns leave the set (campaigns added since are filtered from it). Without it, every request of a context whose
   * best campaigns were held back scanned past them. `skip` (an ad block's own hold-backs) and `offered` (a request's
   * own earlier candidates) are filtered from either answer.
   */
  select(
    ranked: readonly IndexedCampaign[],
    context: MatchContext,
    max: number,
    skip?: ReadonlySet<string>,
    controls: BlockControls | null = null,
    offered?: ReadonlySet<string>,
    shared?: SkipSet,
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
    const skipped = shared !== undefined && shared.size > 0 ? shared : undefined;
    let skipping = entry.skipping;
    const kept =
      skipped !== undefined &&
      skipping !== undefined &&
      skipping.skip === skipped &&
      skipping.version === skipped.version &&
      now >= skipping.validFrom &&
      now < skipping.validUntil;
    if (!kept) {
      const picked = pickFrom(entry, max, skip, offered, skipped);
      if (picked.length >= max || entry.complete) return picked;
      if (skipped === undefined) return scanMatching(ranked, entry.matching, now, max, skip, offered);
    }
    // the kept entries do not reach: the shared set's campaigns are cleared from the scan a word at a time, and the
    // answer past them is kept (deeper rounds ask for more than it holds)
    const skipBits = this.bitsets!.skipBits(skipped!);
    if (max > CACHED_DEPTH) return scanMatching(ranked, entry.matching, now, max, skip, offered, skipBits);
    if (kept) {
      const picked = pickPast(skipping!, max, skip, offered, skipped!);
      if (picked.length >= max || skipping!.complete) return picked;
      // it fell short by campaigns added to the set since: found again past them
    }
    skipping = answerPast(ranked, entry.matching, now, skipped!, skipBits);
    entry.skipping = skipping;
    const picked = pickPast(skipping, max, skip, offered, skipped!);
    if (picked.length >= max || skipping.complete) return picked;
    return scanMatching(ranked, entry.matching, now, max, skip, offered, skipBits);
  }
}

type AnswerPast = MatchAnswer & { skip: SkipSet; version: number; generation: number; changes: number };

/** The first CACHED_DEPTH live matching campaigns past the shared set, with how far the set had changed. */
function answerPast(ranked: readonly IndexedCampaign[], matching: ContextBits, now: number, shared: SkipSet, skipBits: Uint32Array): AnswerPast {
  const answer = scanAnswer(ranked, matching, now, CACHED_DEPTH, skipBits);
  // every field named, in one order: one hidden class for all of them (a spread of the answer was dear here)
  return {
    campaigns: answer.campaigns,
    complete: answer.complete,
    validFrom: answer.validFrom,
    validUntil: answer.validUntil,
    skip: shared,
    version: shared.version,
    generation: shared.generation,
    changes: shared.changes.length,
  };
}

/** pickFrom on an answer past the shared set: the campaigns added to the set since are filtered; none were, no lookups. */
function pickPast(
  answer: AnswerPast,
  max: number,
  skip: ReadonlySet<string> | undefined,
  offered: ReadonlySet<string> | undefined,
  shared: SkipSet,
): IndexedCampaign[] {
  const added = answer.generation !== shared.generation || answer.changes !== shared.changes.length;
  return pickFrom(answer, max, skip, offered, added ? shared : undefined);
}

/** The first `max` campaigns of the answer in none of the sets. */
function pickFrom(
  answer: MatchAnswer,
  max: number,
  skip: ReadonlySet<string> | undefined,
  offered: ReadonlySet<string> | undefined,
  shared: SkipSet | undefined,
): IndexedCampaign[] {
  const picked: IndexedCampaign[] = [];
  for (const campaign of answer.campaigns) {
    if (picked.length >= max) break;
    const id = campaign.id;
    if (!shared?.has(id) && !skip?.has(id) && !offered?.has(id)) picked.push(campaign);
  }
  return picked;
}

/**
 * selectCandidates over the context's matching positions: the first `max` live ones not in `skipBits` (the shared skip
 * set's positions), `skip` or `offered`, in rank order.
 */
function scanMatching(
  ranked: readonly IndexedCampaign[],
  matching: ContextBits,
  now: number,
  max: number,
  skip?: ReadonlySet<string>,
  offered?: ReadonlySet<string>,
  skipBits?: Uint32Array,
): IndexedCampaign[] {
  const picked: IndexedCampaign[] = [];
  const words = matching.region.length;
  for (let w = 0; w < words; w++) {
    // a word of skipped campaigns only (the held-back best of the list) is passed without reading the context's words
    const free = skipBits === undefined ? -1 : ~skipBits[w];
    if (free === 0) continue;
    let word = matchingWord(matching, w) & free;
    while (word !== 0) {
      const bit = 31 - Math.clz32(word & -word);
      word &= word - 1;
      const campaign = ranked[(w << 5) + bit];
      if (skip?.has(campaign.id) || offered?.has(campaign.id) || !isLive(campaign, now)) continue;
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
    const free = skipBits === undefined ? -1 : ~skipBits[w];
    if (free === 0) continue;
    let word = matchingWord(matching, w) & free;
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
