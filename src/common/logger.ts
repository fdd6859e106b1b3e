import { LoggerService } from '@nestjs/common';
import type { FastifyBaseLogger } from 'fastify';
import pino, { DestinationStream, Logger } from 'pino';

/** The `service` field of every log line. */
const SERVICE_NAME = 'adnet';

/** Structured JSON logs; keys and secrets are censored wherever they appear in a logged object. */
export function createPinoLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: SERVICE_NAME, pid: process.pid },
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', '*.apiKey', 'webhookSecret', '*.webhookSecret', 'password', '*.password'],
      censor: '[redacted]',
    },
  };
  return pino(options, destination ?? bufferedStdout());
}

/**
 * The access log: one line per answered request, the same JSON pino writes (`level`, `time`, `service`, `pid`,
 * `reqId`, `method`, `path`, `status`, `ms`, `msg: "request"`), built by hand and written to the logger's own
 * stream. Through pino it cost the ad route about a seventh of its throughput (serializers, redaction of fields
 * this line never has); the line holds no secret (the query string is left out).
 */
export function accessLogWriter(logger: Logger): (reqId: string, method: string, path: string, status: number, ms: number) => void {
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  const bindings = `"service":${JSON.stringify(SERVICE_NAME)},"pid":${process.pid}`;
  return (reqId, method, path, status, ms) => {
    if (!logger.isLevelEnabled('info')) return;
    stream.write(
      `{"level":30,"time":${Date.now()},${bindings},"reqId":${JSON.stringify(reqId)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`,
    );
  };
}

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

/** How long a log line may wait in the buffer on a quiet server. */
const LOG_FLUSH_MS = 200;
/** Lines are written in chunks of about this many characters. */
const LOG_CHUNK = 8192;

/**
 * Standard output through a buffer: one write per 8 KiB of lines (or LOG_FLUSH_MS) instead of a system call per
 * request line. The lines are kept in an array and joined once per chunk: sonic-boom's own buffer (`minLength`)
 * appends to one string and measures its byte length on every write, copying the whole buffer each time (5 KB of
 * garbage per request line, an eighth of the ad route's allocations). Flushed synchronously when the process exits;
 * a process killed with SIGKILL can lose the last LOG_FLUSH_MS of lines.
 */
function bufferedStdout(): DestinationStream {
  return new LineBuffer(pino.destination({ dest: 1, sync: false }));
}

class LineBuffer implements DestinationStream {
  private lines: string[] = [];
  private length = 0;

  constructor(private readonly out: ReturnType<typeof pino.destination>) {
    setInterval(() => this.flush(), LOG_FLUSH_MS).unref();
    // 'exit' is not emitted when the process ends by a signal (Nest's shutdown hooks re-raise SIGTERM after closing
    // the app): the lines of the last LOG_FLUSH_MS before that can be lost, as with pino's own buffer.
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= LOG_CHUNK) this.flush();
  }

  /** Hands the buffered lines to the stream; with a callback (pino's `flush(cb)`), calls it once they are written. */
  flush(callback?: (error?: Error) => void): void {
    if (this.lines.length > 0) {
      const chunk = this.lines.join('');
      this.lines = [];
      this.length = 0;
      this.out.write(chunk);
    }
    if (!callback) return;
    try {
      this.out.flush(callback);
    } catch (error) {
      callback(error as Error);
    }
  }

  flushSync(): void {
    this.flush();
    try {
      this.out.flushSync();
    } catch {
      // the descriptor is still opening or already closed: nothing more can be written
    }
  }
}

/** Routes Nest's own log calls into the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]) {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.write('fatal', message, rest);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, rest: unknown[]) {
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const detail = rest.length > 1 ? rest[0] : undefined;
    if (message !== null && typeof message === 'object') {
      this.pino[level]({ context, ...(message as object) }, typeof detail === 'string' ? detail : undefined);
    } else if (typeof detail === 'string' && level === 'error') {
      this.pino[level]({ context, stack: detail }, String(message));
    } else {
      this.pino[level]({ context }, String(message));
    }
  }
}
