import 'reflect-metadata';
import { loadConfigOrExit } from './app-config';
import { ConfigError } from './config/env-reader';
import type { AddressInfo } from 'node:net';
import { PrincipalResolver } from './accounts/principal-resolver';
import { AdminKey, resolveAdminKey } from './accounts/admin-key-file';
import { createApp } from './bootstrap';
import { startupSummary } from './startup-summary';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  let adminKey: AdminKey;
  try {
    adminKey = resolveAdminKey(config);
  } catch (error) {
    // one line that says why (no admin key for the MySQL profile, a damaged key file)
    if (error instanceof ConfigError) refuseToStart(error.problems.join('; '));
    throw error;
  }
  const app = await createApp({ ...config, adminApiKey: adminKey.key });
  const log = app.getHttpAdapter().getInstance().log;
  // Fastify says "Server listening at" once per network interface; the summary below says it once, with the rest.
  const level = log.level;
  if (['trace', 'debug', 'info'].includes(level)) log.level = 'warn';
  try {
    await app.listen(config.port, config.host);
  } finally {
    log.level = level;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  // a key revoked since (through the API, or replaced by a later ADMIN_API_KEY) logs in nowhere: the summary says so
  const adminKeyWorks = (await app.get(PrincipalResolver).resolve(adminKey.key)) !== null;
  const summary = startupSummary(config, port, adminKey.source, adminKeyWorks);
  if (config.logFormat === 'json') log.info(summary.fields, summary.headline);
  else for (const line of summary.lines) log.info(line);
}

function refuseToStart(reason: string): never {
  process.stderr.write(`${reason}\n`);
  process.exit(78);
}

main().catch((error) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
