/** USDT amounts travel as JSON numbers with up to 6 decimals. */
export function formatUsdt(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return '—';
  return `${Number(value).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })} USDT`;
}

export function formatRate(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return `${(Number(value) * 100).toLocaleString('en-US', { maximumFractionDigits: 2 })} %`;
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : Number(value).toLocaleString('en-US');
}

/** A moment in the user's time, naming the zone (the service's own times are UTC): "4 Dec 2026, 15:30 GMT+5:30". */
export function formatDateTime(ms: number | null | undefined): string {
  if (!ms) return '—';
  return formatDateTimeWithZone(ms);
}

/** A UTC day (stats and daily budgets count days in UTC), said so: "25 Nov 2026 UTC". */
export function formatUtcDay(ms: number): string {
  return `${new Date(ms).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' })} UTC`;
}

/** The start of a stats bucket: an hour in the user's time, a day as its UTC date. */
export function formatBucket(ms: number, granularity: 'hour' | 'day'): string {
  return granularity === 'day' ? formatUtcDay(ms) : formatDateTime(ms);
}

export function formatDateTimeWithZone(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
}

const ISO_UTC = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?Z\b/g;

/** The service words its checks with ISO times in UTC; the panel shows them in the user's time, zone included. */
export function localizeTimes(text: string): string {
  return text.replace(ISO_UTC, (iso) => formatDateTimeWithZone(Date.parse(iso)));
}
