import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

/**
 * Hands `text/csv` bodies to the route as the raw request stream, so a large file is parsed as it arrives and
 * never held whole; the importer enforces PROFILE_CSV_MAX_BYTES itself. Absent in the worker (no HTTP).
 */
@Injectable()
export class CsvContentType implements OnModuleInit {
  constructor(private readonly host: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify || typeof fastify.addContentTypeParser !== 'function' || fastify.hasContentTypeParser('text/csv')) return;
    fastify.addContentTypeParser('text/csv', (_request, payload, done) => done(null, payload));
  }
}
