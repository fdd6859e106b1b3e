import { spawnSync } from 'node:child_process';
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
});
