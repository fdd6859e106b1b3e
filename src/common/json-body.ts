import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import { ValidationError } from './errors';

/**
 * A body that was not valid JSON. The parser hands it on instead of failing, so the key and role
 * checks answer first (docs/CONTRACT.md §11: 401 -> 403 -> 400) and the validation pipe then answers 400.
 */
export class MalformedJsonBody {
  constructor(readonly reason: string) {}
}

export function registerJsonParser(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      // Refuses __proto__ / constructor.prototype keys: no prototype pollution through a body.
      done(null, secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(null, new MalformedJsonBody(error instanceof Error ? error.message : 'invalid JSON'));
    }
  });
}

/**
 * Routes without a body DTO never meet the validation pipe, so without this a malformed body would be ignored and the
 * request would act (rotate a secret, revoke a key). Registered after the key, role and rate guards.
 */
@Injectable()
export class MalformedJsonGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.switchToHttp().getRequest<{ body?: unknown }>().body instanceof MalformedJsonBody) {
      throw ValidationError.of('body', 'is not valid JSON');
    }
    return true;
  }
}
