import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { METRICS_CONFIG, MetricsConfig } from './metrics.config';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { accessRefusal } from '../accounts/key-access';
import { presentedKey, PrincipalResolver } from '../accounts/principal-resolver';
import { UnauthorizedError } from '../common/errors';

/**
 * Who may read /metrics: it shows business figures (ads served, clicks, conversions, queue depths), so never anyone.
 * An admin key in `x-api-key` (resolved and checked like every key: the one resolver, the one role check), or, when
 * METRICS_TOKEN is set, `Authorization: Bearer <METRICS_TOKEN>`: a credential that can read the figures and nothing
 * else, for the scraper's configuration. 401 without a valid credential, 403 for a key of another role.
 */
@Injectable()
export class MetricsAccessGuard implements CanActivate {
  private readonly token: Buffer | null;

  constructor(
    private readonly principals: PrincipalResolver,
    @Inject(METRICS_CONFIG) config: MetricsConfig,
  ) {
    this.token = config.metricsToken ? Buffer.from(config.metricsToken) : null;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (bearer !== undefined && this.token !== null && sameSecret(Buffer.from(bearer), this.token)) return true;
    const rawKey = presentedKey(request.headers);
    if (!rawKey) {
      throw new UnauthorizedError(
        this.token ? 'an admin key in x-api-key, or Authorization: Bearer <METRICS_TOKEN>, is required' : 'x-api-key header with an admin key is required',
      );
    }
    const principal = this.principals.malformedKeyMessage(rawKey) === null ? await this.principals.resolve(rawKey) : null;
    if (!principal) throw new UnauthorizedError('x-api-key is not a valid key (unknown or revoked)');
    const origin = request.headers.origin;
    const refusal = accessRefusal(principal, { publishableKeyAllowed: false, roles: ['admin'] }, typeof origin === 'string' ? origin : undefined);
    if (refusal) throw refusal;
    return true;
  }
}

function sameSecret(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
