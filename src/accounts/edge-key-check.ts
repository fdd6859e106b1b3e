import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeRouteConfig } from '../common/edge/route-config';
import { answerError } from '../common/edge/envelope-writer';
import { RateLimitedError, UnauthorizedError } from '../common/errors';
import { keyAccessRefusal } from './key-access';
import type { Principal } from './principal';
import { presentedCredential, PrincipalResolver, unknownCredentialMessage } from './principal-resolver';
import { RateLimiter } from './rate-limiter';

export type RequestWithPrincipal = FastifyRequest & { principal?: Principal };

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/**
 * The key check of every `/api` route that is not @Public(), in Fastify's onRequest hook: before the body is read,
 * so a request without a valid key (or with a key its scope or origins refuse) costs no body parsing. A missing or
 * unknown key counts against the client IP's UNKNOWN_KEY_RATE_LIMIT_PER_SECOND (429 past it); an IP past it gets
 * no database lookup for a key not already cached. The known principal is left on the request for the guards and
 * the fast lanes. Preflight requests pass (CORS answers them). See docs/TRUST_AND_SAFETY.md.
 */
export function installEdgeKeyCheck(fastify: FastifyInstance, principals: PrincipalResolver, limiter: RateLimiter): void {
  fastify.addHook('onRequest', (request: RequestWithPrincipal, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions;
    const config = route.config as EdgeRouteConfig | undefined;
    if (request.method === 'OPTIONS' || route.url === undefined || !route.url.startsWith('/api/') || config?.adnetPublic === true) {
      done();
      return;
    }
    const clientIp = request.ip;
    const refuse = (error: Error) => {
      // The body was never read: closing the connection spares reading (and discarding) the rest of it.
      if (hasBody(request)) reply.header('connection', 'close');
      answerError(error, request, reply);
    };
    const refuseUnknown = (message: string) => refuse(limiter.admitUnknownKey(clientIp) ? new UnauthorizedError(message) : new RateLimitedError(1));
    const credential = presentedCredential(request.headers, config?.adnetSdkKeyHeaders === true);
    const decide = (principal: Principal | null) => {
      if (!principal) return refuseUnknown(unknownCredentialMessage(credential));
      const origin = request.headers.origin;
      const refusal = keyAccessRefusal(
        principal,
        { publishableKeyAllowed: config?.adnetPublishable === true },
        typeof origin === 'string' ? origin : undefined,
      );
      if (refusal) return refuse(refusal);
      request.principal = principal;
      done();
    };

    const malformed = principals.malformedCredentialMessage(credential);
    if (malformed !== null) return refuseUnknown(malformed);
    const cached = principals.cachedCredential(credential);
    if (cached !== undefined) return decide(cached);
    if (limiter.unknownKeyBudgetSpent(clientIp)) return refuse(new RateLimitedError(1));
    principals.resolveCredential(credential).then(decide, (error: unknown) => answerError(error, request, reply));
  });
}
