import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let lastTime = 0;
let lastRandom: number[] = [];
/** Random bytes drawn 4 KiB at a time: one system call per 256 ids instead of one per id (every click takes one). */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomDigits(): number[] {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const digits = new Array<number>(16);
  for (let i = 0; i < 16; i++) digits[i] = pool[poolOffset + i] & 31;
  poolOffset += 16;
  return digits;
}

/**
 * Time-ordered ids (ULID layout, lower-case Crockford base32): sorting by id is sorting by creation,
 * which keeps "newest first" lists stable even when rows share a millisecond.
 */
export function newId(now = Date.now()): string {
  let random: number[];
  if (now <= lastTime) {
    random = increment(lastRandom);
    now = lastTime;
  } else {
    random = randomDigits();
  }
  lastTime = now;
  lastRandom = random;
  let time = '';
  let rest = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[rest % 32] + time;
    rest = Math.floor(rest / 32);
  }
  return time + random.map((digit) => ALPHABET[digit]).join('');
}

function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] < 31) {
      next[i]++;
      return next;
    }
    next[i] = 0;
  }
  return next;
}
