import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../common/clock';
import { TrafficClassifier } from '../trust/traffic-classifier';
import { CampaignIndexService } from './campaign-index.service';
import type { IndexedCampaign, MatchContext, Platform } from './campaign-matcher';
import { GeoService } from './geo.service';
import { languageFromAcceptLanguage, platformFromUserAgent } from './request-context';
import { servedAdsJson } from './served-ads-json';
import { servedMessage, toCandidate } from './serving.service';

/** The warm-up stops at whichever comes first. */
const WARMUP_MAX_CONTEXTS = 4000;
const WARMUP_BUDGET_MS = 1500;
/** Passes over the matched contexts: the first fills the caches, the later ones run the warm path until V8 optimizes it. */
const WARMUP_PASSES = 3;
const PLATFORMS: (Platform | null)[] = ['iOS', 'Android', 'Desktop', null];
/** The user's flags most users have first (none, then one at a time), then the rarer combinations. */
const FLAG_SETS = [0, 1, 2, 4, 8, 16, 5, 12, 20, 28, 3, 6];
const BROWSER_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
];

export interface WarmupSummary {
  contexts: number;
  campaigns: number;
  ms: number;
}

/**
 * Warms the ad fetch before the process listens (so before `/health` answers): a fresh process otherwise served
 * its first seconds at a fraction of its speed (docs/PERFORMANCE.md#warm-up). It runs the pure parts of the
 * serve path over the real campaign index: the match cache of each targeting context the index's campaigns name,
 * the answer JSON and serving-state candidate of every campaign matched, the request parsers, the bot check and the
 * geo lookup, several times over so that V8 optimizes them. It reads and fills only caches: it never calls the
 * serving state or the stats writer, so nothing is reserved, billed or counted.
 */
@Injectable()
export class ServingWarmup implements OnApplicationBootstrap {
  private readonly logger = new Logger(ServingWarmup.name);

  constructor(
    private readonly index: CampaignIndexService,
    private readonly geo: GeoService,
    private readonly traffic: TrafficClassifier,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    const summary = this.warm();
    if (summary.contexts > 0) {
      this.logger.log(`warmed the ad fetch: ${summary.contexts} targeting contexts, ${summary.campaigns} campaigns in ${summary.ms} ms`);
    }
  }

  warm(maxContexts = WARMUP_MAX_CONTEXTS, budgetMs = WARMUP_BUDGET_MS): WarmupSummary {
    const started = performance.now();
    const ranked = this.index.ranked;
    if (ranked.length === 0) return { contexts: 0, campaigns: 0, ms: 0 };
    this.warmRequestParsers();
    const now = this.clock.now();
    const contexts = [...contextsOf(ranked, now, maxContexts)];
    const warmed = new Set<IndexedCampaign>();
    let done = 0;
    for (let pass = 0; pass < WARMUP_PASSES; pass++) {
      for (let i = 0; i < contexts.length; i++) {
        const picked = this.index.candidates(contexts[i], 5);
        servedAdsJson(servedMessage(picked.length), 'warm-up', picked);
        for (const campaign of picked) {
          toCandidate(campaign, now);
          warmed.add(campaign);
        }
        if (pass === 0) done = i + 1;
        if (performance.now() - started > budgetMs) return { contexts: done, campaigns: warmed.size, ms: Math.round(performance.now() - started) };
      }
    }
    return { contexts: done, campaigns: warmed.size, ms: Math.round(performance.now() - started) };
  }

  /** The per-request parsers and checks of the serve path, on a browser's headers (their caches keep these few). */
  private warmRequestParsers(): void {
    for (let i = 0; i < 300; i++) {
      const agent = BROWSER_AGENTS[i % BROWSER_AGENTS.length];
      platformFromUserAgent(agent);
      languageFromAcceptLanguage('en-US,en;q=0.9');
      this.traffic.invalidReason({ ip: '203.0.113.7', userAgent: agent });
      this.geo.countryOf('8.8.8.8');
    }
  }
}

/** Targeting contexts over the countries and languages the campaigns name (and none), most common flags first. */
function* contextsOf(ranked: readonly IndexedCampaign[], now: number, max: number): Generator<MatchContext> {
  const countries = new Set<string | null>([null]);
  const languages = new Set<string | null>([null]);
  for (const campaign of ranked) {
    for (const country of campaign.includedRegions) countries.add(country);
    for (const country of campaign.excludedRegions) countries.add(country);
    for (const language of campaign.includedLanguages) languages.add(language);
    for (const language of campaign.excludedLanguages) languages.add(language);
  }
  let count = 0;
  for (const flags of FLAG_SETS) {
    for (const platform of PLATFORMS) {
      for (const language of languages) {
        for (const country of countries) {
          if (count++ >= max) return;
          yield {
            now,
            country,
            language,
            platform,
            premium: (flags & 1) !== 0,
            highValue: (flags & 2) !== 0,
            linkedWallet: (flags & 4) !== 0,
            linkedChainWallet: (flags & 8) !== 0,
            walletHasBalance: (flags & 16) !== 0,
          };
        }
      }
    }
  }
}
