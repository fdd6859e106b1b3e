import { Logger } from '@nestjs/common';
import type { RedisClient } from '../../redis/redis.module';
import { IMPRESSION_WINDOW_MS, stateKeys } from './serving-state';

/** How often a serving process looks whether Redis still holds the epoch it knows (a restart without data loses it). */
export const EPOCH_CHECK_EVERY_MS = 1000;

interface Epoch {
  /** When the epoch was written (ms). */
  at: number;
  /** Written because a process found the epoch it knew gone: Redis lost its data (served marks included) then. */
  loss: boolean;
}

/**
 * Tells when Redis lost the serving state (restarted empty, or flushed), so that a click on an ad served before it is
 * not refused as "no matching impression" (docs/OPERATIONS.md, "Faults"): the served marks went with the data.
 *
 * Redis holds one epoch key. Every serving process checks it every EPOCH_CHECK_EVERY_MS once it serves: a process
 * that finds it missing writes it (SET NX), marked a loss when that process had seen an epoch before (so a fresh
 * Redis under fresh processes is no loss). A loss is answered for IMPRESSION_WINDOW_MS after it: the marks of the
 * impressions served before it could have been clicked within that window.
 */
export class RedisStateEpoch {
  private readonly logger = new Logger('ServingState');
  private known: Epoch | null = null;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | null = null;
  private readonly listeners: (() => void)[] = [];
  /** When Redis last lost its data as this process knows (a new epoch after one it knew, or one a loss began); 0: never. */
  private lossAt = 0;

  constructor(private readonly redis: RedisClient) {}

  /** Starts the periodic check (idempotent; the timer does not hold the process open). */
  start(): void {
    if (this.timer !== undefined) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), EPOCH_CHECK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Hears of each new epoch after the one this process knew: Redis lost its data (counters, leases, marks). */
  onNewEpoch(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The epoch as last read, or null before the first check succeeded. */
  get current(): { at: number; loss: boolean } | null {
    return this.known;
  }

  /** When Redis last lost its data, as far as this process knows (0: never). */
  get lastLossAt(): number {
    return this.lossAt;
  }

  /** When Redis lost the served marks, if that is less than IMPRESSION_WINDOW_MS before `now`; else null. */
  lostAt(now: number): number | null {
    const epoch = this.known;
    return epoch !== null && epoch.loss && now - epoch.at < IMPRESSION_WINDOW_MS ? epoch.at : null;
  }

  /** Reads the epoch, writing it when it is missing; failures are left to the next check. A check under way is joined. */
  check(): Promise<void> {
    if (this.checking) return this.checking;
    this.checking = this.read().finally(() => (this.checking = null));
    return this.checking;
  }

  private async read(): Promise<void> {
    try {
      let text = await this.redis.get(stateKeys.epoch());
      if (text === null) {
        const written: Epoch = { at: Date.now(), loss: this.known !== null };
        await this.redis.set(stateKeys.epoch(), JSON.stringify(written), 'NX');
        text = await this.redis.get(stateKeys.epoch());
      }
      if (text === null) return;
      const epoch = JSON.parse(text) as Epoch;
      if (epoch.loss && (this.known === null || this.known.at !== epoch.at)) {
        this.logger.warn(`Redis lost the serving state at ${new Date(epoch.at).toISOString()}: clicks on ads served before it are answered 503 for 24 h`);
      }
      const previous = this.known;
      this.known = epoch;
      if (epoch.loss || (previous !== null && previous.at !== epoch.at)) this.lossAt = Math.max(this.lossAt, epoch.at);
      if (previous !== null && previous.at !== epoch.at) {
        for (const listener of this.listeners) listener();
      }
    } catch {
      // Redis unreachable: the next check
    }
  }
}
