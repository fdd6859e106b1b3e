import { LoggerService } from '@nestjs/common';
import { Logger } from 'pino';

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
