import { Injectable, OnModuleInit } from '@nestjs/common';
import { isbot } from 'isbot';
import { LruCache } from '../common/lru-cache';
import { DatacenterNetworks } from './datacenter-networks';

/**
 * Why a request is general invalid traffic (MRC): answered as usual, never billed, counted apart.
 * See docs/TRUST_AND_SAFETY.md.
 */
export type InvalidTrafficReason = 'emptyUserAgent' | 'bot' | 'datacenter';

export interface TrafficFacts {
  ip: string;
  userAgent: string | undefined;
}

/** Loaded once per process and shared: the table is the same for every application instance. */
let sharedNetworks: DatacenterNetworks | undefined;
function datacenterNetworks(): DatacenterNetworks {
  sharedNetworks ??= DatacenterNetworks.load();
  return sharedNetworks;
}

/** User agents whose bot verdict is remembered; longer agents are judged every time (a flood of them stays small). */
const REMEMBERED_AGENTS = 5_000;
const MAX_REMEMBERED_AGENT_LENGTH = 512;

/** Tells general invalid traffic from the request alone: known bots and HTTP libraries, empty agents, data centres. */
@Injectable()
export class TrafficClassifier implements OnModuleInit {
  /** Agent -> isbot's verdict: its one large pattern cost 3 % of an ad fetch, and a few agents make most traffic. */
  private readonly botVerdicts = new LruCache<string, boolean>(REMEMBERED_AGENTS);

  /** The data-centre table is read at start, not by the first request. */
  onModuleInit(): void {
    datacenterNetworks();
  }

  invalidReason(facts: TrafficFacts): InvalidTrafficReason | null {
    const userAgent = facts.userAgent?.trim();
    if (!userAgent) return 'emptyUserAgent';
    if (this.isBot(userAgent)) return 'bot';
    if (datacenterNetworks().contains(facts.ip)) return 'datacenter';
    return null;
  }

  private isBot(userAgent: string): boolean {
    if (userAgent.length > MAX_REMEMBERED_AGENT_LENGTH) return isbot(userAgent);
    let verdict = this.botVerdicts.get(userAgent);
    if (verdict === undefined) {
      verdict = isbot(userAgent);
      this.botVerdicts.set(userAgent, verdict);
    }
    return verdict;
  }
}
