import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { HistogramSeries, PlainHistogram } from './plain-histogram';

/** Index: the status class digit (1xx to 5xx). */
type ByStatusClass = (HistogramSeries | undefined)[];

/** The route label of requests that matched no route (scanners, typos): one series for all of them. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * The request histogram at the Fastify edge, so fast-lane answers count as Nest's do. Each route gets an onResponse
 * hook of its own as it is registered, holding the histogram's children for its route pattern and method: a request
 * costs the observe and nothing else (no label object, no route lookup). Requests that match no route are observed
 * by `observeUnmatched`, from the server-wide onResponse hook. Call before the application registers its routes.
 */
export function installHttpMetrics(
  fastify: FastifyInstance,
  histogram: PlainHistogram<'route' | 'method' | 'status_class'>,
): (request: FastifyRequest, reply: FastifyReply) => void {
  const observer = (children: ByStatusClass, route: string, method: string, status: number): HistogramSeries => {
    const statusClass = Math.min(5, Math.max(1, Math.floor(status / 100)));
    return (children[statusClass] ??= histogram.labels(route, method, `${statusClass}xx`));
  };

  fastify.addHook('onRoute', (route) => {
    const url = route.url;
    const single = Array.isArray(route.method) ? (route.method.length === 1 ? route.method[0] : undefined) : route.method;
    let observe: onResponseHookHandler;
    if (single !== undefined) {
      const children: ByStatusClass = [];
      observe = (_request, reply, done) => {
        observer(children, url, single, reply.statusCode).observe(reply.elapsedTime / 1000);
        done();
      };
    } else {
      const byMethod = new Map<string, ByStatusClass>();
      observe = (request, reply, done) => {
        let children = byMethod.get(request.method);
        if (!children) byMethod.set(request.method, (children = []));
        observer(children, url, request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
        done();
      };
    }
    const own = route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse];
    route.onResponse = [...own, observe];
  });

  const unmatched = new Map<string, ByStatusClass>();
  return (request, reply) => {
    if (!request.is404) return;
    // methods outside the usual few share one series: the label set stays bounded whatever a client sends
    const method = COMMON_METHODS.has(request.method) ? request.method : 'OTHER';
    let children = unmatched.get(method);
    if (!children) unmatched.set(method, (children = []));
    observer(children, UNMATCHED_ROUTE, method, reply.statusCode).observe(reply.elapsedTime / 1000);
  };
}

const COMMON_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
