import type { FastifyBaseLogger } from 'fastify';
import pino, { Logger } from 'pino';

type LogMethod = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/**
 * Fastify's `childLoggerFactory`: the per-request logger (`request.log`, bound to `reqId`) is created only when
 * something logs through it. Creating a pino child for every request (bindings serialized and redacted) was about
 * 3 % of the ad route's allocations, and almost no request ever logs through it.
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: pino.Bindings, options: pino.ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger;
}

class LazyChildLogger {
  private real: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}

  private get logger(): Logger {
    return (this.real ??= this.parent.child(this.bindings, this.options));
  }

  /** Who decides what is written: the child once it exists (or when the route set a level of its own), else the parent. */
  private get judge(): Logger {
    return this.real ?? (this.options.level === undefined ? this.parent : this.logger);
  }

  get level(): string {
    return this.judge.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.judge.isLevelEnabled(level);
  }

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.logger.child(bindings, options);
  }

  trace(...args: unknown[]): void {
    this.call('trace', args);
  }
  debug(...args: unknown[]): void {
    this.call('debug', args);
  }
  info(...args: unknown[]): void {
    this.call('info', args);
  }
  warn(...args: unknown[]): void {
    this.call('warn', args);
  }
  error(...args: unknown[]): void {
    this.call('error', args);
  }
  fatal(...args: unknown[]): void {
    this.call('fatal', args);
  }
  silent(): void {}

  private call(method: LogMethod, args: unknown[]): void {
    if (!this.judge.isLevelEnabled(method)) return;
    (this.logger[method] as (...values: unknown[]) => void)(...args);
  }
}
