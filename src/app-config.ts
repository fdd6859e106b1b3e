import { DynamicModule, Global, Module } from '@nestjs/common';
import { ACCOUNTS_CONFIG, AccountsConfig, readAccountsConfig } from './accounts/accounts.config';
import { CAMPAIGNS_CONFIG, CampaignsConfig, readCampaignsConfig } from './campaigns/campaigns.config';
import { EDGE_CONFIG, EdgeConfig, readEdgeConfig } from './common/edge/edge.config';
import { readRuntimeConfig, RUNTIME_CONFIG, RuntimeConfig } from './common/runtime.config';
import { ConfigError, Env, EnvReader } from './config/env-reader';
import { CONVERSIONS_CONFIG, ConversionsConfig, readConversionsConfig } from './conversions/conversions.config';
import { DATABASE_CONFIG, DatabaseConfig, readDatabaseConfig } from './database/database.config';
import { EXCHANGE_CONFIG, ExchangeConfig, readExchangeConfig } from './exchange/exchange.config';
import { FORECAST_CONFIG, ForecastConfig, readForecastConfig } from './forecast/forecast.config';
import { METRICS_CONFIG, MetricsConfig, readMetricsConfig } from './metrics/metrics.config';
import { PROFILES_CONFIG, ProfilesConfig, readProfilesConfig } from './profiles/profiles.config';
import { QUEUE_CONFIG, QueueConfig, readQueueConfig } from './queue/queue.config';
import { readRedisConfig, REDIS_CONFIG, RedisConfig } from './redis/redis.config';
import { readRetentionConfig, RETENTION_CONFIG, RetentionConfig } from './retention/retention.config';
import { readServingConfig, SERVING_CONFIG, ServingConfig } from './serving/serving.config';
import { readStatsConfig, STATS_CONFIG, StatsConfig } from './stats/stats.config';
import { readTrustConfig, TRUST_CONFIG, TrustConfig } from './trust/trust.config';
import { readVerificationConfig, VERIFICATION_CONFIG, VerificationConfig } from './verification/verification.config';
import { readRewardsConfig, REWARDS_CONFIG, RewardsConfig } from './rewards/rewards.config';

/**
 * Every setting of the service: the features' slices side by side, read from the environment once and validated at
 * start. A provider injects only the slices it reads (`@Inject(SERVING_CONFIG) config: ServingConfig`); the entry
 * points (main.ts, worker.ts, bootstrap.ts) get the whole of it. Each slice's variables are read and checked by its
 * feature's reader; what spans features is checked here.
 */
export type AppConfig = RuntimeConfig &
  EdgeConfig &
  DatabaseConfig &
  RedisConfig &
  AccountsConfig &
  CampaignsConfig &
  ServingConfig &
  TrustConfig &
  StatsConfig &
  ConversionsConfig &
  RetentionConfig &
  VerificationConfig &
  ExchangeConfig &
  QueueConfig &
  MetricsConfig &
  ProfilesConfig &
  ForecastConfig &
  RewardsConfig;

/** The injection token of every slice; each is provided with the one validated AppConfig. */
const SLICE_TOKENS = [
  RUNTIME_CONFIG,
  EDGE_CONFIG,
  DATABASE_CONFIG,
  REDIS_CONFIG,
  ACCOUNTS_CONFIG,
  CAMPAIGNS_CONFIG,
  SERVING_CONFIG,
  TRUST_CONFIG,
  STATS_CONFIG,
  CONVERSIONS_CONFIG,
  RETENTION_CONFIG,
  VERIFICATION_CONFIG,
  EXCHANGE_CONFIG,
  QUEUE_CONFIG,
  METRICS_CONFIG,
  PROFILES_CONFIG,
  FORECAST_CONFIG,
  REWARDS_CONFIG,
];

/** Parses and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env): AppConfig {
  const reader = new EnvReader(env);
  const config: AppConfig = {
    ...readRuntimeConfig(reader),
    ...readEdgeConfig(reader),
    ...readDatabaseConfig(reader),
    ...readRedisConfig(reader),
    ...readAccountsConfig(reader),
    ...readCampaignsConfig(reader),
    ...readServingConfig(reader),
    ...readTrustConfig(reader),
    ...readStatsConfig(reader),
    ...readConversionsConfig(reader),
    ...readRetentionConfig(reader),
    ...readVerificationConfig(reader),
    ...readExchangeConfig(reader),
    ...readQueueConfig(reader),
    ...readMetricsConfig(reader),
    ...readProfilesConfig(reader),
    ...readForecastConfig(reader),
    ...readRewardsConfig(reader),
  };
  // Attribution reads the clicks of the window back: they must still be there.
  if (config.eventRetentionDays <= config.attributionDays) {
    reader.problem(`EVENT_RETENTION_DAYS (${config.eventRetentionDays}) must be more than ATTRIBUTION_DAYS (${config.attributionDays})`);
  }
  if (!config.queueWorkers && !config.redisUrl) {
    reader.problem('QUEUE_WORKERS=false needs REDIS_URL: without Redis the queues are in process, and no other process could run their jobs');
  }
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}

/** loadConfig() for a process entry point: a bad setting ends the process with its message and exit code 78 (EX_CONFIG). */
export function loadConfigOrExit(env: Env = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
}

/** Provides every config slice, each under its own token, from the one validated AppConfig. */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    const providers = SLICE_TOKENS.map((token) => ({ provide: token, useValue: config }));
    return { module: AppConfigModule, providers, exports: SLICE_TOKENS };
  }
}
