import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDK_DIR } from '../support/sdk';

interface PackResult {
  filename: string;
  files: { path: string }[];
}

/**
 * What an integrator installs: `npm pack` of sdk/, unpacked as node_modules/@adnet/sdk. Its prepack builds the SDK with
 * sdk/scripts/build.cjs, the very build the e2e suite's global setup (test/support/sdk-build.js) has just made when
 * a source changed: packed here without running it again (two more compilations), and the first test holds
 * prepack to that build.
 */
describe('SDK package: npm pack, unpacked, loads both entry points as CommonJS and as ES modules', () => {
  let folder: string;
  let packed: PackResult;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'adnet-sdk-pack-'));
    const output = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', folder], {
      cwd: SDK_DIR,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    [packed] = JSON.parse(output.slice(output.indexOf('['))) as PackResult[];
    const installed = join(folder, 'app', 'node_modules', '@adnet', 'sdk');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', join(folder, packed.filename), '-C', installed, '--strip-components=1']);
  }, 120_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const app = () => join(folder, 'app');
  const node = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { cwd: app(), encoding: 'utf8' })) as Record<string, unknown>;

  it('builds on prepack with the build the e2e suite made', () => {
    const { scripts } = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.prepack).toBe('node scripts/build.cjs');
  });

  it('holds the builds, their declarations and the README, and nothing else', () => {
    const paths = packed.files.map((file) => file.path);
    for (const expected of [
      'README.md',
      'package.json',
      'dist/esm/index.js',
      'dist/esm/server.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/server.d.ts',
      'dist/esm/package.json',
      'dist/cjs/package.json',
    ]) {
      expect(paths).toContain(expected);
    }
    expect(paths.filter((path) => !path.startsWith('dist/') && path !== 'README.md' && path !== 'package.json')).toEqual([]);
    expect(paths.filter((path) => path.endsWith('.spec.js') || path.includes('/scripts/'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(app(), 'node_modules', '@adnet', 'sdk', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
  });

  const probe = (load: string) => `
    const probe = (sdk, server) => ({
      publisher: typeof sdk.AdnetPublisher,
      serverClient: typeof sdk.AdnetServerClient,
      errorIsError: new sdk.AdnetError({ status: 400, message: 'x' }) instanceof Error,
      customEvents: sdk.CUSTOM_EVENT_TYPES,
      serverReexports: server.AdnetPublisher === sdk.AdnetPublisher,
      verify: typeof server.verifyWebhookSignature,
      viewerToken: server.createViewerToken('u', 'secret', { now: 0, lifetimeMs: 1000 }),
      mainHasNoServerHelpers: sdk.verifyWebhookSignature === undefined,
    });
    ${load}`;
  const expected = {
    publisher: 'function',
    serverClient: 'function',
    errorIsError: true,
    customEvents: ['onboard', 'register', 'play', 'payment', 'withdraw'],
    serverReexports: true,
    verify: 'function',
    viewerToken: `u.1000.${createHmac('sha256', 'secret').update('u.1000').digest('hex')}`,
    mainHasNoServerHelpers: true,
  };

  it('loads with require()', () => {
    expect(node(['-e', probe("process.stdout.write(JSON.stringify(probe(require('@adnet/sdk'), require('@adnet/sdk/server'))));")])).toEqual(expected);
  });

  it('loads with import', () => {
    const script = probe("import('@adnet/sdk').then(async (sdk) => process.stdout.write(JSON.stringify(probe(sdk, await import('@adnet/sdk/server')))));");
    expect(node(['--input-type=module', '-e', script])).toEqual(expected);
  });

  /** tsc, strict, over consumer files of the unpacked app with these module settings: its exit status and output. */
  const typeCheck = (moduleArgs: string[], files: string[]) => {
    const tsc = require.resolve('typescript/bin/tsc');
    const args = ['--noEmit', '--strict', ...moduleArgs, '--target', 'es2022', '--lib', 'es2022,dom', ...files];
    const compiled = spawnSync(process.execPath, [tsc, ...args], { cwd: app(), encoding: 'utf8' });
    return { status: compiled.status, output: compiled.stdout + compiled.stderr };
  };

  it('types both entry points for TypeScript consumers of either module kind', () => {
    writeFileSync(
      join(app(), 'consumer.mts'),
      "import { AdnetPublisher, type ServedAd } from '@adnet/sdk';\nimport { verifyWebhookSignature } from '@adnet/sdk/server';\n" +
        "const ads: Promise<ServedAd[]> = new AdnetPublisher({ baseUrl: 'https://a', apiKey: 'k' }).getAds({ adBlockId: 'b', openId: 'u' });\n" +
        "export const checks: [Promise<ServedAd[]>, boolean] = [ads, verifyWebhookSignature('s', 1, 'u', 'x')];\n",
    );
    writeFileSync(
      join(app(), 'consumer.cts'),
      "import { AdnetServerClient } from '@adnet/sdk';\nimport server = require('@adnet/sdk/server');\n" +
        "export const detail: Promise<{ campaignId: string }> = new AdnetServerClient({ baseUrl: 'https://a', apiKey: 'k' }).campaigns.detail('c');\n" +
        "export const token: string = server.createViewerToken('u', 's');\n",
    );
    expect(typeCheck(['--module', 'node16', '--moduleResolution', 'node16'], ['consumer.mts', 'consumer.cts'])).toEqual({ status: 0, output: '' });
  });

  it("types both entry points for TypeScript's older resolution (moduleResolution node10, CommonJS)", () => {
    writeFileSync(
      join(app(), 'consumer-node10.ts'),
      "import { AdnetServerClient, type ClickMessage } from '@adnet/sdk';\nimport { createViewerToken } from '@adnet/sdk/server';\n" +
        "export const detail: Promise<{ campaignId: string }> = new AdnetServerClient({ baseUrl: 'https://a', apiKey: 'k' }).campaigns.detail('c');\n" +
        "export const token: string = createViewerToken('u', 's');\nexport const counted: ClickMessage = 'click counted';\n",
    );
    expect(typeCheck(['--module', 'commonjs', '--moduleResolution', 'node10'], ['consumer-node10.ts'])).toEqual({ status: 0, output: '' });
  });
});
