import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createApp } from '../../src/bootstrap';
import { Clock } from '../../src/common/clock';
import { loadConfig } from '../../src/app-config';
import { TEST_DATABASE_URL, TEST_PROFILE, testRedisEnv } from './profile';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';
/**
 * Every test request carries a browser's User-Agent, as a real frontend's does: an empty agent or an HTTP library's
 * is invalid traffic (docs/TRUST_AND_SAFETY.md). A test about agents sets its own with `.set('user-agent', ...)`.
 */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

export interface TestApp {
  app: NestFastifyApplication;
  /** supertest agent bound to the running application */
  http: () => ReturnType<typeof request>;
  /** every JSON log line the application wrote */
  logs: string[];
  close: () => Promise<void>;
}

/**
 * Starts the real application on the profile under test, from an empty schema built by the migrations.
 * `env` overrides the environment the way an operator would set it.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { clock?: Clock; /** false: join the schema another instance built */ dropSchema?: boolean } = {},
): Promise<TestApp> {
  const id = randomBytes(4).toString('hex');
  const sqliteFile = join(tmpdir(), `adnet-e2e-${process.pid}-${id}.sqlite`);
  const profileEnv: Record<string, string> =
    TEST_PROFILE === 'mysql'
      ? { DATABASE_URL: TEST_DATABASE_URL, ...testRedisEnv(), REDIS_PREFIX: `adnet-e2e:${id}:` }
      : { DATABASE_URL: `sqlite:${sqliteFile}` };
  const config = loadConfig({
    APP_ENV: 'production',
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
    // Tests read the application's log lines as JSON (`logs`); they go to memory, never to the console.
    LOG_FORMAT: 'json',
    // Tests click right after fetching; the abuse suite unsets it (the default, 300 ms) and moves the clock.
    MIN_CLICK_DELAY_MS: '0',
    ...profileEnv,
    ...env,
  });
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      if (logs.length > 5000) logs.splice(0, logs.length - 5000);
      done();
    },
  });
  const app = await createApp(config, { dropSchema: options.dropSchema ?? true, logDestination, clock: options.clock });
  return {
    app,
    http: () => browserAgent(app),
    logs,
    close: async () => {
      await app.close();
      if (TEST_PROFILE === 'embedded') {
        for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });
      }
    },
  };
}

/** supertest bound to the application, every request with BROWSER_USER_AGENT unless the test sets another. */
function browserAgent(app: NestFastifyApplication): ReturnType<typeof request> {
  const agent = request(app.getHttpServer());
  const withAgent = (method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head') => (url: string) =>
    agent[method](url).set('user-agent', BROWSER_USER_AGENT);
  return Object.assign(Object.create(agent), {
    get: withAgent('get'),
    post: withAgent('post'),
    put: withAgent('put'),
    patch: withAgent('patch'),
    delete: withAgent('delete'),
    options: withAgent('options'),
    head: withAgent('head'),
  });
}
