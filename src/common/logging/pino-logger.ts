import pino, { DestinationStream, Logger } from 'pino';
import type { LogFormat } from '../runtime.config';
import { bufferedStdout } from './line-buffer';
import { SERVICE_NAME } from './service-name';
import { TextLines } from './text-lines';

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
