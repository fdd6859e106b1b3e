import { defineConfig } from '@playwright/test';
import { CHROMIUM } from './support/chromium';

/**
 * Browser e2e of the admin panel: the real application (built by `npm run build`) is started by global-setup.ts
 * on a free port with a temporary SQLite file, and driven with Debian's Chromium (never a downloaded browser).
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.e2e.ts',
  globalSetup: './global-setup.ts',
  outputDir: '../../test-results/admin-ui/artifacts',
  reporter: [['list']],
  // The specs share one server and its data; each logs in with its own accounts.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    // A timezone far from UTC, so a picker that ignored it would store the wrong ms.
    timezoneId: 'Asia/Kolkata',
    locale: 'en-GB',
    viewport: { width: 1400, height: 1000 },
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
