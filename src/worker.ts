import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createPinoLogger, PinoNestLogger } from './common/logging';
import { loadConfigOrExit } from './app-config';
import { QueueService } from './queue/queue.service';
import { WorkerModule } from './worker.module';

/**
 * `npm run start:worker`: processes queue jobs (BullMQ on REDIS_URL) without serving HTTP, beside API processes
 * started with QUEUE_WORKERS=false (or not). It never runs migrations: the API process does.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.redisUrl) {
    process.stderr.write(
      'npm run start:worker needs REDIS_URL: without Redis the queues live inside the API process (npm start), which runs their jobs itself\n',
    );
    process.exit(78);
  }
  const logger = createPinoLogger(config.logLevel, undefined, config.logFormat);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot({ ...config, queueWorkers: true, runMigrations: false }), {
    logger: new PinoNestLogger(logger),
  });
  app.enableShutdownHooks();
  await app.init();
  logger.info({ queues: app.get(QueueService).workingQueues }, 'queue worker running');
}

main().catch((error) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
