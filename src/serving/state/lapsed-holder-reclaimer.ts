import type { RedisClient } from '../../redis/redis.module';
import { clickIdOf, dayOf } from './lease-fields';
import { stateKeys } from './serving-state';

/** The lease scripts a reclaim sends (defined by RedisLeaseHolder's constructor). */
export type LeaseScripts = RedisClient & {
  adnetReclaim(numKeys: number, ...args: (string | number)[]): Promise<number>;
  adnetForgetHolder(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

/** A field of a campaign's leases hash (stateKeys.campaignLeases). */
export interface HeldField {
  holderId: string;
  campaignId: string;
  field: string;
}

/**
 * What other processes' lapsed lease holders still hold, given back to the shared counters: a process killed or cut
 * off for longer than its heartbeat's life cannot return its leases or its billed clicks' prices itself. Every
 * serving process runs it now and then (RedisLeaseHolder's sweep); safe in any number of processes at once.
 */
export class LapsedHolderReclaimer {
  constructor(
    private readonly redis: LeaseScripts,
    /** Which of these click ids have their row committed (the database); without it every billed click goes back. */
    private readonly committedClicks?: (clickIds: string[]) => Promise<Set<string>>,
  ) {}

  /**
   * Gives back to the counters what processes that stopped without returning their leases (killed, cut off for
   * longer than the heartbeat's life) still held. Safe in any number of processes at once; answers the
   * micro-USDT given back.
   */
  async reclaimLapsedHolders(): Promise<number> {
    let reclaimed = 0;
    for (const holderId of await this.redis.smembers(stateKeys.leaseHolders())) {
      if ((await this.redis.exists(stateKeys.leaseHolder(holderId))) === 1) continue;
      reclaimed += await this.reclaimHolder(holderId);
    }
    return reclaimed;
  }

  /**
   * A lapsed holder's reclaim: its fields are read campaign by campaign (the campaigns set names where), the billed
   * clicks whose row was committed leave them, and each campaign's script gives back the rest in that campaign's slot
   * (reclaim.lua: a field leaves the hash in the step that gives it back, so nothing goes back twice). Then the holder
   * is forgotten. When the database cannot tell which clicks are committed, nothing is given back this time (throws).
   */
  private async reclaimHolder(holderId: string): Promise<number> {
    const fields = await this.fieldsOf(holderId);
    const left = await this.keepCommittedClicks(fields);
    const daysByCampaign = new Map<string, Set<string>>();
    for (const { campaignId, field } of left) {
      const days = daysByCampaign.get(campaignId) ?? new Set<string>();
      days.add(dayOf(field));
      daysByCampaign.set(campaignId, days);
    }
    const given = await Promise.all(
      [...daysByCampaign].map(([campaignId, days]) =>
        this.redis.adnetReclaim(
          2 + days.size,
          stateKeys.campaignLeases(campaignId),
          stateKeys.spent(campaignId),
          ...[...days].map((day) => stateKeys.daySpent(campaignId, day)),
          holderId,
          ...days,
        ),
      ),
    );
    // Out of the set first, then forgotten unless its heartbeat is back: a holder that comes back under the same id
    // meanwhile is put back, never left out of the set with leases.
    await this.redis.srem(stateKeys.leaseHolders(), holderId);
    if ((await this.redis.adnetForgetHolder(2, stateKeys.leaseHolder(holderId), stateKeys.holderCampaigns(holderId))) === 1) {
      await this.redis.sadd(stateKeys.leaseHolders(), holderId);
    }
    return given.reduce((sum, micros) => sum + Number(micros), 0);
  }

  /** A holder's fields in the leases hashes of the campaigns it recorded, with their micro-USDT. */
  async fieldsOf(holderId: string): Promise<(HeldField & { micros: number })[]> {
    const campaignIds = await this.redis.smembers(stateKeys.holderCampaigns(holderId));
    const hashes = await Promise.all(campaignIds.map((campaignId) => this.redis.hgetall(stateKeys.campaignLeases(campaignId))));
    const fields: (HeldField & { micros: number })[] = [];
    campaignIds.forEach((campaignId, i) => {
      for (const [field, micros] of Object.entries(hashes[i])) {
        if (field.startsWith(`${holderId}|`)) fields.push({ holderId, campaignId, field, micros: Number(micros) });
      }
    });
    return fields;
  }

  /**
   * Of these leases hash fields, the billed clicks whose row was committed leave the hash (they are billed for
   * good); answers the fields left. Throws when the database cannot tell, so nothing is given back blind.
   */
  async keepCommittedClicks<T extends HeldField>(fields: T[]): Promise<T[]> {
    const clicks = fields.filter(({ field }) => clickIdOf(field) !== null);
    if (!this.committedClicks || clicks.length === 0) return fields;
    const committed = await this.committedClicks(clicks.map(({ field }) => clickIdOf(field)!));
    const kept = new Set<T>();
    for (const click of clicks) {
      if (!committed.has(clickIdOf(click.field)!)) continue;
      await this.redis.hdel(stateKeys.campaignLeases(click.campaignId), click.field);
      kept.add(click);
    }
    return fields.filter((field) => !kept.has(field));
  }
}
