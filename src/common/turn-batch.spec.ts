import { TurnBatch } from './turn-batch';

describe('TurnBatch', () => {
  it('loads the keys asked for in one turn with one call, each key once', async () => {
    const calls: string[][] = [];
    const batch = new TurnBatch<string, number>(async (keys) => {
      calls.push(keys);
      return new Map(keys.filter((key) => key !== 'missing').map((key) => [key, key.length]));
    });

    const answers = await Promise.all([batch.get('a'), batch.get('bb'), batch.get('a'), batch.get('missing')]);

    expect(answers).toEqual([1, 2, 1, undefined]);
    expect(calls).toEqual([['a', 'bb', 'missing']]);
  });

  it('starts a new load for keys asked for after a turn ended', async () => {
    const calls: string[][] = [];
    const batch = new TurnBatch<string, string>(async (keys) => {
      calls.push(keys);
      return new Map(keys.map((key) => [key, key.toUpperCase()]));
    });

    expect(await batch.get('x')).toBe('X');
    expect(await Promise.all([batch.get('y'), batch.get('z')])).toEqual(['Y', 'Z']);
    expect(calls).toEqual([['x'], ['y', 'z']]);
  });

  it('fails the callers of a failed load only', async () => {
    let fail = true;
    const batch = new TurnBatch<string, number>(async (keys) => {
      if (fail) throw new Error('database gone');
      return new Map(keys.map((key) => [key, 7]));
    });

    const failed = Promise.all([batch.get('a'), batch.get('b')]);
    await expect(failed).rejects.toThrow('database gone');
    fail = false;
    expect(await batch.get('a')).toBe(7);
  });
});
