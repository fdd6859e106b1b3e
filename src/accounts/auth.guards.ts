import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RateLimitedError, UnauthorizedError } from '../common/errors';
import { PUBLIC_ROUTE, routeAccessOf, takesSdkKeyHeaders } from './auth.decorators';
import type { RequestWithPrincipal } from './edge-key-check';
import { keyAccessRefusal, rateLimitBucket, roleRefusal, RouteAccess } from './key-access';
import { presentedCredential, PrincipalResolver, unknownCredentialMessage } from './principal-resolver';
import { RateLimiter } from './rate-limiter';

function routeAccess(context: ExecutionContext): RouteAccess {
  return routeAccessOf(context.getHandler(), context.getClass());
}

/**
 * 401 for a missing, unknown or revoked `x-api-key`, 403 for a key whose scope or origins refuse the route; the
 * first check of every request. The edge hook (edge-key-check.ts) has normally done it before the body was read and
 * left the principal on the request; this guard covers a route the hook did not, with the same decision.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly principals: PrincipalResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    if (request.principal) return true;
    const credential = presentedCredential(request.headers, takesSdkKeyHeaders(context.getHandler(), context.getClass()));
    const malformed = this.principals.malformedCredentialMessage(credential);
    if (malformed !== null) throw new UnauthorizedError(malformed);
    const principal = await this.principals.resolveCredential(credential);
    if (!principal) throw new UnauthorizedError(unknownCredentialMessage(credential));
    const origin = request.headers.origin;
    const refusal = keyAccessRefusal(principal, routeAccess(context), typeof origin === 'string' ? origin : undefined);
    if (refusal) throw refusal;
    request.principal = principal;
    return true;
  }
}

/** 403 when the key's account lacks every role the route accepts. */
@Injectable()
export class RolesGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<RequestWithPrincipal>().principal;
    if (!principal) return true;
    const refusal = roleRefusal(principal, routeAccess(context).roles);
    if (refusal) throw refusal;
    return true;
  }
}

/** 429 once a key (per client IP on the publishable routes, see rateLimitBucket) has used its RATE_LIMIT_PER_SECOND. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    const principal = request.principal;
    if (principal && !this.limiter.admit(rateLimitBucket(principal, routeAccess(context), request.ip))) {
      throw new RateLimitedError(1);
    }
    return true;
  }
}
