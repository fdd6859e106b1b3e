import { Command } from 'ioredis';
import { EncodedArguments, EncodedScript, ListedArguments, ScriptArguments } from './encoded-script';

/** What ioredis itself writes for EVALSHA of this script with these keys (prefixed by it) and arguments. */
function ioredisWrites(sha: string, prefix: string, keys: string[], args: (string | number)[]): string {
  // Redis reads command names in any case; ioredis writes them in lower case
  const written = new Command('evalsha', [sha, keys.length, ...keys, ...args], { keyPrefix: prefix }).toWritable({}) as string;
  return written.replace('$7\r\nevalsha\r\n', '$7\r\nEVALSHA\r\n');
}

const KEYS = ['excls:{u:ünïcødé-👤}', 'imps:{u:a}:b', 'lease:{c:1}'];
const ARGS: (string | number)[] = [
  'välue ✓',
  0,
  -12,
  1.5,
  '',
  'a\r\nb',
  1_800_000_000_000,
  'ad_c1',
  // lone surrogates (3 bytes each on the wire), a NUL, and numbers that String() writes in other forms
  '\ud800x\udfff',
  'a\u0000b',
  -0,
  1e21,
  5e-7,
  2 ** 53 + 1,
];

function fill(call: ScriptArguments, recurring: boolean): void {
  for (const key of KEYS) {
    if (recurring) call.recurringKey(key);
    else call.key(key);
  }
  for (const arg of ARGS) {
    if (recurring && typeof arg === 'string') call.recurringArg(arg);
    else call.arg(arg);
  }
}

describe('EncodedScript', () => {
  const script = new EncodedScript('return {KEYS, ARGV}');

  it.each([
    ['plain', false],
    ['recurring', true],
  ])('should write the same bytes as ioredis for the same call (%s keys and arguments)', (_label, recurring) => {
    for (const prefix of ['', 'adnet:', 'prëfix:']) {
      const encoded = new EncodedArguments(prefix);
      fill(encoded, recurring);
      const socket = {};
      const size = 3 + encoded.keyCount + encoded.argCount;
      script.writableFor(socket, size, encoded.encoded); // the first call on a connection sends the text
      expect(script.writableFor(socket, size, encoded.encoded)).toBe(ioredisWrites(script.sha, prefix, KEYS, ARGS));
    }
  });

  it('should give the same recurring encodings again, also after the strings were looked up from another string instance', () => {
    const first = new EncodedArguments('p:');
    fill(first, true);
    const second = new EncodedArguments('p:');
    for (const key of KEYS) second.recurringKey([...key].join(''));
    for (const arg of ARGS) {
      if (typeof arg === 'string') second.recurringArg([...arg].join(''));
      else second.arg(arg);
    }
    expect(second.encoded).toBe(first.encoded);
  });

  it('should keep writing correct bytes after many more recurring strings than it keeps', () => {
    const values = Array.from({ length: 120_000 }, (_, i) => `ad_${i}${i % 7 === 0 ? 'é' : ''}`);
    const all = [...values, ...values.slice(0, 10), ...values.slice(-10)];
    const call = new EncodedArguments('');
    for (const value of all) call.recurringArg(value);
    const written = ioredisWrites(script.sha, '', [], all);
    const head = `*${3 + all.length}\r\n$7\r\nEVALSHA\r\n$40\r\n${script.sha}\r\n`;
    expect(call.encoded).toBe(written.slice(head.length));
  });

  it('should send the script text on the first call of each connection and its sha after it', () => {
    const text = 'return 1';
    const lua = new EncodedScript(text);
    const [one, two] = [{}, {}];
    expect(lua.writableFor(one, 3, '$1\r\n0\r\n')).toBe(`*3\r\n$4\r\nEVAL\r\n$8\r\n${text}\r\n$1\r\n0\r\n`);
    expect(lua.writableFor(one, 3, '$1\r\n0\r\n')).toBe(`*3\r\n$7\r\nEVALSHA\r\n$40\r\n${lua.sha}\r\n$1\r\n0\r\n`);
    expect(lua.writableFor(two, 3, '$1\r\n0\r\n')).toContain('EVAL\r\n');
  });
});

describe('ListedArguments', () => {
  it('should list the keys and arguments in order, recurring or not, for ioredis to prefix and send', () => {
    const listed = new ListedArguments();
    fill(listed, true);
    expect(listed.keys).toEqual(KEYS);
    expect(listed.args).toEqual(ARGS);
  });
});
