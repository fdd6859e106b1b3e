import { Logger } from '@nestjs/common';
import { DependencyUnavailableError } from '../common/errors';
import type { RedisClient } from './redis.module';

export const REDIS_DEADLINE = Symbol('REDIS_DEADLINE');

/** What to do with an operation that outlives its deadline (its caller was answered without it). */
export interface DeadlineHooks<T> {
  /** The deadline passed: the caller is answered now; the operation goes on in Redis or in the client's queue. */
  onDeadline?: () => void;
  /** The operation finished after its deadline: undo what it stored, since its request was refused. */
  late?: (outcome: T) => void;
  /**
   * When the request's first Redis call began (wall clock, ms): the deadline counts from then, so the calls a
   * request makes one after the other (a profile read, then rounds of the serve script) wait at most the deadline
   * together. A request that has used it up is refused at once.
   */
  since?: number;
}

/**
 * The deadline of every Redis call on a request path (REDIS_DEADLINE_MS, default 250 ms), and the breaker in front of
 * them, shared by the process (docs/OPERATIONS.md, "Faults").
 *
 * `run` starts a request's Redis work and answers its result, or a DependencyUnavailableError (503, Retry-After) once
 * the deadline passes. The work itself cannot be called back once sent, so `late` hears of it when it ends anyway,
 * and the caller undoes it: a request answered 503 stores nothing. After a missed deadline, and while the client is
 * not connected, the breaker is open: requests are refused at once, without a command (so nothing waits in ioredis'
 * offline or reply queue for a Redis that does not answer: both stay bounded by the commands sent before the
 * deadline). One PING at a time probes Redis; its answer, any late reply or the client's `ready` event close it.
 */
export class RedisDeadline {
  private readonly logger = new Logger('Redis');
  private openSince: number | null = null;
  private probing = false;
  /** Requests refused by the breaker or their deadline, and operations that ended after it (for /metrics). */
  refused = 0;
  late = 0;

  constructor(
    private readonly redis: RedisClient,
    readonly ms: number,
  ) {
    redis.on('ready', () => this.close());
  }

  /** Redis answered lately and the client is connected: a request may use it. */
  get available(): boolean {
    return this.openSince === null && this.redis.status === 'ready';
  }

  /** Runs a request's Redis work within the deadline; see the class. */
  run<T>(operation: () => Promise<T>, hooks: DeadlineHooks<T> = {}): Promise<T> {
    if (!this.available) {
      this.refused++;
      if (this.openSince === null) this.open('not connected');
      return Promise.reject(new DependencyUnavailableError('redis'));
    }
    return new Promise<T>((resolve, reject) => {
      let missed = false;
      let settled = false;
      const ms = hooks.since === undefined ? this.ms : Math.max(0, hooks.since + this.ms - Date.now());
      const timer = afterDeadline(ms, () => {
        if (settled) return;
        missed = true;
        this.refused++;
        this.open(`no answer within ${ms} ms`);
        hooks.onDeadline?.();
        reject(new DependencyUnavailableError('redis'));
      });
      operation().then(
        (outcome) => {
          settled = true;
          clearTimeout(timer);
          this.close();
          if (!missed) return resolve(outcome);
          this.late++;
          hooks.late?.(outcome);
        },
        (error: unknown) => {
          settled = true;
          clearTimeout(timer);
          if (missed) return;
          if (!isConnectionError(error)) return reject(error);
          this.refused++;
          this.open(errorText(error));
          reject(new DependencyUnavailableError('redis'));
        },
      );
    });
  }

  /**
   * Waits for work already under way (an undo, which must be sent whatever the breaker says) at most the deadline:
   * past it, the answer is a DependencyUnavailableError and the work goes on.
   */
  bounded<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = afterDeadline(this.ms, () => reject(new DependencyUnavailableError('redis')));
      work.then(
        (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  private open(why: string): void {
    if (this.openSince === null) {
      this.openSince = Date.now();
      this.logger.warn(`Redis unavailable (${why}): requests that need it are answered without it until it answers again`);
    }
    this.probe();
  }

  private close(): void {
    if (this.openSince === null) return;
    this.logger.log(`Redis answers again after ${Date.now() - this.openSince} ms`);
    this.openSince = null;
  }

  /** One PING at a time while open: its answer closes the breaker; a failure tries again after a deadline. */
  private probe(): void {
    if (this.probing || this.redis.status === 'end') return;
    this.probing = true;
    this.redis.ping().then(
      () => {
        this.probing = false;
        this.close();
      },
      () => {
        const retry = setTimeout(() => {
          this.probing = false;
          if (this.openSince !== null) this.probe();
        }, this.ms);
        retry.unref();
      },
    );
  }
}

/**
 * Runs `missed` once `ms` passed and the replies that came meanwhile were read: the timer fires in the event loop's
 * timers phase, before the poll phase reads the sockets, so after a stall of the loop (garbage collection, a busy
 * CPU) a reply already received would otherwise be taken for a missed deadline; setImmediate runs after the poll.
 */
export function afterDeadline(ms: number, missed: () => void): NodeJS.Timeout {
  return setTimeout(() => setImmediate(missed), ms);
}

/**
 * A failure of the connection, not of the command: the client gave up on it (MaxRetriesPerRequestError), could not send
 * it, the connection or the cluster went away, a slot moved (a failover the client has not caught up with), or Redis
 * is still loading its data after a restart. Script errors (ReplyError) and the code's own stay what they are.
 */
export function isConnectionError(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  const text = errorText(error);
  return (
    name === 'MaxRetriesPerRequestError' ||
    name === 'ClusterAllFailedError' ||
    /^(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|MOVED|ASK)\b|Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Failed to refresh slots cache/.test(
      text,
    )
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
