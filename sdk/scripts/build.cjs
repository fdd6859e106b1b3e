#!/usr/bin/env node
/**
 * Builds the SDK with the workspace's TypeScript (no bundler): dist/esm (ES modules, loadable by a browser as is),
 * dist/cjs (CommonJS), each with its declarations, and a package.json in each telling Node which module kind it holds.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const sdk = path.resolve(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc', { paths: [sdk] });

// Built beside dist/ and swapped in at the end, so that whoever loads dist/ meanwhile (`npm pack` runs this while
// other tests use the SDK) finds the previous build whole, never a half-written or missing one.
const dist = path.join(sdk, 'dist');
const next = path.join(sdk, `dist.next-${process.pid}`);
const old = path.join(sdk, `dist.old-${process.pid}`);
rmSync(next, { recursive: true, force: true });
for (const [config, type] of [
  ['tsconfig.esm.json', 'module'],
  ['tsconfig.cjs.json', 'commonjs'],
]) {
  const folder = path.join(next, type === 'module' ? 'esm' : 'cjs');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(sdk, config), '--outDir', folder], { stdio: 'inherit' });
  if (result.status !== 0) {
    rmSync(next, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
  writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify({ type })}\n`);
}
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
