import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MYSQL_NEEDS_ADMIN_KEY } from '../../src/accounts/admin-key-file';
import { BUILT_MAIN, ensureBuilt, ROOT as root } from '../support/built-app';
import { TEST_PROFILE } from '../support/profile';

// Every process here is the built application, as `npm start` runs it (built first when a source changed).
beforeAll(() => ensureBuilt(), 320_000);

describe('Process start-up', () => {
  it('should stop with exit code 78 and a message naming each bad variable', () => {
    const result = spawnSync(process.execPath, [BUILT_MAIN], {
      cwd: root,
      env: {
        ...process.env,
        PORT: 'not-a-port',
        APP_ENV: 'staging',
        DATABASE_URL: 'mysql://root@127.0.0.1:3306/adnet',
        DATABASE_REPLICA_URLS: 'mysql://ro@10.0.0.2:3306/adnet,replica-2:3306',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toContain('PORT must be an integer from 0 to 65535 (got "not-a-port")');
    expect(result.stderr).toContain('APP_ENV must be production or test (got "staging")');
    expect(result.stderr).toContain('DATABASE_REPLICA_URLS must be mysql://user:pass@host:port/database URLs separated by commas (got "replica-2:3306")');
  });

  it('should start as a real process and write its JSON log lines (LOG_FORMAT=json), request lines included, to standard output', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'adnet-startup-'));
    const database = join(folder, 'adnet.sqlite');
    const port = 3900 + (process.pid % 90);
    const child = spawn(process.execPath, [BUILT_MAIN], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${database}`,
        REDIS_URL: '',
        APP_ENV: 'production',
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    try {
      const deadline = Date.now() + 60_000;
      let answered = false;
      while (!answered && Date.now() < deadline && child.exitCode === null) {
        answered = await fetch(`http://127.0.0.1:${port}/health`, { headers: { 'x-request-id': 'startup-check' } }).then(
          (response) => response.status === 200,
          () => false,
        );
        if (!answered) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(answered).toBe(true);
      // the buffered standard output is flushed within a fraction of a second on a quiet server
      const lineDeadline = Date.now() + 5000;
      while (!stdout.includes('startup-check') && Date.now() < lineDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.find((line) => line.msg.startsWith('listening on'))).toBeDefined();
      expect(lines.find((line) => line.reqId === 'startup-check')).toEqual({
        level: 30,
        time: expect.any(Number),
        service: 'adnet',
        pid: child.pid,
        reqId: 'startup-check',
        method: 'GET',
        path: '/health',
        status: 200,
        ms: expect.any(Number),
        msg: 'request',
      });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);
});

/**
 * The first run as a new user makes it: the built application (`npm start` runs `node dist/src/main.js`) with nothing
 * set. Process-wide, not per storage profile: run with the embedded one.
 */
describe('Built application, first run (node dist/src/main.js)', () => {
  // one process-level check, whatever the storage profile under test: made on the embedded run
  if (TEST_PROFILE !== 'embedded') return;

  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'adnet-first-run-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** Starts the built app on a free port with no ADMIN_API_KEY; resolves once it printed its admin panel line. */
  async function startBuilt(adminApiKey = ''): Promise<{ port: number; panelLine: string; stop: () => Promise<void> }> {
    const child = spawn(process.execPath, [BUILT_MAIN], {
      cwd: root,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(folder, 'adnet.sqlite')}`,
        REDIS_URL: '',
        ADMIN_API_KEY: adminApiKey,
        APP_ENV: 'production',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const stop = async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    };
    const deadline = Date.now() + 60_000;
    while (!/Admin panel: .*\n/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`no admin panel line; output:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const port = Number(/listening on http:\/\/localhost:(\d+) /.exec(output)![1]);
    return { port, panelLine: /Admin panel: .*/.exec(output)![0], stop };
  }

  const adminCall = (port: number, key: string) =>
    fetch(`http://127.0.0.1:${port}/api/v2/admin/accounts`, { headers: { 'x-api-key': key } }).then((r) => r.status);

  it('should create an admin key once, in a 0600 file beside the database, print the login line, and reuse the key on the next start', async () => {
    const keyFile = join(folder, 'admin-key');
    const first = await startBuilt();
    let key: string;
    try {
      expect(first.panelLine).toBe(`Admin panel: http://localhost:${first.port}/admin/ — admin key in ${keyFile} (created now)`);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      key = readFileSync(keyFile, 'utf8').trim();
      expect(key).toMatch(/^adn_admin_[A-Za-z0-9_-]{43}$/);
      expect(await adminCall(first.port, key)).toBe(200);
      expect(await adminCall(first.port, `${key}x`)).toBe(401);
      const panel = await fetch(`http://127.0.0.1:${first.port}/`, { redirect: 'manual' });
      expect([panel.status, panel.headers.get('location')]).toEqual([302, '/admin/']);
    } finally {
      await first.stop();
    }

    const second = await startBuilt();
    try {
      expect(second.panelLine).toBe(`Admin panel: http://localhost:${second.port}/admin/ — admin key in ${keyFile}`);
      expect(readFileSync(keyFile, 'utf8').trim()).toBe(key);
      expect(await adminCall(second.port, key)).toBe(200);
    } finally {
      await second.stop();
    }

    // an ADMIN_API_KEY replaces (revokes) the file's key; a later start without it says so instead of a dead login
    const chosen = 'chosen-admin-key-0123456789abcdef';
    const third = await startBuilt(chosen);
    try {
      expect(third.panelLine).toBe(`Admin panel: http://localhost:${third.port}/admin/ — admin key from ADMIN_API_KEY`);
      expect([await adminCall(third.port, chosen), await adminCall(third.port, key)]).toEqual([200, 401]);
    } finally {
      await third.stop();
    }
    const fourth = await startBuilt();
    try {
      expect(fourth.panelLine).toBe(
        `Admin panel: http://localhost:${fourth.port}/admin/ — the admin key in ${keyFile} was revoked (replaced by an ADMIN_API_KEY since): delete the file to have a new one made, or set ADMIN_API_KEY`,
      );
    } finally {
      await fourth.stop();
    }
  }, 200_000);

  it('should refuse to start the MySQL profile without ADMIN_API_KEY, saying why in one line', () => {
    const result = spawnSync(process.execPath, [BUILT_MAIN], {
      cwd: root,
      env: { ...process.env, PORT: '0', DATABASE_URL: 'mysql://root@127.0.0.1:1/adnet', REDIS_URL: '', ADMIN_API_KEY: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toBe(`${MYSQL_NEEDS_ADMIN_KEY}\n`);
    expect(result.stdout).toBe('');
  });
});
