import { BeforeApplicationShutdown, Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../accounts/auth.decorators';
import { REDIS, RedisClient } from '../redis/redis.module';
import { REDIS_DEADLINE, RedisDeadline } from '../redis/redis-deadline';
import { HealthRepository } from './health.repository';

type CheckState = 'up' | 'down' | 'not configured';

export class HealthDto {
  @ApiProperty({ enum: ['ok'], description: 'Always `ok`: the process answers (liveness).' })
  status: 'ok';

  @ApiProperty({ enum: ['up', 'down'] })
  database: CheckState;

  @ApiProperty({ enum: ['up', 'down', 'not configured'] })
  redis: CheckState;
}

export class ReadinessDto {
  @ApiProperty({ description: 'This process can serve now: Redis answers (when configured) and it is not shutting down.' })
  ready: boolean;

  @ApiProperty({ enum: ['up', 'down'], description: 'Reported, not required: ads are served without the database (docs/OPERATIONS.md, Faults).' })
  database: CheckState;

  @ApiProperty({ enum: ['up', 'down', 'not configured'] })
  redis: CheckState;

  @ApiProperty({ description: 'The process is shutting down (SIGTERM): it finishes what it has and takes nothing new.' })
  closing: boolean;
}

/** A dependency's check waits at most this: past it, the dependency is reported down. */
const CHECK_TIMEOUT_MS = 500;

/**
 * `/health` is liveness: it answers 200 as long as the process answers (a supervisor restarts a process whose
 * `/health` does not answer; a dependency's outage is no reason to restart it), with the dependencies' states for
 * people. `/health/ready` is readiness, for a load balancer: 503 while this process cannot serve now (Redis does not
 * answer, or it is shutting down), so traffic goes to the processes that can. See docs/OPERATIONS.md, "Faults".
 */
@ApiTags('health')
@Controller('health')
export class HealthController implements BeforeApplicationShutdown {
  private closing = false;

  constructor(
    private readonly database: HealthRepository,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(REDIS_DEADLINE) private readonly redisDeadline: RedisDeadline | null,
  ) {}

  beforeApplicationShutdown(): void {
    this.closing = true;
  }

  @Get()
  @Public()
  @ApiOperation({ summary: 'Liveness: 200 while the process answers, with the states of the database and Redis' })
  @ApiOkResponse({ description: '`{code: 0, message: "success", data: {status: "ok", database, redis}}`' })
  async health() {
    const { database, redis } = await this.dependencies();
    const data: HealthDto = { status: 'ok', database, redis };
    return { code: 0, message: 'success', data };
  }

  @Get('ready')
  @Public()
  @ApiOperation({ summary: 'Readiness: whether this process can serve now (for a load balancer)' })
  @ApiOkResponse({ description: '`{code: 0, message: "success", data: {ready: true, database, redis, closing: false}}`' })
  @ApiServiceUnavailableResponse({ description: '`{code: 503, message: "not ready: …", data: {ready: false, database, redis, closing}}`' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const { database, redis } = await this.dependencies();
    const ready = redis !== 'down' && !this.closing;
    const data: ReadinessDto = { ready, database, redis, closing: this.closing };
    if (ready) return { code: 0, message: 'success', data };
    reply.status(503);
    return { code: 503, message: `not ready: ${this.closing ? 'shutting down' : 'redis down'}`, data };
  }

  private async dependencies(): Promise<{ database: CheckState; redis: CheckState }> {
    const [database, redis] = await Promise.all([check(() => this.database.ping(), CHECK_TIMEOUT_MS), this.redisState()]);
    return { database, redis };
  }

  /** Redis is down while the requests' breaker is open (they are answered without it) or it misses the deadline. */
  private async redisState(): Promise<CheckState> {
    if (!this.redis) return 'not configured';
    if (this.redisDeadline && !this.redisDeadline.available) return 'down';
    return check(() => this.redis!.ping(), this.redisDeadline?.ms ?? CHECK_TIMEOUT_MS);
  }
}

async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // after the replies received meanwhile are read (see afterDeadline in src/redis/redis-deadline.ts)
    timer = setTimeout(() => setImmediate(() => reject(new Error('timeout'))), timeoutMs);
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
