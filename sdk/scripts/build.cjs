#!/usr/bin/env node
/**
 * Builds the SDK with the workspace's TypeScript (no bundler): dist/esm (ES modules, loadable by a browser as is),
 * dist/cjs (CommonJS), each with its declarations, and a package.json in each telling Node which module kind it holds.
 */
const { spawnSync } = require('node:child_process');
const { rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const sdk = path.resolve(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc', { paths: [sdk] });

rmSync(path.join(sdk, 'dist'), { recursive: true, force: true });
for (const [config, type] of [
  ['tsconfig.esm.json', 'module'],
  ['tsconfig.cjs.json', 'commonjs'],
]) {
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(sdk, config)], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(path.join(sdk, 'dist', type === 'module' ? 'esm' : 'cjs', 'package.json'), `${JSON.stringify({ type })}\n`);
}
