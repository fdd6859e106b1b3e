import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminKey } from './harness';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * A second built application with settings of its own (CAMPAIGN_REVIEW=true for the review queue), on a free port
 * and a temporary SQLite file, with the shared server's admin key. The shared one (global-setup.ts) runs without
 * review, which the other specs' campaigns rely on.
 */
export async function startExtraServer(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((done) => probe.close(done));
  const folder = mkdtempSync(join(tmpdir(), 'adnet-admin-e2e-extra-'));
  let log = '';
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(folder, 'adnet.sqlite')}`,
      ADMIN_API_KEY: adminKey(),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      TRUST_PROXY: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (log += chunk));
  child.stderr!.on('data', (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the application exited (${child.exitCode}):\n${log}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`the application did not become healthy within 60 s:\n${log}`);
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((done) => {
        const timer = setTimeout(() => (child.kill('SIGKILL'), done(undefined)), 5000);
        child.once('exit', () => (clearTimeout(timer), done(undefined)));
      });
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
