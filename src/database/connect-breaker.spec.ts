import { refuseAtOnceAfterRefusal } from './connect-breaker';

describe(refuseAtOnceAfterRefusal.name, () => {
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
    refuseAtOnceAfterRefusal(target, 250, () => clock);
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
    refuseAtOnceAfterRefusal(target, 250, () => 0);
    await expect(get(target, 'SLAVE*')).rejects.toBe(refusal);
    await expect(get(target, 'MASTER')).resolves.toBe('primary');
    await expect(get(target, 'SLAVE*')).rejects.toBe(refusal);
    expect(attempts).toEqual([['SLAVE*'], ['MASTER']]);
  });

  it('should keep trying after other errors, and pass a pool cluster its pattern', async () => {
    const timeout = Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
    const { target, attempts } = pool([{ error: timeout }, { error: null, connection: 'c1' }]);
    refuseAtOnceAfterRefusal(target, 250, () => 0);
    await expect(get(target, 'MASTER')).rejects.toBe(timeout);
    await expect(get(target, 'MASTER')).resolves.toBe('c1');
    expect(attempts).toEqual([['MASTER'], ['MASTER']]);
  });
});
