import { Logger } from '@nestjs/common';
import { DependencyUnavailableError } from './errors';

/**
 * The longest an ad or click request waits for a database read it cannot do without (a key, a block or a viewer's
 * secret this process never saw, a click's campaign facts): past it, 503 with Retry-After (docs/OPERATIONS.md,
 * "Faults"). Reads only: nothing is stored by them, so giving up on one is safe.
 */
export const DATABASE_READ_DEADLINE_MS = 500;

/**
 * What the ad path caches from the database (API keys, ad blocks, publishers' webhook secrets) is answered past its
 * life and reloaded in the background (stale while revalidate): no ad request awaits the database for something this
 * process has seen, and through a database outage those entries are answered stale for as long as it lasts. The caches
 * stay as bounded as they are (the key and secret caches are LRUs; blocks are never deleted, one small entry each).
 * One log line when a cache's reloads start failing and one when they succeed again; `/metrics` counts the stale
 * answers per cache (adnet_cache_stale_answers_total).
 */
export class StaleReads {
  private readonly logger = new Logger('StaleReads');
  /** Per cache: entries answered past their life (each starts a reload, unless one is under way). */
  readonly answered = new Map<string, number>();
  /** Caches whose last reload failed, and when one of their entries may be tried again. */
  private readonly failing = new Map<string, number>();
  private readonly reloading = new Set<string>();

  constructor(
    /**
     * After a failed reload a cache's entries are not reloaded again for this long: a database that refuses at once
     * (stopped, killed) would otherwise take a connection attempt per request and entry.
     */
    private readonly retryAfterFailureMs = RETRY_AFTER_FAILURE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** An entry of `cache` answered past its life: `reload` runs in the background, once at a time per entry. */
  stale(cache: string, key: string, reload: () => Promise<unknown>): void {
    this.answered.set(cache, (this.answered.get(cache) ?? 0) + 1);
    const id = `${cache}\u0000${key}`;
    if (this.reloading.has(id)) return;
    const retryAt = this.failing.get(cache);
    if (retryAt !== undefined && this.now() < retryAt) return;
    this.reloading.add(id);
    reload().then(
      () => {
        this.reloading.delete(id);
        if (this.failing.delete(cache)) this.logger.log(`${cache}: reloads from the database succeed again`);
      },
      (error: unknown) => {
        this.reloading.delete(id);
        const known = this.failing.has(cache);
        this.failing.set(cache, this.now() + this.retryAfterFailureMs);
        if (!known) this.logger.warn({ err: error }, `${cache}: reload from the database failed; entries are answered stale until it succeeds`);
      },
    );
  }
}

/** See StaleReads: a failing cache's reloads are tried again at most this often. */
const RETRY_AFTER_FAILURE_MS = 1000;

/** The one per process (caches of several features report to it). */
export const staleReads = new StaleReads();

/**
 * A database read a request cannot do without, within DATABASE_READ_DEADLINE_MS: a failure or a missed deadline is
 * a DependencyUnavailableError (503 with Retry-After); the read itself goes on and its answer is dropped.
 */
export function readWithinDeadline<T>(read: Promise<T>, ms = DATABASE_READ_DEADLINE_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // after the replies received meanwhile are read (see afterDeadline)
    const timer = setTimeout(() => setImmediate(() => reject(new DependencyUnavailableError('database'))), ms);
    read.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof DependencyUnavailableError || isDomainOrProgramError(error) ? error : new DependencyUnavailableError('database'));
      },
    );
  });
}

/** Errors of the request or the code, not of the database connection: they stay what they are. */
function isDomainOrProgramError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || (error as { status?: unknown })?.status !== undefined;
}
