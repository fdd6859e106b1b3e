import { DAY_MS, HOUR_MS } from '../common/clock';
import { ValidationError } from '../common/errors';
import { budgetDayAt, DEFAULT_TIME_ZONE, type ZoneSchedule } from '../common/time-zone';

export interface SeriesRequest {
  from?: number;
  to?: number;
  granularity?: 'hour' | 'day';
}

/**
 * The buckets a series request asks for: `buckets` of `bucket` ms from `first`, the last one ending at or after `to`;
 * day buckets of a zone other than UTC are its local days (23 to 25 hours), whose starts `starts` lists.
 */
export interface SeriesWindow {
  first: number;
  bucket: number;
  buckets: number;
  /** Exclusive end of the requested range. */
  to: number;
  /** Each bucket's start, when the buckets are not all `bucket` long (local days). */
  starts?: number[];
}

const MAX_BUCKETS = 5000;
const DEFAULT_SPAN_MS = 7 * DAY_MS;

/**
 * Reads the window of a series request (the last 7 days up to `now` by default), refusing empty or huge ones. Day
 * buckets are the days of `zones` (the account's: its local midnights, docs/CONTRACT.md §16), UTC days without one.
 */
export function seriesWindow(request: SeriesRequest, now: number, zones: ZoneSchedule | null = null): SeriesWindow {
  const bucket = request.granularity === 'hour' ? HOUR_MS : DAY_MS;
  const to = request.to ?? now;
  const from = request.from ?? to - DEFAULT_SPAN_MS;
  if (from >= to) throw ValidationError.of('from', 'must be before to');
  if (bucket === DAY_MS && zones !== null && !utcDays(zones)) return localDays(zones, from, to);
  const first = from - (from % bucket);
  const buckets = Math.ceil((to - first) / bucket);
  if (buckets > MAX_BUCKETS) throw ValidationError.of('from', `and to span more than ${MAX_BUCKETS} buckets; use a coarser granularity`);
  return { first, bucket, buckets, to };
}

function utcDays(zones: ZoneSchedule): boolean {
  return zones.timeZone === DEFAULT_TIME_ZONE && !zones.nextTimeZone;
}

/** The local days of `zones` from the one holding `from` to the one holding `to - 1`. */
function localDays(zones: ZoneSchedule, from: number, to: number): SeriesWindow {
  if (to - from > MAX_BUCKETS * DAY_MS) throw ValidationError.of('from', `and to span more than ${MAX_BUCKETS} buckets; use a coarser granularity`);
  let day = budgetDayAt(zones, from);
  const starts = [day.start];
  while (day.end < to) {
    day = budgetDayAt(zones, day.end);
    starts.push(day.start);
  }
  return { first: starts[0], bucket: DAY_MS, buckets: starts.length, to, starts };
}

/** The bucket holding `at`: the last start at or before it. */
function bucketOf(window: SeriesWindow, at: number): number {
  const starts = window.starts;
  if (starts === undefined) return Math.floor((at - window.first) / window.bucket);
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= at) low = middle;
    else high = middle - 1;
  }
  return low;
}

export type SeriesPoint<Column extends string> = { time: number } & Record<Column, number>;

/**
 * Sums hourly rows into the window's zero-filled buckets, column by column, so that a series' sums equal the totals
 * kept beside it. Rows outside the window are the caller's mistake: the repository reads `[first, to)` only.
 */
export function sumIntoBuckets<Column extends string>(
  window: SeriesWindow,
  rows: readonly ({ hour: number } & Record<Column, number>)[],
  columns: readonly Column[],
): SeriesPoint<Column>[] {
  const points = Array.from({ length: window.buckets }, (_, i) => {
    const point = { time: window.starts?.[i] ?? window.first + i * window.bucket } as SeriesPoint<Column>;
    for (const column of columns) (point as Record<Column, number>)[column] = 0;
    return point;
  });
  for (const row of rows) {
    // an hourly row counts in the bucket its hour begins in
    const point = points[bucketOf(window, row.hour)] as Record<Column, number>;
    for (const column of columns) point[column] += row[column];
  }
  return points;
}
