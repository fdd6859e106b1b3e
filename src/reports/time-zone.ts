import { DAY_MS, HOUR_MS } from '../common/clock';
import type { OffsetChange } from '../stats/report-rows.repository';

/** The name as given when the runtime knows the zone (IANA, e.g. `Europe/Berlin`), else null. `UTC` is always known. */
export function knownTimeZone(name: string): string | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name;
  } catch {
    return null;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `at`, in ms (whole minutes): local wall time minus UTC. */
export function offsetAt(timeZone: string, at: number): number {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - (at - (((at % 1000) + 1000) % 1000));
}

/**
 * The zone's offsets over the UTC hours [firstHour, toExclusive): the offset at the first hour, then each change at
 * the first hour it applies to (daylight saving time: about two a year). Sampled daily, each change then found to the
 * hour; an hourly row is bucketed by the offset at its start.
 */
export function offsetsOver(timeZone: string, firstHour: number, toExclusive: number): OffsetChange[] {
  const changes: OffsetChange[] = [{ since: firstHour, offsetMs: offsetAt(timeZone, firstHour) }];
  let previous = firstHour;
  for (let at = firstHour + DAY_MS; ; at += DAY_MS) {
    const sample = Math.min(at, toExclusive);
    const offset = offsetAt(timeZone, sample);
    if (offset !== changes[changes.length - 1].offsetMs) {
      // the first hour in (previous, sample] with the new offset
      let low = previous;
      let high = sample;
      while (high - low > HOUR_MS) {
        const middle = low + Math.floor((high - low) / HOUR_MS / 2) * HOUR_MS;
        if (offsetAt(timeZone, middle) === offset) high = middle;
        else low = middle;
      }
      changes.push({ since: high, offsetMs: offset });
    }
    previous = sample;
    if (sample >= toExclusive) return changes;
  }
}
