/**
 * Calendar days in an account's IANA time zone (docs/CONTRACT.md "Time zones"): a day runs from one local midnight to
 * the next, 23 or 25 hours across a daylight-saving change. A day is identified by the instant it starts (ms), which
 * stays unique when an account moves between zones, where a date name could repeat.
 */
export const DEFAULT_TIME_ZONE = 'UTC';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const formatters = new Map<string, Intl.DateTimeFormat>();
/** Per zone, the last day answered as [start, next start): hot paths ask for the same day thousands of times. */
const lastDayByZone = new Map<string, [number, number]>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * The canonical IANA name of `zone` (`US/Eastern` → `America/New_York`, `utc` → `UTC`), or null when it is not one.
 * Offsets (`+05:00`) and abbreviations (`EST`) are not accepted: only a named zone follows its daylight-saving rules.
 */
export function canonicalTimeZone(zone: string): string | null {
  if (typeof zone !== 'string' || !/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone) || zone.length > 64) return null;
  if (/^[A-Z]{3,5}$/.test(zone) && zone.toUpperCase() !== 'UTC') return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The local calendar date (`YYYY-MM-DD`) of `ms` in `zone`. */
export function localDate(zone: string, ms: number): string {
  return formatterOf(zone).format(ms);
}

/**
 * The start (ms) of the local day holding `ms` in `zone`: the first minute whose local date is that day's (local
 * midnight, or the first minute after it where a zone skips midnight itself). Found by bisection over the 27 hours
 * before `ms`, then remembered for the day.
 */
export function localDayStart(zone: string, ms: number): number {
  const last = lastDayByZone.get(zone);
  if (last && ms >= last[0] && ms < last[1]) return last[0];
  const date = localDate(zone, ms);
  let before = Math.floor(ms / MINUTE_MS) * MINUTE_MS - 27 * HOUR_MS; // surely on an earlier local date
  let within = Math.floor(ms / MINUTE_MS) * MINUTE_MS; // on `date`
  while (within - before > MINUTE_MS) {
    const middle = before + Math.floor((within - before) / 2 / MINUTE_MS) * MINUTE_MS;
    if (localDate(zone, middle) < date) before = middle;
    else within = middle;
  }
  const next = nextDayStart(zone, within);
  lastDayByZone.set(zone, [within, next]);
  return within;
}

/** The start of the local day after the one that starts at `dayStart` (the next local midnight). */
function nextDayStart(zone: string, dayStart: number): number {
  const date = localDate(zone, dayStart);
  let within = dayStart + 22 * HOUR_MS; // still `date`: no day is shorter than 22 hours
  let after = dayStart + 27 * HOUR_MS; // surely a later date
  if (localDate(zone, within) !== date) return localDayStart(zone, within);
  while (after - within > MINUTE_MS) {
    const middle = within + Math.floor((after - within) / 2 / MINUTE_MS) * MINUTE_MS;
    if (localDate(zone, middle) === date) within = middle;
    else after = middle;
  }
  return after;
}

/** The next local midnight after `ms` in `zone` (when a daily budget resets). */
export function nextLocalMidnight(zone: string, ms: number): number {
  localDayStart(zone, ms);
  return (lastDayByZone.get(zone) as [number, number])[1];
}

/** The zone an account's days follow, with a change that waits for the next local day of the zone before it. */
export interface ZoneSchedule {
  timeZone: string;
  /** The zone asked for last, when it does not apply yet */
  nextTimeZone: string | null;
  /** When `nextTimeZone` applies (ms): the next local midnight of `timeZone` at the time of the change */
  timeZoneChangesAt: number | null;
}

/** The schedule as it stands at `ms`: a change that is due is folded into `timeZone`. */
export function currentSchedule(schedule: ZoneSchedule, ms: number): ZoneSchedule {
  if (schedule.nextTimeZone && schedule.timeZoneChangesAt !== null && ms >= schedule.timeZoneChangesAt) {
    return { timeZone: schedule.nextTimeZone, nextTimeZone: null, timeZoneChangesAt: null };
  }
  return {
    timeZone: schedule.timeZone || DEFAULT_TIME_ZONE,
    nextTimeZone: schedule.nextTimeZone ?? null,
    timeZoneChangesAt: schedule.timeZoneChangesAt ?? null,
  };
}

/** The zone whose days apply at `ms`. */
export function zoneAt(schedule: ZoneSchedule, ms: number): string {
  if (schedule.nextTimeZone && schedule.timeZoneChangesAt !== null && ms >= schedule.timeZoneChangesAt) return schedule.nextTimeZone;
  return schedule.timeZone || DEFAULT_TIME_ZONE;
}

/**
 * The schedule after asking for `zone` at `now`: the zone of today stays until its next local midnight, then `zone`
 * applies (asking for today's zone again cancels a waiting change). A change that is already due is folded in first.
 */
export function scheduleZoneChange(schedule: ZoneSchedule, zone: string, now: number): ZoneSchedule {
  const current = zoneAt(schedule, now);
  if (zone === current) return { timeZone: current, nextTimeZone: null, timeZoneChangesAt: null };
  return { timeZone: current, nextTimeZone: zone, timeZoneChangesAt: nextLocalMidnight(current, now) };
}

/**
 * One budget day of an account: [start, end) and its key. A day runs from a local midnight to the next in the zone in
 * force; the day a changed zone takes over starts at the change (the old zone's midnight) and ends at the new zone's
 * next midnight, so days never overlap or go back, whichever way the zone moves.
 */
export interface BudgetDay {
  /** The day's start in minutes since the epoch, ten digits: keys of later days sort after earlier ones as text. */
  key: string;
  start: number;
  end: number;
}

/** The key of the budget day that starts at `startMs` (see BudgetDay). */
export function dayKeyOf(startMs: number): string {
  return String(Math.floor(startMs / MINUTE_MS)).padStart(10, '0');
}

/** The budget day holding `ms` for an account whose zones follow `schedule`. */
export function budgetDayAt(schedule: ZoneSchedule, ms: number): BudgetDay {
  const zone = zoneAt(schedule, ms);
  let start = localDayStart(zone, ms);
  let end = nextLocalMidnight(zone, ms);
  const changesAt = schedule.nextTimeZone ? schedule.timeZoneChangesAt : null;
  if (changesAt !== null && changesAt !== undefined) {
    if (ms >= changesAt && start < changesAt) start = changesAt;
    else if (ms < changesAt && end > changesAt) end = changesAt;
  }
  return { key: dayKeyOf(start), start, end };
}
