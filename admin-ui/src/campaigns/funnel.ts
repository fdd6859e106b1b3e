/** The events a campaign can optimize for (docs/CONTRACT.md §13), in the order a user usually reaches them. */
export type EventType = 'conversion' | 'onboard' | 'register' | 'play' | 'payment' | 'withdraw';

export const OPTIMIZATION_EVENTS: { id: EventType; name: string }[] = [
  { id: 'conversion', name: 'Conversion' },
  { id: 'onboard', name: 'Onboard' },
  { id: 'register', name: 'Register' },
  { id: 'play', name: 'Play' },
  { id: 'payment', name: 'Payment' },
  { id: 'withdraw', name: 'Withdraw' },
];

export interface FunnelStep {
  key: 'impressions' | 'clicks' | EventType;
  label: string;
  count: number;
  /** clicks per impression for clicks; events per click for each event; null for impressions */
  rate: number | null;
  /** the step's count against the widest step (impressions, or the largest count), 0..1: the bar's width */
  width: number;
  /** the campaign's optimization event: the one its `conversions` and `cr` count */
  optimized: boolean;
}

export function eventName(type: unknown): string {
  return OPTIMIZATION_EVENTS.find((event) => event.id === type)?.name ?? String(type ?? '—');
}

const count = (value: unknown) => (Number.isFinite(Number(value)) ? Number(value) : 0);

/** Impressions → clicks → every event type, from a campaign detail record. */
export function funnelSteps(record: { [field: string]: unknown; events?: Partial<Record<EventType, unknown>> }): FunnelStep[] {
  const impressions = count(record.impressions);
  const clicks = count(record.clicks);
  const events = OPTIMIZATION_EVENTS.map((event) => ({ event, count: count(record.events?.[event.id]) }));
  const widest = Math.max(impressions, clicks, ...events.map((entry) => entry.count));
  const width = (value: number) => (widest > 0 ? value / widest : 0);
  return [
    { key: 'impressions', label: 'Impressions', count: impressions, rate: null, width: width(impressions), optimized: false },
    { key: 'clicks', label: 'Clicks', count: clicks, rate: impressions > 0 ? clicks / impressions : 0, width: width(clicks), optimized: false },
    ...events.map(({ event, count: events }) => ({
      key: event.id,
      label: event.name,
      count: events,
      rate: clicks > 0 ? events / clicks : 0,
      width: width(events),
      optimized: (record.optimizationEvent ?? 'conversion') === event.id,
    })),
  ];
}
