import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerError } from './edge/envelope-writer';

/** Every failure inside Nest becomes the `{code, message, data}` envelope, written by the edge's envelope writer. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerError(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
