import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let lastTime = 0;
let lastRandom: number[] = [];

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
    random = [...randomBytes(16)].map((byte) => byte & 31);
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
