import { DAY_MS, HOUR_MS } from '../common/clock';
import { ValidationError } from '../common/errors';

export interface SeriesRequest {
  from?: number;
  to?: number;
  granularity?: 'hour' | 'day';
}

/** The UTC buckets a series request asks for: `buckets` of `bucket` ms from `first`, the last one ending at or after `to`. */
export interface SeriesWindow {
  first: number;
  bucket: number;
  buckets: number;
  /** Exclusive end of the requested range. */
  to: number;
}

const MAX_BUCKETS = 5000;
const DEFAULT_SPAN_MS = 7 * DAY_MS;

/** Reads the window of a series request (the last 7 days up to `now` by default), refusing empty or huge ones. */
export function seriesWindow(request: SeriesRequest, now: number): SeriesWindow {
  const bucket = request.granularity === 'hour' ? HOUR_MS : DAY_MS;
  const to = request.to ?? now;
  const from = request.from ?? to - DEFAULT_SPAN_MS;
  if (from >= to) throw ValidationError.of('from', 'must be before to');
  const first = from - (from % bucket);
  const buckets = Math.ceil((to - first) / bucket);
  if (buckets > MAX_BUCKETS) throw ValidationError.of('from', `and to span more than ${MAX_BUCKETS} buckets; use a coarser granularity`);
  return { first, bucket, buckets, to };
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
    const point = { time: window.first + i * window.bucket } as SeriesPoint<Column>;
    for (const column of columns) (point as Record<Column, number>)[column] = 0;
    return point;
  });
  for (const row of rows) {
    const point = points[Math.floor((row.hour - window.first) / window.bucket)] as Record<Column, number>;
    for (const column of columns) point[column] += row[column];
  }
  return points;
}
