import 'reflect-metadata';
import { setPriority } from 'node:os';
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
  lowerPriority(config.workerNice, logger);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot({ ...config, queueWorkers: true, runMigrations: false }), {
    logger: new PinoNestLogger(logger),
  });
  app.enableShutdownHooks();
  await app.init();
  logger.info({ queues: app.get(QueueService).workingQueues }, 'queue worker running');
}

/** Background work yields the CPU to API processes on the same machine (docs/OPERATIONS.md, "Queues and workers"). */
function lowerPriority(nice: number, logger: { warn(details: object, message: string): void }): void {
  if (nice === 0) return;
  try {
    setPriority(nice);
  } catch (error) {
    logger.warn({ nice, err: error }, 'could not lower the worker process priority');
  }
}

main().catch((error) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
