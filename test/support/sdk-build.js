/**
 * Jest global setup of the e2e project: the sdk-* specs drive the built SDK (sdk/dist), so it is (re)built here
 * when a source, a tsconfig or the build script is newer than the oldest built file, or nothing is built yet.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const SDK = path.resolve(__dirname, '..', '..', 'sdk');

function files(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

function sdkBuildIsStale() {
  const built = files(path.join(SDK, 'dist'));
  if (!existsSync(path.join(SDK, 'dist', 'esm', 'index.js')) || !existsSync(path.join(SDK, 'dist', 'cjs', 'server.js'))) return true;
  const inputs = [
    ...files(path.join(SDK, 'src')),
    path.join(SDK, 'package.json'),
    path.join(SDK, 'scripts', 'build.cjs'),
    ...['tsconfig.json', 'tsconfig.esm.json', 'tsconfig.cjs.json'].map((name) => path.join(SDK, name)),
  ];
  const oldestOutput = Math.min(...built.map((file) => statSync(file).mtimeMs));
  return inputs.some((file) => statSync(file).mtimeMs > oldestOutput);
}

function buildSdk() {
  const result = spawnSync(process.execPath, [path.join(SDK, 'scripts', 'build.cjs')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the SDK (sdk/scripts/build.cjs) failed');
}

module.exports = async function buildSdkWhenStale() {
  if (sdkBuildIsStale()) buildSdk();
};
module.exports.SDK_DIR = SDK;
