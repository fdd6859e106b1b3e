import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../common/errors';
import { AccountsService } from './accounts.service';
import { PUBLIC_ROUTE, PUBLISHABLE_KEY_ALLOWED, REQUIRED_ROLES } from './auth.decorators';
import { presentedKey, RequestWithPrincipal } from './edge-key-check';
import type { Role } from './entities/account.entity';
import { keyAccessRefusal, rateLimitBucket, RouteAccess } from './key-access';
import { hasRole } from './principal';
import { RateLimiter } from './rate-limiter';

function routeAccess(reflector: Reflector, context: ExecutionContext): RouteAccess {
  return {
    publishableKeyAllowed:
      reflector.getAllAndOverride<boolean>(PUBLISHABLE_KEY_ALLOWED, [context.getHandler(), context.getClass()]) === true,
  };
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
    private readonly accounts: AccountsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    if (request.principal) return true;
    const rawKey = presentedKey(request);
    if (!rawKey) throw new UnauthorizedError('x-api-key header is missing');
    if (rawKey.length > 200) throw new UnauthorizedError('x-api-key is not a valid key');
    const principal = await this.accounts.authenticate(rawKey);
    if (!principal) throw new UnauthorizedError('x-api-key is not a valid key (unknown or revoked)');
    const origin = request.headers.origin;
    const refusal = keyAccessRefusal(principal, routeAccess(this.reflector, context), typeof origin === 'string' ? origin : undefined);
    if (refusal) throw refusal;
    request.principal = principal;
    return true;
  }
}

/** 403 when the key's account lacks every role the route accepts. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(REQUIRED_ROLES, [
      context.getHandler(),
      context.getClass(),
    ]);
    const principal = context.switchToHttp().getRequest<RequestWithPrincipal>().principal;
    if (!roles || !principal) return true;
    if (roles.some((role) => hasRole(principal, role))) return true;
    throw new ForbiddenError(`this key's account lacks the ${roles.join(' or ')} role`);
  }
}

/** 429 once a key (per client IP on the publishable routes, see rateLimitBucket) has used its RATE_LIMIT_PER_SECOND. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    const principal = request.principal;
    if (principal && !this.limiter.admit(rateLimitBucket(principal, routeAccess(this.reflector, context), request.ip))) {
      throw new RateLimitedError(1);
    }
    return true;
  }
}
