import pino from 'pino';
import { accessLogWriter, createPinoLogger, formatTextLine, lazyChildLogger } from '.';

describe(lazyChildLogger.name, () => {
  const capture = () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createPinoLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { logger, lines };
  };

  it('should create the pino child only when something logs, with the bindings and redaction of a real child', () => {
    const { logger, lines } = capture();
    const child = jest.spyOn(logger, 'child');
    const requestLog = lazyChildLogger(logger, { reqId: 'r-1' }, {});
    expect(child).not.toHaveBeenCalled();
    expect(requestLog.level).toBe('info');

    requestLog.debug('not written at level info');
    expect(child).not.toHaveBeenCalled();
    requestLog.error({ apiKey: 'secret-key', detail: 1 }, 'boom');
    requestLog.info('second');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, reqId: 'r-1', apiKey: '[redacted]', detail: 1, msg: 'boom', service: 'adnet' }),
      expect.objectContaining({ level: 30, reqId: 'r-1', msg: 'second' }),
    ]);
  });

  it('should give children of its own and follow a level set on it', () => {
    const { logger, lines } = capture();
    const requestLog = lazyChildLogger(logger, { reqId: 'r-2' }, {});
    requestLog.level = 'debug';
    requestLog.debug('now written');
    requestLog.child({ step: 'x' }).warn('nested');
    expect(lines).toEqual([
      expect.objectContaining({ level: 20, reqId: 'r-2', msg: 'now written' }),
      expect.objectContaining({ level: 40, reqId: 'r-2', step: 'x', msg: 'nested' }),
    ]);
    expect(pino.levels.values[requestLog.level]).toBe(20);
  });

  it("should follow a route's own log level", () => {
    const { logger, lines } = capture();
    const requestLog = lazyChildLogger(logger, { reqId: 'r-3' }, { level: 'debug' });
    expect(requestLog.level).toBe('debug');
    requestLog.debug('written at the route level');
    expect(lines).toEqual([expect.objectContaining({ level: 20, reqId: 'r-3', msg: 'written at the route level' })]);
  });
});

describe('LOG_FORMAT=text', () => {
  it('should write short lines: time, level, context, message, fields, and the stack of an error below', () => {
    const lines: string[] = [];
    const logger = createPinoLogger('info', { write: (line: string) => void lines.push(line) }, 'text');
    logger.info({ context: 'StatsWriterService', batch: 3, apiKey: 'secret-key', note: 'two words' }, 'written');
    logger.error({ err: new Error('boom') }, 'write failed');
    accessLogWriter(logger)('req-1', 'GET', '/health', 200, 4);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO {2}\[StatsWriterService\] written {2}batch=3 {2}apiKey=\[redacted\] {2}note="two words"\n$/);
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d ERROR write failed\n {4}Error: boom\n {4,}at /);
    expect(lines[2]).toMatch(/^\d\d:\d\d:\d\d GET \/health 200 4 ms {2}req req-1\n$/);
  });

  it('should keep the JSON lines and the request line of LOG_FORMAT=json unchanged', () => {
    const lines: string[] = [];
    const logger = createPinoLogger('info', { write: (line: string) => void lines.push(line) }, 'json');
    accessLogWriter(logger)('req-2', 'POST', '/x', 201, 1);
    expect(JSON.parse(lines[0])).toEqual(
      expect.objectContaining({ level: 30, reqId: 'req-2', method: 'POST', path: '/x', status: 201, ms: 1, msg: 'request' }),
    );
  });

  it('should format an entry at 12:00:01 UTC', () => {
    expect(formatTextLine({ level: 40, time: Date.UTC(2026, 0, 1, 12, 0, 1), msg: 'slow', ms: 12 })).toBe('12:00:01 WARN  slow  ms=12\n');
  });
});
