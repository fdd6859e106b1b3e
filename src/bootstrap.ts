import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppModule, AppModuleOptions } from './app.module';
import { registerJsonParser } from './common/json-body';
import { createPinoLogger, PinoNestLogger } from './common/logger';
import { projectRoot } from './common/project-root';
import type { AppConfig } from './config/app.config';
import { API_DESCRIPTION } from './docs/api-description';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the HTTP application: Fastify, envelope errors, JSON parsing, CORS, docs and the admin panel. */
export async function createApp(config: AppConfig, options: AppModuleOptions = {}): Promise<NestFastifyApplication> {
  const logger = createPinoLogger(config.logLevel, options.logDestination);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    // One line per request is written in onResponse below; Fastify's own two lines are turned off.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { maxParamLength: 200 },
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options), adapter, {
    logger: new PinoNestLogger(logger),
    // Our own JSON parser is registered below (see json-body.ts).
    bodyParser: false,
  });

  const fastify = app.getHttpAdapter().getInstance();
  registerJsonParser(fastify, config.bodyLimitBytes);
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
  });
  fastify.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    request.log.info(
      { method: request.method, path: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });

  app.enableCors({
    origin: config.corsOrigins === '*' ? true : config.corsOrigins,
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['x-api-key', 'debug', 'content-type', 'x-request-id', 'accept-language'],
    exposedHeaders: ['x-request-id', 'retry-after'],
    maxAge: 86400,
  });

  setUpSwagger(app);
  serveAdminPanel(app);
  app.enableShutdownHooks();
  await app.init();
  await fastify.ready();
  return app;
}

function setUpSwagger(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Ad network API')
      .setDescription(API_DESCRIPTION)
      .setVersion('2')
      .addApiKey({ type: 'apiKey', name: 'x-api-key', in: 'header', description: 'Your API key' }, 'x-api-key')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', customSiteTitle: 'Ad network API' });
}

function serveAdminPanel(app: NestFastifyApplication): void {
  const root = projectRoot();
  const built = join(root, 'admin-ui', 'dist');
  const placeholder = join(root, 'admin-ui', 'public');
  const folder = existsSync(join(built, 'index.html')) ? built : placeholder;
  if (!existsSync(folder)) return;
  app.useStaticAssets({ root: folder, prefix: '/admin/', decorateReply: false });
  app.getHttpAdapter().getInstance().get('/admin', (_request: FastifyRequest, reply: FastifyReply) => reply.redirect('/admin/'));
}
