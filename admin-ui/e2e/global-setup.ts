import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM } from './support/chromium';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ADMIN_KEY = 'e2e-admin-key-0123456789abcdef';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

const svg = (color: string, label: string, width: number, height: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" rx="12" fill="${color}"/>` +
  `<text x="50%" y="55%" font-family="sans-serif" font-size="${Math.round(height / 5)}" fill="white" text-anchor="middle">${label}</text></svg>`;

/** Serves the creatives the specs point at (the machine has no internet) and a verification endpoint. */
async function startCreativeServer(): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path === '/ad.svg') return void response.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svg('#1565c0', 'Winter sale', 640, 360));
    if (path === '/icon.svg') return void response.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svg('#ef6c00', 'A', 96, 96));
    if (path === '/verify') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('true');
    response.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

async function waitForHealth(url: string, child: ReturnType<typeof spawn>, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the application exited (${child.exitCode}):\n${output()}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`the application did not become healthy within 60 s:\n${output()}`);
}

export default async function globalSetup() {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  const main = join(ROOT, 'dist', 'src', 'main.js');
  if (!existsSync(main) || !existsSync(join(ROOT, 'admin-ui', 'dist', 'index.html'))) {
    throw new Error('Build first: npm run build (the API into dist/ and the panel into admin-ui/dist/)');
  }
  const folder = mkdtempSync(join(tmpdir(), 'adnet-admin-e2e-'));
  const port = await freePort();
  const creatives = await startCreativeServer();
  const creativesUrl = `http://127.0.0.1:${(creatives.address() as AddressInfo).port}`;
  let log = '';
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(folder, 'adnet.sqlite')}`,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'warn',
      STATS_FLUSH_MS: '100',
      RATE_LIMIT_PER_SECOND: '0',
      // The specs send X-Forwarded-For to place users in a country.
      TRUST_PROXY: 'true',
      VERIFICATION_ALLOW_PRIVATE: 'true',
      VERIFY_DELAY_MS: '0',
      // The specs click right after fetching: no minimum delay between an impression and its click.
      MIN_CLICK_DELAY_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (log += chunk));
  child.stderr!.on('data', (chunk) => (log += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHealth(baseUrl, child, () => log);

  process.env.ADMIN_E2E_BASE_URL = baseUrl;
  process.env.ADMIN_E2E_KEY = ADMIN_KEY;
  process.env.ADMIN_E2E_CREATIVES = creativesUrl;

  return async () => {
    child.kill('SIGTERM');
    await new Promise((done) => {
      const timer = setTimeout(() => (child.kill('SIGKILL'), done(undefined)), 5000);
      child.once('exit', () => (clearTimeout(timer), done(undefined)));
    });
    await new Promise((done) => creatives.close(done));
    rmSync(folder, { recursive: true, force: true });
  };
}
