import { NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../envelope';
import { NotFoundError, RateLimitedError, ValidationError } from '../errors';
import { answerError, errorBodyOf, sendError, sendOk, sendOkJson } from './envelope-writer';

/** A reply that records what was sent, as Fastify's would be seen from outside. */
function recordingReply(sent = false) {
  const record = { status: 200, headers: {} as Record<string, string>, body: undefined as unknown, sends: 0 };
  const reply = {
    sent,
    code(status: number) {
      record.status = status;
      return reply;
    },
    header(name: string, value: string) {
      record.headers[name.toLowerCase()] = value;
      return reply;
    },
    send(body: unknown) {
      record.body = body;
      record.sends += 1;
      reply.sent = true;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, record };
}

const request = { id: 'r1', method: 'GET', url: '/api/v2/nowhere?x=1' } as FastifyRequest;

describe('envelope writer', () => {
  it('should write a failure as {code, message, data} with its status and JSON type', () => {
    const { reply, record } = recordingReply();
    sendError(reply, 414, 'query string longer than 10 bytes');
    expect(record).toEqual({
      status: 414,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: { code: 414, message: 'query string longer than 10 bytes', data: {} },
      sends: 1,
    });
  });

  it('should map domain, framework and unknown errors to their envelopes', () => {
    expect(errorBodyOf(ValidationError.of('limit', 'must be a number'), request)).toEqual({
      code: 400,
      message: 'limit must be a number',
      data: { errors: [{ field: 'limit', message: 'limit must be a number' }] },
    });
    expect(errorBodyOf(new NotFoundError('adBlockId', 'ad block'), request).code).toBe(404);
    expect(errorBodyOf(new NotFoundException(), request)).toEqual({ code: 404, message: 'no route GET /api/v2/nowhere', data: {} });
    expect(errorBodyOf(new ServiceUnavailableException('secret detail'), request)).toEqual({ code: 503, message: 'internal error', data: {} });
    expect(errorBodyOf({ statusCode: 413 }, request)).toEqual({ code: 413, message: 'request body too large', data: {} });
    expect(errorBodyOf(new Error('database password is hunter2'), request)).toEqual({ code: 500, message: 'internal error', data: {} });
  });

  it('should add Retry-After to a 429', () => {
    const { reply, record } = recordingReply();
    answerError(new RateLimitedError(1), request, reply);
    expect(record.status).toBe(429);
    expect(record.headers['retry-after']).toBe('1');
    expect(record.body).toEqual({ code: 429, message: 'rate limit exceeded, retry after 1 s', data: { retryAfter: 1 } });
  });

  it('should leave a request already answered (its deadline passed) as it is', () => {
    const late = recordingReply(true);
    answerError(ValidationError.of('x', 'is bad'), request, late.reply);
    sendOk(late.reply, { late: true });
    sendOkJson(late.reply, '{}');
    expect(late.record.sends).toBe(0);
  });

  it('should send pre-serialised data as the same bytes as the success envelope', () => {
    const data = { msg: '1 ads', success: true, ads: [{ adBlockId: 'b"1', title: 'é' }] };
    const { reply, record } = recordingReply();
    sendOkJson(reply, JSON.stringify(data));
    expect(record.body).toBe(JSON.stringify(ok(data)));
    expect(record.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});
