import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { type EdgeRouteConfig, setEdgeRouteConfig } from '../common/edge/route-config';
import type { Role } from './entities/account.entity';
import type { RouteAccess } from './key-access';
import type { Principal } from './principal';

export const PUBLIC_ROUTE = 'adnet:public';
export const REQUIRED_ROLES = 'adnet:roles';
export const PUBLISHABLE_KEY_ALLOWED = 'adnet:publishable';
export const SDK_KEY_HEADERS = 'adnet:sdk-key-headers';

/**
 * Sets Nest metadata and merges the edge flag into the Fastify route config (the edge hook runs before Nest knows
 * the handler), so both read one declaration; on a class, for each of its routes.
 */
function routeFlag(metadataKey: string, edgeFlag: 'adnetPublic' | 'adnetPublishable' | 'adnetSdkKeyHeaders'): ClassDecorator & MethodDecorator {
  const markMethod = (method: object) => {
    setEdgeRouteConfig(method, { [edgeFlag]: true } satisfies EdgeRouteConfig);
    Reflect.defineMetadata(metadataKey, true, method);
  };
  return ((target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor?.value) {
      markMethod(descriptor.value as object);
      return descriptor;
    }
    const prototype = (target as { prototype: Record<string, unknown> }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const method = Object.getOwnPropertyDescriptor(prototype, name)?.value;
      if (name !== 'constructor' && typeof method === 'function') markMethod(method as object);
    }
    Reflect.defineMetadata(metadataKey, true, target);
    return undefined;
  }) as ClassDecorator & MethodDecorator;
}

/** No `x-api-key` needed (health, metrics). */
export const Public = () => routeFlag(PUBLIC_ROUTE, 'adnetPublic');

/**
 * A publishable (`serve`) key may call this route: the end-user-facing ones (ad fetch, click report, exchange fetch
 * and click, the SDK's). Their rate limit also counts per (key, client IP). See docs/TRUST_AND_SAFETY.md.
 */
export const PublishableKeyAllowed = () => routeFlag(PUBLISHABLE_KEY_ALLOWED, 'adnetPublishable');

/**
 * The routes of the ton-ai-sdk (src/compat/): the key may also come in its `apikey` header, or a `serve` key by its
 * keyId in `x-api-id` (see presentedCredential). Only with @PublishableKeyAllowed(): a keyId names serve keys only.
 */
export const SdkKeyHeaders = () => routeFlag(SDK_KEY_HEADERS, 'adnetSdkKeyHeaders');

/** The key's account needs one of these roles; admin passes every role check. */
export const Roles = (...roles: Role[]) => SetMetadata(REQUIRED_ROLES, roles);

/**
 * What a route lets a key do, from its decorators on the method or else its controller: read by the guards (through
 * their execution context) and, once at start, for the fast lane shadowing the route.
 */
export function routeAccessOf(handler: object, controller: object): RouteAccess {
  const publishable: boolean | undefined = Reflect.getMetadata(PUBLISHABLE_KEY_ALLOWED, handler) ?? Reflect.getMetadata(PUBLISHABLE_KEY_ALLOWED, controller);
  const roles: Role[] | undefined = Reflect.getMetadata(REQUIRED_ROLES, handler) ?? Reflect.getMetadata(REQUIRED_ROLES, controller);
  return { publishableKeyAllowed: publishable === true, roles };
}

/** Whether a route takes the ton-ai-sdk's key headers (@SdkKeyHeaders() on the method or its controller). */
export function takesSdkKeyHeaders(handler: object, controller: object): boolean {
  return (Reflect.getMetadata(SDK_KEY_HEADERS, handler) ?? Reflect.getMetadata(SDK_KEY_HEADERS, controller)) === true;
}

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => context.switchToHttp().getRequest().principal);
