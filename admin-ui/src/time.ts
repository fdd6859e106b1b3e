/** Times are ms since epoch on the wire; the pickers show and take them in the user's own timezone. */

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

const LOCAL_INPUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/**
 * ms -> `yyyy-MM-ddTHH:mm` in the browser's timezone, for `<input type="datetime-local">`. A value already in that
 * form is answered as it is: react-admin's DateTimeInput formats the form's value, then formats that again.
 */
export function msToLocalInput(ms: number | string | null | undefined): string {
  if (typeof ms === 'string' && LOCAL_INPUT.test(ms)) return ms;
  if (ms === null || ms === undefined || ms === '' || Number.isNaN(Number(ms))) return '';
  const date = new Date(Number(ms));
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `yyyy-MM-ddTHH:mm` read in the browser's timezone -> ms; empty or invalid -> null. */
export function localInputToMs(value: string | number | Date | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') return value;
  if (value instanceof Date) return value.getTime();
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) {
    const parsed = new Date(value).getTime();
    return Number.isNaN(parsed) ? null : parsed;
  }
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return new Date(year, month - 1, day, hour, minute, second || 0, 0).getTime();
}

export function userTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
}

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
