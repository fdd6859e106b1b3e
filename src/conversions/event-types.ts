/**
 * The events an advertiser reports about its users after a click (docs/CONTRACT.md §13): the conversion of endpoint 7
 * and the custom events of interface rule 7. Campaigns pick one of them as their optimization event; the stats writer
 * keeps one counter per type.
 */
export const CUSTOM_EVENT_TYPES = ['onboard', 'register', 'play', 'payment', 'withdraw'] as const;
export type CustomEventType = (typeof CUSTOM_EVENT_TYPES)[number];

export const EVENT_TYPES = ['conversion', ...CUSTOM_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** How many events of each type, e.g. a campaign's attributed ones. */
export type EventCounts = Record<EventType, number>;

/**
 * The counter column of each type, named alike in `campaigns` and `stats_hourly`. Conversions keep the column they
 * had before custom events existed.
 */
export const EVENT_COUNTER_COLUMNS = {
  conversion: 'conversions',
  onboard: 'onboardEvents',
  register: 'registerEvents',
  play: 'playEvents',
  payment: 'paymentEvents',
  withdraw: 'withdrawEvents',
} as const satisfies Record<EventType, string>;

export type EventCounterColumn = (typeof EVENT_COUNTER_COLUMNS)[EventType];

export const EVENT_COUNTER_COLUMN_LIST = EVENT_TYPES.map((type) => EVENT_COUNTER_COLUMNS[type]);

/** The counts of a row that holds one counter column per type. */
export function eventCountsOf(row: Record<EventCounterColumn, number | string>): EventCounts {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, Number(row[EVENT_COUNTER_COLUMNS[type]])])) as EventCounts;
}

export function noEvents(): EventCounts {
  return { conversion: 0, onboard: 0, register: 0, play: 0, payment: 0, withdraw: 0 };
}
