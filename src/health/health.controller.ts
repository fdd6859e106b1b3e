import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../accounts/auth.decorators';
import { REDIS, RedisClient } from '../redis/redis.module';
import { HealthRepository } from './health.repository';

type CheckState = 'up' | 'down' | 'not configured';

export class HealthDto {
  @ApiProperty({ enum: ['ok', 'unhealthy'] })
  status: 'ok' | 'unhealthy';

  @ApiProperty({ enum: ['up', 'down'] })
  database: CheckState;

  @ApiProperty({ enum: ['up', 'down', 'not configured'] })
  redis: CheckState;
}

const CHECK_TIMEOUT_MS = 2000;

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: HealthRepository,
    @Inject(REDIS) private readonly redis: RedisClient | null,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Liveness and dependencies: the database, and Redis when configured' })
  @ApiOkResponse({ description: '`{code: 0, message: "success", data: {status: "ok", database, redis}}`' })
  @ApiServiceUnavailableResponse({ description: '`{code: 503, message: "unhealthy: …", data: {status, database, redis}}`' })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [database, redis] = await Promise.all([
      check(() => this.database.ping()),
      this.redis ? check(() => this.redis!.ping()) : Promise.resolve<CheckState>('not configured'),
    ]);
    const healthy = database === 'up' && redis !== 'down';
    const data: HealthDto = { status: healthy ? 'ok' : 'unhealthy', database, redis };
    if (healthy) return { code: 0, message: 'success', data };
    reply.status(503);
    const down = [database === 'down' && 'database', redis === 'down' && 'redis'].filter(Boolean).join(', ');
    return { code: 503, message: `unhealthy: ${down} down`, data };
  }
}

async function check(probe: () => Promise<unknown>): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
