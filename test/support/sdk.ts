import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestApp } from './test-app';

/** The SDK's folder; its build (dist/) is made by test/support/sdk-build.js before the e2e suite. */
export const SDK_DIR = join(__dirname, '..', '..', 'sdk');

type ServerEntry = typeof import('../../sdk/src/server');

/**
 * The built SDK (CommonJS build of `@adnet/sdk/server`, which re-exports `@adnet/sdk`): the sdk-* specs test what
 * integrators get, not the sources. Loaded by path: `@adnet/sdk` in node_modules is the main checkout's.
 */
export function builtSdk(): ServerEntry {
  return require(join(SDK_DIR, 'dist', 'cjs', 'server.js')) as ServerEntry;
}

/** Makes the test application listen on a free local port (the SDK speaks real HTTP); answers its base URL. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}
