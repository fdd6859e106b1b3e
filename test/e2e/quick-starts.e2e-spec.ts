/**
 * The two quick starts, run as written against a listening service: README.md's tour (its bash block, over curl)
 * and sdk/README.md's "Try it against a local service" (its ES module, on the built SDK). Each must print exactly
 * the lines its document shows under "It prints:"; the only change made to either is the service's address.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { listen, SDK_DIR } from '../support/sdk';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const TEST_API_KEY = 'local-test-key-0123456789';

/** The first fenced block of `language` after `heading`, and the block that follows "It prints:" after it. */
function quickStart(file: string, heading: string, language: string): { script: string; prints: string } {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const section = text.slice(text.indexOf(heading));
  expect(section.length).toBeLessThan(text.length);
  const script = new RegExp('```' + language + '\\n([\\s\\S]*?)\\n```').exec(section)![1];
  const afterPrints = section.slice(section.indexOf('It prints:'));
  const prints = /```\n([\s\S]*?)\n```/.exec(afterPrints)![1];
  return { script, prints };
}

describe('Quick starts: README.md and sdk/README.md, run as written, print what they show', () => {
  let t: TestApp;
  let baseUrl: string;
  let workDir: string;

  // Each on a service of its own, as a new user starts one: as `npm start` runs it (the default minimum click delay
  // included), with the SDK walk-through's test key.
  beforeEach(async () => {
    t = await startTestApp({ MIN_CLICK_DELAY_MS: '300', APP_ENV: 'test', TEST_API_KEY });
    baseUrl = await listen(t);
    workDir = mkdtempSync(join(tmpdir(), 'adnet-quick-start-'));
  });
  afterEach(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("README.md's five-step tour, pasted into bash, prints one ad, a counted click and the bill", async () => {
    const { script, prints } = quickStart('README.md', '## A five-step tour', 'bash');
    expect(script).toContain('http://localhost:3000');
    // run where `npm start` would have written the admin key
    mkdirSync(join(workDir, 'data'), { recursive: true });
    writeFileSync(join(workDir, 'data', 'admin-key'), `${ADMIN_KEY}\n`);
    const { stdout, stderr } = await run('bash', ['-c', script.replaceAll('http://localhost:3000', baseUrl)], {
      cwd: workDir,
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      timeout: 60_000,
    });
    expect({ stdout: stdout.trimEnd(), stderr }).toEqual({ stdout: prints, stderr: '' });
  });

  it("sdk/README.md's walk-through, run as an ES module, prints a counted click, an attributed conversion and the figures", async () => {
    const { script, prints } = quickStart(join('sdk', 'README.md'), '## Try it against a local service', 'js');
    expect(script).toContain(TEST_API_KEY);
    // `@adnet/sdk` installed beside the script, as the built package (sdk/dist, made before the e2e suite)
    const app = join(workDir, 'sdk-app');
    mkdirSync(join(app, 'node_modules', '@adnet'), { recursive: true });
    symlinkSync(SDK_DIR, join(app, 'node_modules', '@adnet', 'sdk'), 'dir');
    writeFileSync(join(app, 'try.mjs'), script.replaceAll('http://localhost:3000', baseUrl));
    const { stdout, stderr } = await run(process.execPath, ['try.mjs'], { cwd: app, timeout: 60_000 });
    expect({ stdout: stdout.trimEnd(), stderr }).toEqual({ stdout: prints, stderr: '' });
  });
});
