import { LoggerService } from '@nestjs/common';
import type { FastifyBaseLogger } from 'fastify';
import pino, { DestinationStream, Logger } from 'pino';
import type { LogFormat } from './runtime.config';

/** The `service` field of every log line. */
const SERVICE_NAME = 'adnet';

/**
 * Structured logs; keys and secrets are censored wherever they appear in a logged object. `json`: one JSON object per
 * line, for log collectors; `text`: the same lines made short and readable for a person at a terminal (see TextLines).
 */
export function createPinoLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: SERVICE_NAME, pid: process.pid },
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', '*.apiKey', 'webhookSecret', '*.webhookSecret', 'password', '*.password'],
      censor: '[redacted]',
    },
  };
  const out = destination ?? bufferedStdout();
  return pino(options, format === 'text' ? new TextLines(out) : out);
}

/**
 * The access log: one line per answered request, the same JSON pino writes (`level`, `time`, `service`, `pid`,
 * `reqId`, `method`, `path`, `status`, `ms`, `msg: "request"`), built by hand and written to the logger's own
 * stream. Through pino it cost the ad route about a seventh of its throughput (serializers, redaction of fields
 * this line never has); the line holds no secret (the query string is left out).
 */
export function accessLogWriter(logger: Logger): (reqId: string, method: string, path: string, status: number, ms: number) => void {
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  if (stream instanceof TextLines) {
    return (reqId, method, path, status, ms) => {
      if (logger.isLevelEnabled('info')) stream.writeText(`${clockTime(Date.now())} ${method} ${path} ${status} ${ms} ms  req ${reqId}\n`);
    };
  }
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
/**
 * Lines are written in chunks of about this many characters. Each write is handed to libuv's thread pool, and what
 * one costs the process is mostly per write, not per byte, so larger chunks cost each request less
 * (`node bench/probes/log-writes.js`, docs/PERFORMANCE.md#the-access-log-and-the-request-histogram).
 */
const LOG_CHUNK = 65536;

/**
 * Standard output through a buffer: one write per 64 KiB of lines (or LOG_FLUSH_MS) instead of a system call per
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

/**
 * Nest's own start-up chatter: a line per module, per controller and per route (about a hundred). Written at debug:
 * at info the start-up says what a person needs in a few lines (see main.ts).
 */
const NEST_START_UP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Routes Nest's own log calls into the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]) {
    const context = rest[rest.length - 1];
    this.write(typeof context === 'string' && NEST_START_UP_CONTEXTS.has(context) ? 'debug' : 'info', message, rest);
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

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that the text line shows in its own place. */
const SHOWN_APART = new Set(['level', 'time', 'service', 'pid', 'hostname', 'msg', 'context', 'err']);

let clockSecond = -1;
let clockText = '';

/** `HH:MM:SS` in UTC, as every log line's time (the JSON lines carry the full timestamp); made once a second. */
function clockTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== clockSecond) {
    clockSecond = second;
    clockText = new Date(ms).toISOString().slice(11, 19);
  }
  return clockText;
}

/**
 * LOG_FORMAT=text: pino's JSON lines rewritten for a person, `12:00:01 WARN  [Context] message key=value`, an error's
 * stack below it. Only the rare lines are parsed here: the request lines, one per request, are written as text
 * directly (accessLogWriter).
 */
export class TextLines implements DestinationStream {
  constructor(private readonly out: DestinationStream) {}

  write(line: string): void {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.out.write(line);
      return;
    }
    this.out.write(formatTextLine(entry));
  }

  writeText(text: string): void {
    this.out.write(text);
  }

  flush(callback?: (error?: Error) => void): void {
    const out = this.out as DestinationStream & { flush?: (callback?: (error?: Error) => void) => void };
    if (out.flush) out.flush(callback);
    else callback?.();
  }
}

/** One log entry as a text line (see TextLines). */
export function formatTextLine(entry: Record<string, unknown>): string {
  const level = (LEVEL_NAMES[entry.level as number] ?? String(entry.level)).padEnd(5);
  const context = typeof entry.context === 'string' ? `[${entry.context}] ` : '';
  const fields = Object.entries(entry)
    .filter(([key, value]) => !SHOWN_APART.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`);
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const message = [entry.msg, ...fields].filter((part) => part !== undefined && part !== '').join('  ');
  const detail = err ? `\n${indent(err.stack ?? err.message ?? JSON.stringify(err))}` : '';
  return `${clockTime(typeof entry.time === 'number' ? entry.time : Date.now())} ${level} ${context}${message}${detail}\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
