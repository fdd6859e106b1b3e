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
