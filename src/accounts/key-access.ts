import { ForbiddenError } from '../common/errors';
import type { Role } from './entities/account.entity';
import { hasRole, type Principal } from './principal';

export const KEY_SCOPES = ['full', 'serve'] as const;
/** `full`: everything the account's roles allow. `serve`: a publishable key, only the routes marked @PublishableKeyAllowed(). */
export type KeyScope = (typeof KEY_SCOPES)[number];

export const MAX_ALLOWED_ORIGINS = 20;
/** An exact browser origin: scheme, host and optional port, nothing after it. */
export const ORIGIN_PATTERN = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*)(:\d{1,5})?$/;

/** What a route lets a key do, read from its decorators (see auth.decorators.ts). */
export interface RouteAccess {
  publishableKeyAllowed: boolean;
  /** The key's account needs one of these (admin passes every role check); undefined: any account. */
  roles?: readonly Role[];
}

/**
 * The one decision on a known key's scope and origin, shared by the edge hook (before the body is read), the Nest
 * guard and the fast lanes: null when the key may call the route, else the 403 to answer. A request without an
 * `Origin` header is not a browser's, so `allowedOrigins` does not apply to it (docs/TRUST_AND_SAFETY.md).
 */
export function keyAccessRefusal(principal: Principal, route: RouteAccess, origin: string | undefined): ForbiddenError | null {
  if (principal.scope === 'serve' && !route.publishableKeyAllowed) {
    return new ForbiddenError(
      'this key is a publishable (serve) key: it may only fetch ads and report clicks (matching/ad, ad/event/report, matching/exchange, exchange/event/report); use a full key',
    );
  }
  if (origin !== undefined && principal.allowedOrigins !== null && !principal.allowedOrigins.includes(origin)) {
    return new ForbiddenError(`this key is not allowed from origin ${origin.slice(0, 200)}`);
  }
  return null;
}

/** The one role check, shared by the Nest guard, the fast lanes and the queue board: null, or the 403 to answer. */
export function roleRefusal(principal: Principal, roles: readonly Role[] | undefined): ForbiddenError | null {
  if (roles === undefined) return null;
  for (let i = 0; i < roles.length; i++) if (hasRole(principal, roles[i])) return null;
  return new ForbiddenError(`this key's account lacks the ${roles.join(' or ')} role`);
}

/** Scope, origin, then role: everything a known key needs to call the route; null, or the 403 to answer. */
export function accessRefusal(principal: Principal, route: RouteAccess, origin: string | undefined): ForbiddenError | null {
  return keyAccessRefusal(principal, route, origin) ?? roleRefusal(principal, route.roles);
}

/**
 * The rate-limit bucket of a request: routes called from end users' browsers (the publishable ones) count per
 * (key, client IP), so one publisher's whole audience is not throttled as if it were one client; the others per key.
 */
export function rateLimitBucket(principal: Principal, route: RouteAccess, clientIp: string): string {
  return route.publishableKeyAllowed ? `${principal.keyId} ${clientIp}` : principal.keyId;
}
