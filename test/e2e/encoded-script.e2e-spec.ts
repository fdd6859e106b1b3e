import Redis from 'ioredis';
import { EncodedArguments, EncodedScript } from '../../src/redis/encoded-script';
import { TEST_PROFILE, TEST_REDIS_URL } from '../support/profile';

/** Echoes its keys and arguments, and writes one key so the prefix can be seen where Redis stored it. */
const ECHO = `
redis.call('SET', KEYS[1], ARGV[1])
return {KEYS, ARGV}
`;

// EncodedScript talks to one Redis server (the serve script's path there; a cluster keeps ioredis' own commands): it runs
// against TEST_REDIS_URL's server also when the suite's Redis is a cluster, as in CI.
(TEST_PROFILE === 'mysql' ? describe : describe.skip)('EncodedScript (a script call written in RESP by us)', () => {
  const prefix = `adnet-encoded-test:${process.pid}:`;
  let redis: Redis;
  let plain: Redis;

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
    plain = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await plain.keys(`${prefix}*`);
    if (keys.length > 0) await plain.del(...keys);
    await Promise.all([redis.quit(), plain.quit()]);
  });

  /** What the client writes on its connection while `work` runs. */
  const writesOf = async (work: () => Promise<void>): Promise<string[]> => {
    const stream = (redis as unknown as { stream: { write: (chunk: unknown, ...rest: unknown[]) => boolean } }).stream;
    const write = stream.write;
    const written: string[] = [];
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return write.call(stream, chunk, ...rest);
    };
    try {
      await work();
    } finally {
      stream.write = write;
    }
    return written;
  };

  const call = (keys: string[], args: (string | number)[]) => {
    const encoded = new EncodedArguments(prefix);
    for (const key of keys) encoded.key(key);
    for (const arg of args) encoded.arg(arg);
    return encoded;
  };

  it('should pass the keys with the prefix and every argument byte for byte, as ioredis does for the same script', async () => {
    const script = new EncodedScript(ECHO);
    const keys = ['k:{u:ünïcødé}', 'k2'];
    const args = ['välue ✓', 0, -12, 1.5, '', 'a\r\nb', 1_800_000_000_000];
    redis.defineCommand('adnetEchoTest', { lua: ECHO, numberOfKeys: keys.length });
    const ours = await script.run(redis, call(keys, args));
    const theirs = await (redis as unknown as { adnetEchoTest(...a: (string | number)[]): Promise<unknown> }).adnetEchoTest(...keys, ...args);
    expect(ours).toEqual([
      [`${prefix}k:{u:ünïcødé}`, `${prefix}k2`],
      ['välue ✓', '0', '-12', '1.5', '', 'a\r\nb', '1800000000000'],
    ]);
    expect(ours).toEqual(theirs);
    expect(await plain.get(`${prefix}k:{u:ünïcødé}`)).toBe('välue ✓');
  });

  it('should send the script in full on a new connection and again after Redis lost its scripts (NOSCRIPT)', async () => {
    const lua = `${ECHO}-- ${process.pid} ${Date.now()}`;
    const script = new EncodedScript(lua);
    const loaded = async () => ((await plain.script('EXISTS', script.sha)) as number[])[0];
    expect(await loaded()).toBe(0);

    expect(await script.run(redis, call(['a'], ['1']))).toEqual([[`${prefix}a`], ['1']]);
    expect(await loaded()).toBe(1);

    // from then on one EVALSHA per call on this connection, no EVAL (what the client writes on its socket)
    const written = await writesOf(async () => {
      for (const value of ['x', 'y', 'z']) await script.run(redis, call(['a'], [value]));
    });
    expect(written.map((chunk) => chunk.split('\r\n').slice(0, 3).join(' '))).toEqual(Array(3).fill(`*5 $7 EVALSHA`));

    await plain.script('FLUSH');
    expect(await loaded()).toBe(0);
    // this connection was sent the text before: its EVALSHA is refused, and the call is sent again with the text
    expect(await script.run(redis, call(['a'], ['2']))).toEqual([[`${prefix}a`], ['2']]);
    expect(await loaded()).toBe(1);
    expect(await plain.get(`${prefix}a`)).toBe('2');
  });

  it('should answer correctly on the new connection after a reconnect', async () => {
    const script = new EncodedScript(`${ECHO}-- reconnect ${process.pid} ${Date.now()}`);
    expect(await script.run(redis, call(['r'], ['1']))).toEqual([[`${prefix}r`], ['1']]);
    const id = (await redis.client('ID')) as number;
    await plain.client('KILL', 'ID', String(id));
    expect(await script.run(redis, call(['r'], ['2']))).toEqual([[`${prefix}r`], ['2']]);
    expect(await redis.client('ID')).not.toBe(id);
    // the new connection was sent the text first
    const written = await writesOf(async () => {
      await script.run(redis, call(['r'], ['3']));
    });
    expect(written.map((chunk) => chunk.split('\r\n')[2])).toEqual(['EVALSHA']);
  });

  it("should answer the script's own error when it fails for another reason than NOSCRIPT", async () => {
    const script = new EncodedScript(`return redis.error_reply('ADNETTEST ' .. ARGV[1])`);
    await expect(script.run(redis, call([], ['nope']))).rejects.toThrow('ADNETTEST nope');
  });

  it('should answer each of many calls sent at once with its own reply', async () => {
    const script = new EncodedScript(ECHO);
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => script.run(redis, call([`m:${i}`], [i]))));
    replies.forEach((reply, i) => expect(reply).toEqual([[`${prefix}m:${i}`], [String(i)]]));
  });
});
