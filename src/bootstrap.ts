import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { installEdgeKeyCheck } from './accounts/edge-key-check';
import { PrincipalResolver } from './accounts/principal-resolver';
import { RateLimiter } from './accounts/rate-limiter';
import { AppModule, AppModuleOptions } from './app.module';
import { registerCors } from './common/cors';
import { sendError, writeSocketError } from './common/edge/envelope-writer';
import type { EdgeRouteConfig } from './common/edge/route-config';
import { installRouteEdge } from './common/edge/route-edge';
import { answerFrameworkError } from './common/framework-errors';
import { registerJsonParser } from './common/json-body';
import { installIdempotency } from './common/edge/idempotency';
import { IdempotencyService } from './idempotency/idempotency.service';
import { installLeanAsyncResourceBind } from './common/lean-async-resource-bind';
import { accessLogWriter, createPinoLogger, lazyChildLogger, PinoNestLogger } from './common/logging';
import { projectRoot } from './common/project-root';
import type { AppConfig } from './app-config';
import { API_DESCRIPTION } from './docs/api-description';
import { installHttpMetrics } from './metrics/http-metrics';
import { MetricsService } from './metrics/metrics.service';
import { mountQueueBoard, QUEUE_BOARD_PATH } from './queue/queue-board';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the HTTP application: Fastify, envelope errors, JSON parsing, CORS, docs and the admin panel. */
export async function createApp(config: AppConfig, options: AppModuleOptions = {}): Promise<NestFastifyApplication> {
  installLeanAsyncResourceBind();
  const logger = createPinoLogger(config.logLevel, options.logDestination, config.logFormat);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    // One line per request is written in onResponse below; Fastify's own two lines are turned off.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { maxParamLength: 200 },
    frameworkErrors: answerFrameworkError,
    requestTimeout: config.requestTimeoutMs,
    // Node checks request deadlines only this often (30 s by default), so a short timeout needs a shorter period;
    // and it ignores requestTimeout while the headers deadline (60 s by default) is the longer one.
    http: {
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.requestTimeoutMs / 4))),
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
    },
    clientErrorHandler: answerClientError,
    // No Nest middleware is used; without middie every request skips a hook.
    skipMiddie: true,
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
  registerRequestLimits(fastify, config);
  // Graceful shutdown (SIGTERM): once the server is closing, answers carry `Connection: close`, so the keep-alive
  // connection of a request in flight ends with its answer instead of holding the process open for keepAliveTimeout.
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  // Callback hooks, not async ones: each async hook costs every request a promise and a microtask turn.
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  const accessLog = accessLogWriter(logger);
  const observeUnmatched = installHttpMetrics(fastify, app.get(MetricsService).httpDuration);
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const url = request.url;
    const query = url.indexOf('?');
    accessLog(request.id, request.method, query === -1 ? url : url.slice(0, query), reply.statusCode, Math.round(reply.elapsedTime));
    observeUnmatched(request, reply);
    done();
  });

  registerCors(fastify, config.corsOrigins);
  installEdgeKeyCheck(fastify, app.get(PrincipalResolver), app.get(RateLimiter));
  installRouteEdge(fastify, config, (lane) => app.get(lane, { strict: false }));
  installIdempotency(fastify, app.get(IdempotencyService));

  await mountQueueBoard(app, config);
  setUpSwagger(app);
  serveAdminPanel(app);
  serveSiteRoot(fastify);
  app.enableShutdownHooks();
  await app.init();
  await fastify.ready();
  return app;
}

/** The body limit of every route but the @BulkBody() ones. */
export const SMALL_BODY_LIMIT = 64 * 1024;

function registerRequestLimits(fastify: FastifyInstance, config: AppConfig): void {
  fastify.addHook('onRoute', (route) => {
    if (route.bodyLimit !== undefined) return;
    route.bodyLimit =
      (route.config as EdgeRouteConfig | undefined)?.adnetBulkBody === true ? config.bodyLimitBytes : Math.min(SMALL_BODY_LIMIT, config.bodyLimitBytes);
  });
  const maxQueryBytes = config.maxQueryBytes;
  fastify.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    const query = url.indexOf('?');
    if (query !== -1 && url.length - query - 1 > maxQueryBytes) {
      void sendError(reply, 414, `query string longer than ${maxQueryBytes} bytes`);
      return;
    }
    done();
  });
}

/**
 * Errors Node's HTTP parser meets before Fastify has a request (slow or malformed requests, oversized headers):
 * answered in the envelope too, then the connection is closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request headers (URL included) too large']
        : [400, 'malformed HTTP request'];
  writeSocketError(socket, status, message);
  socket.destroy(error);
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

/**
 * The panel holds admin keys: it must never be framed (clickjacking) nor run script from elsewhere. Styles allow
 * inline (MUI's emotion injects <style> tags); images may come from any http(s) URL (ad creatives are previewed).
 */
const ADMIN_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https: http:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
const ADMIN_SECURITY_HEADERS = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The admin panel: the Vite build in admin-ui/dist (`npm run build`), or a placeholder page when it is not built.
 * Any other path under /admin/ without a file extension is a client route of the panel and gets its index.html.
 */
function serveAdminPanel(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const url = request.url;
      if (url === '/admin' || url.startsWith('/admin/') || url.startsWith('/admin?')) {
        reply.headers(ADMIN_SECURITY_HEADERS);
        // bull-board (/admin/queues) is a page of its own with inline script: it keeps the frame and type headers only.
        if (!url.startsWith(QUEUE_BOARD_PATH)) reply.header('content-security-policy', ADMIN_CONTENT_SECURITY_POLICY);
      }
      done();
    });
  const root = projectRoot();
  const built = join(root, 'admin-ui', 'dist');
  const placeholder = join(root, 'admin-ui', 'public');
  const folder = existsSync(join(built, 'index.html')) ? built : placeholder;
  if (!existsSync(join(folder, 'index.html'))) return;
  const fastify = app.getHttpAdapter().getInstance();
  // One route per file found at start (wildcard: false) leaves /admin/* to the client-route fallback below.
  app.useStaticAssets({ root: folder, prefix: '/admin/', decorateReply: false, wildcard: false });
  const indexHtml = readFileSync(join(folder, 'index.html'));
  fastify.get('/admin/*', (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    if (/\.[A-Za-z0-9]+$/.test(path)) {
      return sendError(reply, 404, `no route GET ${path}`);
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(indexHtml);
  });
  fastify.get('/admin', (_request: FastifyRequest, reply: FastifyReply) => reply.redirect('/admin/'));
}

/** The panel's icon (also inlined in admin-ui/index.html), for the pages that have none of their own (/docs, JSON). */
const FAVICON_SVG =
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 64 64'><rect width='64' height='64' rx='14' fill='#1976d2'/>" +
  "<path d='M18 46 30 16h4l12 30h-6l-3-8H27l-3 8zm11-13h8l-4-11z' fill='#fff'/></svg>";

/** A person who opens the service's address lands in the admin panel; browsers find the icon they ask every site for. */
function serveSiteRoot(fastify: FastifyInstance): void {
  fastify.get('/', (_request: FastifyRequest, reply: FastifyReply) => reply.redirect('/admin/', 302));
  fastify.get('/favicon.ico', (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG),
  );
}
