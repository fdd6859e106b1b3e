import { Injectable } from '@nestjs/common';
import { isbot } from 'isbot';

/**
 * Why a request is general invalid traffic (MRC): answered as usual, never billed, counted apart.
 * See docs/TRUST_AND_SAFETY.md.
 */
export type InvalidTrafficReason = 'emptyUserAgent' | 'bot' | 'datacenter';

export interface TrafficFacts {
  ip: string;
  userAgent: string | undefined;
}

/** Tells general invalid traffic from the request alone: known bots and HTTP libraries, empty agents, data centres. */
@Injectable()
export class TrafficClassifier {
  invalidReason(facts: TrafficFacts): InvalidTrafficReason | null {
    const userAgent = facts.userAgent?.trim();
    if (!userAgent) return 'emptyUserAgent';
    if (isbot(userAgent)) return 'bot';
    return null;
  }
}
