import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublishableKeyAllowed, Roles } from '../../accounts/auth.decorators';
import { armDeadline } from './deadline';
import { FastLane, FastLaneHandler, laneOfRoute } from './fast-lane';
import { HandlerDeadline } from './route-config';
import { deadlineOfRoute } from './route-edge';

class RecordingLane extends FastLaneHandler {
  tryHandle(): boolean {
    return false;
  }
}
class AdminLane extends RecordingLane {}

@Roles('publisher')
class ExampleController {
  @PublishableKeyAllowed()
  @FastLane(RecordingLane)
  @HandlerDeadline('none')
  fetch(): void {}

  @Roles('admin')
  @FastLane(AdminLane)
  rebuild(): void {}

  @HandlerDeadline('request')
  upload(): void {}

  plain(): void {}
}

const configOf = (method: keyof ExampleController): unknown => Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, ExampleController.prototype[method]);
const DEADLINES = { handlerTimeoutMs: 15_000, requestTimeoutMs: 300_000 };

describe('route deadlines', () => {
  it('should give each route the deadline its decorator names, and none at all when HANDLER_TIMEOUT_MS is 0', () => {
    expect(deadlineOfRoute(configOf('plain') as never, DEADLINES)).toBe(15_000);
    expect(deadlineOfRoute(undefined, DEADLINES)).toBe(15_000);
    expect(deadlineOfRoute(configOf('fetch') as never, DEADLINES)).toBe(0);
    expect(deadlineOfRoute(configOf('upload') as never, DEADLINES)).toBe(300_000);
    expect(deadlineOfRoute(configOf('upload') as never, { ...DEADLINES, handlerTimeoutMs: 0 })).toBe(0);
  });

  describe('armDeadline', () => {
    beforeEach(() => {
      jest.useFakeTimers();
      // a 503 is logged as a failure; not in this spec's output
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    });
    afterEach(() => {
      jest.useRealTimers();
      jest.restoreAllMocks();
    });

    const replyWith = (sent: boolean) => {
      const raw = new EventEmitter();
      const sends: unknown[] = [];
      const reply = {
        sent,
        raw,
        code: () => reply,
        header: () => reply,
        send: (body: unknown) => {
          sends.push(body);
          reply.sent = true;
          return reply;
        },
      };
      return { reply: reply as unknown as FastifyReply, raw, sends };
    };
    const request = { id: 'r', method: 'POST', url: '/x' } as FastifyRequest;

    it('should answer 503 in the envelope once the deadline passes unanswered', () => {
      const { reply, sends } = replyWith(false);
      armDeadline(request, reply, 400);
      jest.advanceTimersByTime(399);
      expect(sends).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(sends).toEqual([{ code: 503, message: 'request timed out; retry later', data: {} }]);
    });

    it('should do nothing for a request answered in time', () => {
      const answered = replyWith(true);
      armDeadline(request, answered.reply, 400);
      jest.advanceTimersByTime(500);
      expect(answered.sends).toEqual([]);

      const closed = replyWith(false);
      armDeadline(request, closed.reply, 400);
      closed.raw.emit('close');
      jest.advanceTimersByTime(500);
      expect(closed.sends).toEqual([]);
    });
  });
});

describe('fast lanes declared on controller methods', () => {
  const lanes = new Map<unknown, FastLaneHandler>([
    [RecordingLane, new RecordingLane()],
    [AdminLane, new AdminLane()],
  ]);
  const instanceOf = (type: unknown) => lanes.get(type)!;

  it('should bind each lane to the route it shadows, with the route access of its decorators', () => {
    const fetchLane = laneOfRoute({ method: 'GET', url: '/api/v2/example/fetch', config: configOf('fetch') }, instanceOf);
    expect(fetchLane).toBe(lanes.get(RecordingLane));
    expect({ method: fetchLane?.method, url: fetchLane?.url, access: fetchLane?.access }).toEqual({
      method: 'GET',
      url: '/api/v2/example/fetch',
      access: { publishableKeyAllowed: true, roles: ['publisher'] },
    });
    const adminLane = laneOfRoute({ method: ['POST'], url: '/api/v2/example/rebuild', config: configOf('rebuild') }, instanceOf);
    expect({ method: adminLane?.method, url: adminLane?.url, access: adminLane?.access }).toEqual({
      method: 'POST',
      url: '/api/v2/example/rebuild',
      access: { publishableKeyAllowed: false, roles: ['admin'] },
    });
  });

  it('should leave routes without a lane, and the automatic HEAD twin of a GET route, to their handlers', () => {
    expect(laneOfRoute({ method: 'GET', url: '/api/v2/example/plain', config: configOf('plain') }, instanceOf)).toBeUndefined();
    expect(laneOfRoute({ method: 'HEAD', url: '/api/v2/example/fetch', config: configOf('fetch') }, instanceOf)).toBeUndefined();
    expect(lanes.get(RecordingLane)?.method).toBe('GET');
  });

  it('should refuse at start a lane declared on two routes', () => {
    expect(() => laneOfRoute({ method: 'POST', url: '/api/v2/example/other', config: configOf('fetch') }, instanceOf)).toThrow(
      'RecordingLane already shadows GET /api/v2/example/fetch; it cannot also shadow POST /api/v2/example/other',
    );
  });
});
