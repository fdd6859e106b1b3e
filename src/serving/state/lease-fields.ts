import type { ClickRequest } from './serving-state';

/**
 * The fields of a campaign's leases hash (stateKeys.campaignLeases), in one place: what a lease holder holds of the
 * campaign's budget for a day, and the billed clicks waiting for their rows. The Lua scripts (reclaim.lua,
 * click-bill.lua) read the first two parts the same way: they split at the `|`.
 *
 *   lease:         holder|day
 *   pending click: holder|day|billedAt|clickId or -|adBlockId|adId|servedAt|userId
 */
export function leaseField(holderId: string, day: string): string {
  return `${holderId}|${day}`;
}

/**
 * The field of a billed click waiting for its row: its lease's field, then when it was billed (wall clock, see
 * RedisLeaseHolder.giveBackOrphanClicks), the id its row will have (or -), then the click.
 */
export function pendingClickField(holderId: string, request: ClickRequest, billedAt: number): string {
  return `${leaseField(holderId, request.day)}|${billedAt}|${request.clickId ?? '-'}|${request.adBlockId}|${request.adId}|${request.now}|${request.userId}`;
}

/** The UTC day of a lease's or a pending click's field. */
export function dayOf(field: string): string {
  return field.split('|', 3)[1];
}

/** When the click of a pending click field was billed; null for a lease's field. */
export function billedAtOf(field: string): number | null {
  const parts = field.split('|', 3);
  return parts.length === 3 ? Number(parts[2]) : null;
}

/** The row id of a pending click field; null for a lease's field or a click without one. */
export function clickIdOf(field: string): string | null {
  const parts = field.split('|', 4);
  return parts.length === 4 && parts[3] !== '-' ? parts[3] : null;
}
