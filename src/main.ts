import 'reflect-metadata';
import { loadConfigOrExit } from './config/app.config';
import { createApp } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  const where = `http://localhost:${config.port}`;
  app
    .getHttpAdapter()
    .getInstance()
    .log.info(
      { database: config.database.type, redis: Boolean(config.redisUrl), appEnv: config.appEnv },
      `listening on ${where} (docs ${where}/docs, admin ${where}/admin/)`,
    );
}

main().catch((error) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
