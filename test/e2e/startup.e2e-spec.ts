import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

describe('Process start-up', () => {
  it('should stop with exit code 78 and a message naming each bad variable', () => {
    const result = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: 'not-a-port', APP_ENV: 'staging' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toContain('PORT must be an integer from 0 to 65535 (got "not-a-port")');
    expect(result.stderr).toContain('APP_ENV must be production or test (got "staging")');
  });

  it('should start as a real process and write its JSON log lines (LOG_FORMAT=json), request lines included, to standard output', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'adnet-startup-'));
    const database = join(folder, 'adnet.sqlite');
    const port = 3900 + (process.pid % 90);
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
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
