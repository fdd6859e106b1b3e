import { Controller, Get, Header, Res, UseGuards } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiSecurity, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../accounts/auth.decorators';
import { MetricsAccessGuard } from './metrics-access.guard';
import { MetricsService } from './metrics.service';

@ApiTags('health')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  // Not an API key route: the guard below takes an admin key or the METRICS_TOKEN bearer token.
  @Public()
  @UseGuards(MetricsAccessGuard)
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'Prometheus metrics: requests per route, ads served, clicks, conversions, queues, caches, leases, process',
    description: 'Needs an admin key (`x-api-key`) or, when METRICS_TOKEN is set, `Authorization: Bearer <METRICS_TOKEN>`.',
  })
  @ApiSecurity('x-api-key')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The Prometheus text format (version 0.0.4)' })
  @ApiUnauthorizedResponse({ description: 'No admin key nor metrics token, or an unknown one' })
  @ApiForbiddenResponse({ description: 'A key of an account without the admin role' })
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.type(this.metrics.contentType);
    return this.metrics.scrape();
  }
}
