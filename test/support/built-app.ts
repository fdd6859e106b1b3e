/**
 * The built application (`dist/`, what `npm start` runs), for the e2e files that start real processes: built first
 * when a source changed since the last build (scripts/build-if-stale.js, as `npm start` does), one build at a time
 * across Jest workers (a lock directory), so two files never write dist/ at once. `npm test` builds before the e2e
 * stages, so there the check finds the build fresh. A process started from the build is up in about a second, where
 * `ts-node src/main.ts` first compiles every source file (tens of seconds on a loaded two-core machine).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const BUILT_MAIN = 'dist/src/main.js';
export const BUILT_WORKER = 'dist/src/worker.js';

/** One lock per checkout, outside it (the build may empty dist/). */
const LOCK = join(tmpdir(), `adnet-build-lock-${createHash('sha1').update(ROOT).digest('hex').slice(0, 12)}`);
/** A lock older than this was left by a killed run: taken over. */
const STALE_LOCK_MS = 10 * 60_000;

export async function ensureBuilt(): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = lockAge();
      if (age === null) continue; // released meanwhile
      if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    const build = spawnSync(process.execPath, ['scripts/build-if-stale.js'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}\n${build.stderr}`);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function lockAge(): number | null {
  try {
    return Date.now() - statSync(LOCK).mtimeMs;
  } catch {
    return null;
  }
}
