import { guardConnectionGetter, POOL_STALLED_CODE } from './connect-breaker';

describe(guardConnectionGetter.name, () => {
  const guard = { retryMs: 250, stalledMs: 1000 };
  const refusal = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
  function pool(answers: { error: unknown; connection?: unknown }[]) {
    const attempts: unknown[][] = [];
    const target = {
      getConnection: (...args: unknown[]) => {
        attempts.push(args.slice(0, -1));
        const answer = answers.shift()!;
        (args[args.length - 1] as (error: unknown, connection?: unknown) => void)(answer.error, answer.connection);
      },
    };
    return { target, attempts };
  }
  const get = (target: { getConnection(...args: unknown[]): void }, ...args: unknown[]) =>
    new Promise<unknown>((resolve, reject) =>
      target.getConnection(...args, (error: unknown, connection: unknown) => (error ? reject(error) : resolve(connection))),
    );

  it('should answer the refusal at once for the retry time after a refused attempt, then try again', async () => {
    let clock = 1000;
    const { target, attempts } = pool([{ error: refusal }, { error: refusal }, { error: null, connection: 'c1' }]);
    guardConnectionGetter(target, guard, () => clock);
    await expect(get(target)).rejects.toBe(refusal);
    clock += 100;
    await expect(get(target)).rejects.toBe(refusal);
    await expect(get(target)).rejects.toBe(refusal);
    expect(attempts).toHaveLength(1);
    clock += 150; // the retry time passed: one attempt, refused again
    await expect(get(target)).rejects.toBe(refusal);
    expect(attempts).toHaveLength(2);
    clock += 250; // back
    await expect(get(target)).resolves.toBe('c1');
    expect(attempts).toHaveLength(3);
  });

  it("should keep a pool cluster's patterns apart: a refusing replica does not stop the primary's attempts", async () => {
    const { target, attempts } = pool([{ error: refusal }, { error: null, connection: 'primary' }]);
    guardConnectionGetter(target, guard, () => 0);
    await expect(get(target, 'SLAVE*')).rejects.toBe(refusal);
    await expect(get(target, 'MASTER')).resolves.toBe('primary');
    await expect(get(target, 'SLAVE*')).rejects.toBe(refusal);
    expect(attempts).toEqual([['SLAVE*'], ['MASTER']]);
  });

  it('should keep trying after other errors, and pass a pool cluster its pattern', async () => {
    const timeout = Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
    const { target, attempts } = pool([{ error: timeout }, { error: null, connection: 'c1' }]);
    guardConnectionGetter(target, guard, () => 0);
    await expect(get(target, 'MASTER')).rejects.toBe(timeout);
    await expect(get(target, 'MASTER')).resolves.toBe('c1');
    expect(attempts).toEqual([['MASTER'], ['MASTER']]);
  });

  it('should fail new requests at once while one has waited the stalled time, and let them through once it is answered', async () => {
    let clock = 0;
    const held: ((error: unknown, connection?: unknown) => void)[] = [];
    let attempts = 0;
    const target = {
      getConnection: (...args: unknown[]) => {
        attempts++;
        held.push(args[args.length - 1] as (error: unknown, connection?: unknown) => void);
      },
    };
    guardConnectionGetter(target, guard, () => clock);
    const first = get(target);
    clock += 600;
    const second = get(target);
    expect(attempts).toBe(2);
    clock += 400; // the first has waited 1,000 ms: the database hands out nothing
    await expect(get(target)).rejects.toMatchObject({ code: POOL_STALLED_CODE, message: expect.stringMatching(/1000 ms/) });
    expect(attempts).toBe(2);
    // the oldest answered: the next oldest has waited 400 ms, so requests go through again
    held.shift()!(null, 'c1');
    await expect(first).resolves.toBe('c1');
    const third = get(target);
    expect(attempts).toBe(3);
    // the second one answered with an error (a connect timeout) is no longer waiting either
    clock += 600;
    held.shift()!(Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }));
    await expect(second).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    // the third has waited 600 ms: below the stalled time
    const fourth = get(target);
    expect(attempts).toBe(4);
    held.shift()!(null, 'c3');
    held.shift()!(null, 'c4');
    await expect(third).resolves.toBe('c3');
    await expect(fourth).resolves.toBe('c4');
  });

  it("should keep a pool cluster's patterns apart when one stalls", async () => {
    let clock = 0;
    const held: { pattern: unknown; callback: (error: unknown, connection?: unknown) => void }[] = [];
    const target = {
      getConnection: (...args: unknown[]) => {
        if (args[0] === 'MASTER') (args[1] as (error: unknown, connection?: unknown) => void)(null, 'primary');
        else held.push({ pattern: args[0], callback: args[1] as (error: unknown, connection?: unknown) => void });
      },
    };
    guardConnectionGetter(target, guard, () => clock);
    void get(target, 'SLAVE*').catch(() => undefined);
    clock += 1000;
    await expect(get(target, 'SLAVE*')).rejects.toMatchObject({ code: POOL_STALLED_CODE });
    await expect(get(target, 'MASTER')).resolves.toBe('primary');
    expect(held).toHaveLength(1);
  });
});
