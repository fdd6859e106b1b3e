import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../common/errors';
import { AccountsService } from './accounts.service';
import { PUBLIC_ROUTE, REQUIRED_ROLES } from './auth.decorators';
import type { Role } from './entities/account.entity';
import { hasRole, Principal } from './principal';
import { RateLimiter } from './rate-limiter';

type AuthedRequest = FastifyRequest & { principal?: Principal };

/** 401 for a missing, unknown or revoked `x-api-key`; the first check of every request (DESIGN §11). */
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
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    const header = request.headers['x-api-key'];
    const rawKey = Array.isArray(header) ? header[0] : header;
    if (!rawKey) throw new UnauthorizedError('x-api-key header is missing');
    if (rawKey.length > 200) throw new UnauthorizedError('x-api-key is not a valid key');
    const principal = await this.accounts.authenticate(rawKey);
    if (!principal) throw new UnauthorizedError('x-api-key is not a valid key (unknown or revoked)');
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
    const principal = context.switchToHttp().getRequest<AuthedRequest>().principal;
    if (!roles || !principal) return true;
    if (roles.some((role) => hasRole(principal, role))) return true;
    throw new ForbiddenError(`this key's account lacks the ${roles.join(' or ')} role`);
  }
}

/** 429 once a key has used its RATE_LIMIT_PER_SECOND (see RateLimiter). */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<AuthedRequest>().principal;
    if (principal && !this.limiter.admit(principal.keyId)) throw new RateLimitedError(1);
    return true;
  }
}
