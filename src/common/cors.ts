import type { FastifyInstance } from 'fastify';

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
// The second line: what the ton-ai-sdk sends (its key and app id, its own markers, and a stray request header
// `access-control-allow-origin` it sets by mistake, which a preflight must allow all the same).
const ALLOWED_HEADERS =
  'x-api-key, debug, content-type, x-request-id, accept-language, x-adnet-viewer, ' +
  'apikey, x-api-id, api-request-type, sdk-version, accept, access-control-allow-origin';
const EXPOSED_HEADERS = 'x-request-id, retry-after';

/**
 * CORS for browser callers (publishers' and partners' frontends). Keys travel in a header, never in cookies, so
 * any origin may be allowed; with CORS_ORIGINS set only those are. A few static headers per request: the generic
 * plugin resolved the origin option on every request and cost a fifth of the throughput of a small route.
 */
export function registerCors(fastify: FastifyInstance, origins: string[] | '*'): void {
  const allowed = origins === '*' ? null : new Set(origins);
  fastify.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined || (allowed !== null && !allowed.has(origin))) {
      done();
      return;
    }
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply
        .header('access-control-allow-methods', ALLOWED_METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', '86400')
        .code(204)
        .send();
      return;
    }
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    done();
  });
}
