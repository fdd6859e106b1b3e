import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { Role } from './entities/account.entity';
import type { Principal } from './principal';

export const PUBLIC_ROUTE = 'adnet:public';
export const REQUIRED_ROLES = 'adnet:roles';
export const PUBLISHABLE_KEY_ALLOWED = 'adnet:publishable';

/**
 * The route flags the edge hook reads from Fastify's route config (`request.routeOptions.config`), since it runs
 * before Nest knows the handler: set by the same decorators as the Nest metadata, so both read one declaration.
 */
export interface EdgeRouteConfig {
  adnetPublic?: boolean;
  adnetPublishable?: boolean;
}

/** Sets Nest metadata and merges the edge flag into the Fastify route config; on a class, for each of its routes. */
function routeFlag(metadataKey: string, edgeFlag: keyof EdgeRouteConfig): ClassDecorator & MethodDecorator {
  const markMethod = (method: object) => {
    const config: Record<string, unknown> = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, method) ?? {};
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, [edgeFlag]: true }, method);
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

/** The key's account needs one of these roles; admin passes every role check. */
export const Roles = (...roles: Role[]) => SetMetadata(REQUIRED_ROLES, roles);

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => context.switchToHttp().getRequest().principal,
);
