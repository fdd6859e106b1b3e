import { EventEmitter } from 'node:events';
import { DependencyUnavailableError } from '../common/errors';
import { isConnectionError, RedisDeadline } from './redis-deadline';
import type { RedisClient } from './redis.module';

/** A client whose replies the test releases: `status` as ioredis reports it, PINGs kept until answered. */
class FakeRedis extends EventEmitter {
  status = 'ready';
  pings: (() => void)[] = [];
  ping(): Promise<string> {
    return new Promise((resolve) => this.pings.push(() => resolve('PONG')));
  }
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('RedisDeadline', () => {
  let redis: FakeRedis;
  let deadline: RedisDeadline;

  beforeEach(() => {
    jest.useFakeTimers();
    redis = new FakeRedis();
    deadline = new RedisDeadline(redis as unknown as RedisClient, 250);
  });
  afterEach(() => jest.useRealTimers());

  it('should answer the outcome of work that finishes within the deadline', async () => {
    await expect(deadline.run(() => Promise.resolve(7))).resolves.toBe(7);
    expect(deadline.available).toBe(true);
  });

  it('should refuse at the deadline, refuse the next request without running it, and hand the late outcome to undo', async () => {
    const work = deferred<string>();
    const late = jest.fn();
    const onDeadline = jest.fn();
    const answer = deadline.run(() => work.promise, { late, onDeadline });
    jest.advanceTimersByTime(250);
    jest.runOnlyPendingTimers(); // the setImmediate after the deadline (afterDeadline)
    await expect(answer).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(onDeadline).toHaveBeenCalledTimes(1);
    expect(deadline.available).toBe(false);

    const notRun = jest.fn(() => Promise.resolve(1));
    await expect(deadline.run(notRun)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(notRun).not.toHaveBeenCalled();
    expect(redis.pings).toHaveLength(1); // one probe at a time

    work.resolve('bound');
    await Promise.resolve();
    await Promise.resolve();
    expect(late).toHaveBeenCalledWith('bound');
    expect(deadline.late).toBe(1);
    expect(deadline.refused).toBe(2);
    expect(deadline.available).toBe(true);
  });

  it("should count a request's later call from its first one: the calls together wait at most the deadline", async () => {
    // the request's first call took 200 ms (answered); its second, in a slot whose master is gone, has 50 ms left
    const since = Date.now();
    jest.advanceTimersByTime(200);
    const work = deferred<string>();
    const answer = deadline.run(() => work.promise, { since });
    let refused = false;
    answer.catch(() => (refused = true));
    jest.advanceTimersByTime(49);
    await Promise.resolve();
    expect(refused).toBe(false);
    jest.advanceTimersByTime(1);
    jest.runOnlyPendingTimers();
    await expect(answer).rejects.toBeInstanceOf(DependencyUnavailableError);
    // a request past its deadline already is refused without waiting
    redis.emit('ready');
    const spent = deadline.run(() => new Promise<never>(() => undefined), { since: Date.now() - 300 });
    jest.advanceTimersByTime(0);
    jest.runOnlyPendingTimers();
    await expect(spent).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('should close the breaker when the probe answers or the client reconnects', async () => {
    redis.status = 'reconnecting';
    await expect(deadline.run(() => Promise.resolve(1))).rejects.toBeInstanceOf(DependencyUnavailableError);
    redis.status = 'ready';
    expect(deadline.available).toBe(false);
    redis.pings[0]();
    await Promise.resolve();
    await Promise.resolve();
    expect(deadline.available).toBe(true);

    redis.status = 'reconnecting';
    await expect(deadline.run(() => Promise.resolve(1))).rejects.toBeInstanceOf(DependencyUnavailableError);
    redis.status = 'ready';
    redis.emit('ready');
    expect(deadline.available).toBe(true);
  });

  it('should turn a lost connection into a 503 and keep a script error as it is', async () => {
    const lost = Object.assign(new Error('Reached the max retries per request limit (which is 2).'), { name: 'MaxRetriesPerRequestError' });
    await expect(deadline.run(() => Promise.reject(lost))).rejects.toBeInstanceOf(DependencyUnavailableError);
    redis.emit('ready');
    const scriptError = new Error('ERR user_script:1: bad argument');
    await expect(deadline.run(() => Promise.reject(scriptError))).rejects.toBe(scriptError);
    expect(isConnectionError(new Error('LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(isConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(isConnectionError(new Error('MOVED 7906 127.0.0.1:7101'))).toBe(true);
    expect(isConnectionError(scriptError)).toBe(false);
  });

  it('should wait for work under way at most the deadline, leaving it running', async () => {
    const work = deferred<void>();
    const waited = deadline.bounded(work.promise);
    jest.advanceTimersByTime(250);
    jest.runOnlyPendingTimers(); // the setImmediate after the deadline (afterDeadline)
    await expect(waited).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(deadline.available).toBe(true);
  });
});
