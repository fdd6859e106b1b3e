import { EVENT_TYPES, type EventType } from '../conversions/event-types';

/**
 * The per-campaign estimate of its optimization event per counted click (docs/CONTRACT.md §13): the posterior mean of
 * a Beta prior centred on the network's mean rate for that event and worth PRIOR_CLICKS clicks,
 *
 *   estimatedEventRate = (events + PRIOR_CLICKS * priorRate) / (clicks + PRIOR_CLICKS)
 *
 * so a campaign with few clicks starts at the network's rate and moves to its own observed rate as clicks arrive.
 */
export const PRIOR_CLICKS = 100;
/** The prior rate while the network's own is not shared enough to be used (see priorEventRate). */
export const DEFAULT_EVENT_RATE = 0.02;
/**
 * The network's mean rate of an event is used only when it pools at least this many advertisers: a campaign without
 * clicks shows its prior exactly, which must not reveal another advertiser's own rate.
 */
export const MIN_PRIOR_ADVERTISERS = 5;

/** The campaigns (with clicks) that optimize for one event: how many advertisers own them, their clicks and events. */
export interface NetworkEventTotals {
  advertisers: number;
  clicks: number;
  events: number;
}

export function priorEventRate(network: NetworkEventTotals | undefined): number {
  if (!network || network.advertisers < MIN_PRIOR_ADVERTISERS || network.clicks <= 0) return DEFAULT_EVENT_RATE;
  return Math.min(1, network.events / network.clicks);
}

export function estimatedEventRate(events: number, clicks: number, priorRate: number): number {
  return (events + PRIOR_CLICKS * priorRate) / (clicks + PRIOR_CLICKS);
}

export type EventRatePriors = Record<EventType, number>;

/** The prior rate of every event type from the network's totals per optimization event. */
export function priorsFrom(totals: Partial<Record<EventType, NetworkEventTotals>>): EventRatePriors {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, priorEventRate(totals[type])])) as EventRatePriors;
}
