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

export function formatDateTime(ms: number | null | undefined): string {
  if (!ms) return '—';
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A UTC day (stats and daily budgets count days in UTC), said so: "25 Nov 2026 UTC". */
export function formatUtcDay(ms: number): string {
  return `${new Date(ms).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' })} UTC`;
}

/** The start of a stats bucket: an hour in the user's time, a day as its UTC date. */
export function formatBucket(ms: number, granularity: 'hour' | 'day'): string {
  return granularity === 'day' ? formatUtcDay(ms) : formatDateTime(ms);
}
