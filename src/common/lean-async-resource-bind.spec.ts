import { AsyncLocalStorage, AsyncResource, executionAsyncId, triggerAsyncId } from 'node:async_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { installLeanAsyncResourceBind } from './lean-async-resource-bind';

type Bind = (this: AsyncResource, fn: () => unknown) => unknown;
const nodeBind = AsyncResource.prototype.bind as Bind;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as (options?: { type: 'minor' }) => void;

/** MB by which the old generation grew once 10,000 functions, each bound with its own 1 KB array, went out of reach and two scavenges ran. */
function promotedByBinding(bind: Bind): number {
  const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
  collectGarbage();
  const before = oldSpaceUsed();
  for (let i = 0; i < 10_000; i += 1) {
    const payload = new Array<number>(128).fill(i);
    bind.call(new AsyncResource('test-resource'), () => payload);
  }
  collectGarbage({ type: 'minor' });
  collectGarbage({ type: 'minor' });
  return (oldSpaceUsed() - before) / 1024 / 1024;
}

describe('installLeanAsyncResourceBind', () => {
  beforeAll(() => installLeanAsyncResourceBind());

  it('should run the bound function in the resource’s async scope with the caller’s this and arguments', () => {
    const resource = new AsyncResource('test-resource');
    const seen: { executionId: number; triggerId: number; self: unknown; args: unknown[] }[] = [];
    const bound = resource.bind(function (this: unknown, a: number, b: string) {
      seen.push({ executionId: executionAsyncId(), triggerId: triggerAsyncId(), self: this, args: [a, b] });
      return `${a}${b}`;
    });
    const receiver = { name: 'receiver' };

    expect(bound.call(receiver, 1, 'x')).toBe('1x');
    expect(seen).toEqual([{ executionId: resource.asyncId(), triggerId: resource.triggerAsyncId(), self: receiver, args: [1, 'x'] }]);
    expect(bound.length).toBe(2);
    expect((bound as unknown as { asyncResource: AsyncResource }).asyncResource).toBe(resource);
  });

  it('should call with the given thisArg when one is bound', () => {
    const resource = new AsyncResource('test-resource');
    const receiver = { value: 7 };
    // @types/node declares bind without its thisArg
    const bindWithThis = resource.bind.bind(resource) as unknown as (
      fn: (this: { value: number }, add: number) => number,
      thisArg: unknown,
    ) => (add: number) => number;
    const bound = bindWithThis(function (this: { value: number }, add: number) {
      return this.value + add;
    }, receiver);

    expect(bound(3)).toBe(10);
    expect(bound.length).toBe(1);
  });

  it('should carry the AsyncLocalStorage store of where the resource was made to where the function is called', async () => {
    const storage = new AsyncLocalStorage<string>();
    const bound = storage.run('request-1', () => new AsyncResource('test-resource').bind(() => storage.getStore()));

    const fromElsewhere = await storage.run('request-2', () => new Promise((resolve) => setImmediate(() => resolve(bound()))));

    expect(fromElsewhere).toBe('request-1');
  });

  it('should let what a bound function reaches die young once it is out of reach (Node 20’s own bind has it promoted)', () => {
    // The control: if Node's own stops promoting, the workaround can go (docs/PERFORMANCE.md#the-post-routes-garbage).
    expect(promotedByBinding(nodeBind)).toBeGreaterThan(2);
    expect(promotedByBinding(AsyncResource.prototype.bind as Bind)).toBeLessThan(1);
  });

  it('should leave Node’s own error for a bound value that is not a function', () => {
    expect(() => new AsyncResource('test-resource').bind('not a function' as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('should install once, however often it is called', () => {
    const installed = AsyncResource.prototype.bind;
    installLeanAsyncResourceBind();
    expect(AsyncResource.prototype.bind).toBe(installed);
  });
});
