import type { EnvReader } from '../config/env-reader';

export type AppEnv = 'production' | 'test';
export type LogFormat = 'text' | 'json';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** APP_ENV and the logs: what every process of the service reads before anything else. */
export interface RuntimeConfig {
  appEnv: AppEnv;
  logLevel: string;
  /** `text`: short lines for a person at a terminal (the default); `json`: one JSON object per line, for log collectors. */
  logFormat: LogFormat;
}

export const RUNTIME_CONFIG = Symbol('RUNTIME_CONFIG');

export function readRuntimeConfig(env: EnvReader): RuntimeConfig {
  return {
    appEnv: env.oneOf('APP_ENV', ['production', 'test'], 'production', 'production or test'),
    logLevel: env.oneOf('LOG_LEVEL', LOG_LEVELS, 'info', `one of ${LOG_LEVELS.join(', ')}`),
    logFormat: env.oneOf('LOG_FORMAT', ['text', 'json'], 'text', 'text or json'),
  };
}
