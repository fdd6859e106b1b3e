const DAY_MS = 86_400_000;
/** The last day answered, as [day start, day name]: the hot paths ask for the same day thousands of times a second. */
let lastDay: [number, string] = [Number.NaN, ''];

/** The UTC calendar day (`YYYY-MM-DD`) of an epoch time in ms: the day budget counters and day series are keyed by. */
export function utcDay(ms: number): string {
  const start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
  if (start !== lastDay[0]) lastDay = [start, new Date(ms).toISOString().slice(0, 10)];
  return lastDay[1];
}
