import pino from 'pino';
import { createPinoLogger, lazyChildLogger } from './logger';

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
