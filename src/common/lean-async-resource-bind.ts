import { AsyncResource } from 'node:async_hooks';

type Callable = (this: unknown, ...args: unknown[]) => unknown;
type BoundByNode = (fn: Callable, thisArg?: unknown) => Callable;

const LEAN = Symbol.for('adnet.leanAsyncResourceBind');

/**
 * Replaces `AsyncResource.prototype.bind` with one that does the same (the function runs in the resource's async
 * scope, with its `this`, arguments, `length` and an `asyncResource` property) without Node 20's per-call accessor.
 * Node's own defines `asyncResource` as a getter and a setter wrapped in `deprecate()` (DEP0172), and each wrapper
 * makes a new function the prototype of another; whatever those functions reach (the resource, the bound function's
 * closure) then outlives every scavenge and is promoted, to be freed only by a full GC (the spec measures it: 35 MB
 * promoted for 10,000 binds of 1 KB). Fastify binds one per request with a body (its content-type parser), which
 * reaches the whole request, so every POST's garbage was promoted (`node bench/probes/post-garbage.js`,
 * docs/PERFORMANCE.md#the-post-routes-garbage). Idempotent; createApp installs it before any route runs.
 */
export function installLeanAsyncResourceBind(): void {
  const prototype = AsyncResource.prototype as unknown as { bind: BoundByNode & { [LEAN]?: true } };
  if (prototype.bind[LEAN]) return;
  const nodeBind = prototype.bind;
  const bind = function bind(this: AsyncResource, fn: Callable, thisArg?: unknown): Callable {
    // Node's own validates the argument and throws its own error
    return typeof fn === 'function' ? leanBind(this, fn, thisArg) : nodeBind.call(this, fn, thisArg);
  } as BoundByNode & { [LEAN]?: true };
  bind[LEAN] = true;
  prototype.bind = bind;
}

function leanBind(resource: AsyncResource, fn: Callable, thisArg: unknown): Callable {
  const bound: Callable =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : (resource.runInAsyncScope.bind(resource, fn, thisArg) as Callable);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, writable: false, value: fn.length });
  // a plain data property, not Node's deprecated accessor
  (bound as Callable & { asyncResource: AsyncResource }).asyncResource = resource;
  return bound;
}
