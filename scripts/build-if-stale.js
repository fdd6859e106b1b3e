#!/usr/bin/env node
/**
 * `npm start`'s prestart: builds (`npm run build`: the API with nest build, the admin panel with Vite) only when the
 * build is missing or a source changed since the last build this script made, so a restart takes a second instead of
 * a rebuild. After a successful build it writes dist/.build-stamp with the newest source time it saw *before*
 * building: a file saved during the build is newer than that and makes the next start build again. `--force` builds
 * whatever the stamp says. (After a build by hand, `npm run build`, the next start builds once more: nothing wrote a
 * stamp.) The whole decision is in `buildState`, tested in build-if-stale.spec.ts.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');

/** What the build reads: a change in any of these makes the build stale. Folders are walked; missing entries skipped. */
const SOURCES = [
  'src',
  'admin-ui/src',
  'admin-ui/index.html',
  'admin-ui/vite.config.ts',
  'admin-ui/tsconfig.json',
  'admin-ui/package.json',
  'sdk/src',
  'sdk/package.json',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
];
/** What `npm start` needs from the build. */
const OUTPUTS = ['dist/src/main.js', 'admin-ui/dist/index.html'];
const STAMP = 'dist/.build-stamp';
/** Folders never read as sources. */
const SKIPPED = new Set(['node_modules', 'dist', '.git']);
/** Tests beside the code are not part of the build: editing one does not make it stale. */
const TEST_FILE = /\.(spec|test)\.tsx?$/;

/** The newest modification time (ms) among the files under these paths, or 0 when there are none. */
function newestSourceTime(root, sources = SOURCES) {
  let newest = 0;
  const visit = (file) => {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(file)) if (!SKIPPED.has(entry)) visit(path.join(file, entry));
    } else if (stat.mtimeMs > newest && !TEST_FILE.test(file)) {
      newest = stat.mtimeMs;
    }
  };
  for (const source of sources) visit(path.join(root, source));
  return newest;
}

/**
 * Whether `npm start` must build first, and why: `fresh` when every output exists and the stamp of the last build
 * covers the newest source; otherwise the reason (no build yet, an output missing, sources changed since).
 */
function buildState(root, { sources = SOURCES, outputs = OUTPUTS, stamp = STAMP } = {}) {
  const missing = outputs.find((output) => !existsSync(path.join(root, output)));
  if (missing !== undefined) return { fresh: false, reason: `${missing} is missing` };
  let built;
  try {
    built = JSON.parse(readFileSync(path.join(root, stamp), 'utf8')).sourcesNewest;
  } catch {
    return { fresh: false, reason: 'no stamp of a build made by npm start' };
  }
  const newest = newestSourceTime(root, sources);
  if (typeof built !== 'number' || newest > built) return { fresh: false, reason: 'sources changed since the last build' };
  return { fresh: true, reason: 'dist/ is newer than the sources' };
}

/** Records a successful build of the sources as they were at `sourcesNewest`. */
function writeStamp(root, sourcesNewest, stamp = STAMP) {
  writeFileSync(path.join(root, stamp), `${JSON.stringify({ sourcesNewest, builtAt: new Date().toISOString() })}\n`);
}

function main() {
  const root = path.resolve(__dirname, '..');
  const force = process.argv.includes('--force');
  const state = buildState(root);
  if (state.fresh && !force) {
    process.stdout.write(`build is up to date (${state.reason}): skipping npm run build\n`);
    return;
  }
  process.stdout.write(`building first (${force ? '--force' : state.reason}): npm run build\n`);
  const sourcesNewest = newestSourceTime(root);
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeStamp(root, sourcesNewest);
}

module.exports = { buildState, newestSourceTime, writeStamp, SOURCES, OUTPUTS, STAMP };

if (require.main === module) main();
