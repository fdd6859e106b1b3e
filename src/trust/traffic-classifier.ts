import { Injectable, OnModuleInit } from '@nestjs/common';
import { isbot } from 'isbot';
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

/** Tells general invalid traffic from the request alone: known bots and HTTP libraries, empty agents, data centres. */
@Injectable()
export class TrafficClassifier implements OnModuleInit {
  /** The data-centre table is read at start, not by the first request. */
  onModuleInit(): void {
    datacenterNetworks();
  }

  invalidReason(facts: TrafficFacts): InvalidTrafficReason | null {
    const userAgent = facts.userAgent?.trim();
    if (!userAgent) return 'emptyUserAgent';
    if (isbot(userAgent)) return 'bot';
    if (datacenterNetworks().contains(facts.ip)) return 'datacenter';
    return null;
  }
}
