import type { EnvReader } from '../config/env-reader';

/** The forecast's sample of ad requests (docs/CONTRACT.md "Forecast"). */
export interface ForecastConfig {
  /** Share of answered ad requests whose context is kept for the forecast (0: none, 1: every one). */
  forecastSampleRate: number;
  /** Most requests one process samples per UTC day, whatever the rate: the bound on the sample's disk use. */
  forecastSampleMaxPerDay: number;
}

export const FORECAST_CONFIG = Symbol('FORECAST_CONFIG');

export function readForecastConfig(env: EnvReader): ForecastConfig {
  return {
    forecastSampleRate: readRate(env),
    forecastSampleMaxPerDay: env.integer('FORECAST_SAMPLE_MAX_PER_DAY', 200_000, 0, 10_000_000),
  };
}

function readRate(env: EnvReader): number {
  const raw = env.read('FORECAST_SAMPLE_RATE');
  if (raw === undefined) return 0.01;
  const rate = Number(raw);
  if (raw.trim() !== '' && Number.isFinite(rate) && rate >= 0 && rate <= 1) return rate;
  env.problem(`FORECAST_SAMPLE_RATE must be a number from 0 to 1 (got "${raw}")`);
  return 0.01;
}
