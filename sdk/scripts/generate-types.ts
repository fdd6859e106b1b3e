/**
 * `npm run sdk:types`: builds the service (on a throw-away SQLite file, without listening), reads its OpenAPI
 * document at /docs-json and writes the SDK's types from it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/app-config';
import { GENERATED_TYPES_FILE, renderOpenApiTypes } from './openapi-types';

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'adnet-sdk-types-'));
  try {
    const app = await createApp(loadConfig({ DATABASE_URL: `sqlite:${join(folder, 'adnet.sqlite')}`, LOG_LEVEL: 'warn' }), { dropSchema: true });
    try {
      const response = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/docs-json' });
      if (response.statusCode !== 200) throw new Error(`GET /docs-json answered ${response.statusCode}`);
      writeFileSync(GENERATED_TYPES_FILE, await renderOpenApiTypes(JSON.parse(response.body) as object));
    } finally {
      await app.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  process.stdout.write(`wrote ${relative(process.cwd(), GENERATED_TYPES_FILE)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
