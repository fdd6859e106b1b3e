import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import { withFields } from '../with-fields';

/** Which deadline a route's handler has: the handler deadline (default), the request deadline, or none. */
export type DeadlineKind = 'handler' | 'request' | 'none';

/**
 * What the edge reads of a route from Fastify's route config (`route.config`, `request.routeOptions.config`), since
 * it acts before Nest knows the handler: set by the same decorators as the Nest metadata, so both read one declaration.
 */
export interface EdgeRouteConfig {
  adnetPublic?: boolean;
  adnetPublishable?: boolean;
  /** Set by @SdkKeyHeaders(): the key may also come in `apikey`, or a serve key by its keyId in `x-api-id`. */
  adnetSdkKeyHeaders?: boolean;
  adnetDeadline?: DeadlineKind;
  /** Set by @BulkBody(): the route takes bodies up to BODY_LIMIT; every other route at most SMALL_BODY_LIMIT. */
  adnetBulkBody?: boolean;
  /** Set by @FastLane(): the lane and the controller method it shadows. */
  adnetFastLane?: { lane: unknown; handler: object; controller: object };
}

/** Merges these edge settings into the Fastify route config of a controller method. */
export function setEdgeRouteConfig(method: object, settings: EdgeRouteConfig): void {
  const config: Record<string, unknown> = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, method) ?? {};
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, withFields(config, settings), method);
}

/**
 * The deadline of a route's handler. `none`: the hot paths answer from memory and Redis, whose client gives up
 * after two reconnect tries; a deadline timer per request would cost them more than it could catch. `request`: big
 * uploads (a 10 MiB profile batch, a streamed CSV) and long admin work keep only REQUEST_TIMEOUT_MS.
 */
export function HandlerDeadline(kind: DeadlineKind): MethodDecorator {
  return (_target, _key, descriptor) => {
    setEdgeRouteConfig(descriptor.value as object, { adnetDeadline: kind });
    return descriptor;
  };
}

/**
 * Only the bulk uploads take bodies up to BODY_LIMIT (the CSV import streams under its own PROFILE_CSV_MAX_BYTES);
 * every other route at most SMALL_BODY_LIMIT, so no route but these can be made to buffer megabytes.
 */
export function BulkBody(): MethodDecorator {
  return (_target, _key, descriptor) => {
    setEdgeRouteConfig(descriptor.value as object, { adnetBulkBody: true });
    return descriptor;
  };
}
