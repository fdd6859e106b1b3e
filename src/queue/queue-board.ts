import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardFastifyAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accessRefusal } from '../accounts/key-access';
import { PrincipalResolver } from '../accounts/principal-resolver';
import { sendError } from '../common/edge/envelope-writer';
import type { AppConfig } from '../app-config';
import { QueueService } from './queue.service';

export const QUEUE_BOARD_PATH = '/admin/queues';
const COOKIE = 'adnet_queue_board';
const COOKIE_MAX_AGE_S = 8 * 3600;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/**
 * bull-board at /admin/queues for admins. Browsers cannot send `x-api-key`, so `?key=<admin key>` is accepted
 * once: it sets an HttpOnly, SameSite=Strict cookie (8 h, path /admin/queues) and redirects to the bare URL.
 * Only on the BullMQ profile; the embedded one answers 404 saying why.
 */
export async function mountQueueBoard(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const principals = app.get(PrincipalResolver, { strict: false });
  const queues = app.get(QueueService, { strict: false });

  await fastify.register(
    async (scope) => {
      scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        const header = request.headers['x-api-key'];
        const fromQuery = (request.query as Record<string, unknown> | undefined)?.key;
        const queryKey = typeof fromQuery === 'string' ? fromQuery : undefined;
        const rawKey = (typeof header === 'string' ? header : undefined) ?? queryKey ?? cookieValue(request.headers.cookie, COOKIE);
        if (!rawKey) return sendError(reply, 401, 'x-api-key header (or ?key= once, which sets a cookie) with an admin key is required');
        const principal = principals.malformedKeyMessage(rawKey) === null ? await principals.resolve(rawKey) : null;
        if (!principal) return sendError(reply, 401, 'x-api-key is not a valid key (unknown or revoked)');
        const refusal = accessRefusal(principal, { publishableKeyAllowed: false, roles: ['admin'] }, request.headers.origin);
        if (refusal) return sendError(reply, 403, refusal.message);
        if (queryKey !== undefined && rawKey === queryKey) {
          const secure = request.protocol === 'https' ? '; Secure' : '';
          reply.header(
            'set-cookie',
            `${COOKIE}=${encodeURIComponent(queryKey)}; Path=${QUEUE_BOARD_PATH}; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MAX_AGE_S}${secure}`,
          );
          return reply.redirect(request.url.split('?')[0]);
        }
      });

      if (!config.redisUrl) {
        const unavailable = (_request: FastifyRequest, reply: FastifyReply) =>
          sendError(reply, 404, 'the queue board needs the MySQL + Redis profile (REDIS_URL): the embedded profile runs its queues inside the API process');
        scope.get('/', unavailable);
        scope.get('/*', unavailable);
        return;
      }
      const board = new BullBoardFastifyAdapter();
      board.setBasePath(QUEUE_BOARD_PATH);
      createBullBoard({ queues: queues.bullQueues().map((queue) => new BullMQAdapter(queue, { readOnlyMode: false })), serverAdapter: board });
      await scope.register(board.registerPlugin() as never);
    },
    { prefix: QUEUE_BOARD_PATH },
  );
}
