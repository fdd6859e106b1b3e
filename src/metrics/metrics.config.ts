import type { EnvReader } from '../config/env-reader';

export interface MetricsConfig {
  /** A bearer token that may read /metrics besides an admin key: what a Prometheus scraper is given (docs/OPERATIONS.md). */
  metricsToken: string | null;
}

export const METRICS_CONFIG = Symbol('METRICS_CONFIG');

export function readMetricsConfig(env: EnvReader): MetricsConfig {
  return { metricsToken: env.secret('METRICS_TOKEN') };
}
