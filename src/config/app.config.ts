import { isIP } from 'node:net';
import { DEFAULT_DAYS_AHEAD } from '../database/day-partitions';
import { LEASE_IDLE_MS } from '../serving/state/budget-leases';

export type AppEnv = 'production' | 'test';

export interface DatabaseTarget {
  type: 'sqlite' | 'mysql';
  /** sqlite: file path; mysql: the connection URL */
  location: string;
}

/** Every setting of the service, read from the environment once and validated at start. */
export interface AppConfig {
  port: number;
  host: string;
  appEnv: AppEnv;
  database: DatabaseTarget;
  runMigrations: boolean;
  /**
   * The Redis in use, or null (embedded profile). With REDIS_CLUSTER_NODES it is the first seed's URL: the checks
   * "is Redis in use" read it, while connections are made through src/redis/redis.module.ts (redisConnection).
   */
  redisUrl: string | null;
  /** Redis Cluster seed nodes (REDIS_CLUSTER_NODES, taking precedence over REDIS_URL); null: one Redis server. */
  redisClusterNodes: RedisNode[] | null;
  redisPrefix: string;
  adminApiKey: string | null;
  testApiKey: string | null;
  trustProxy: boolean | number | string[];
  bodyLimitBytes: number;
  rateLimitPerSecond: number;
  /** Whole-request receive deadline (slow clients get 408), handler deadline (503), longest query string (414). */
  requestTimeoutMs: number;
  handlerTimeoutMs: number;
  maxQueryBytes: number;
  keyCacheTtlMs: number;
  /**
   * Requests with a missing or unknown key, per client IP and second (429 above it); unknown keys remembered so
   * repeats skip the database (a bounded LRU, apart from the valid keys' cache).
   */
  unknownKeyRateLimitPerSecond: number;
  unknownKeyCacheMax: number;
  /** Profiles each API process keeps in memory (MySQL + Redis profile; 0: read Redis every time), and for how long. */
  profileCacheMax: number;
  profileCacheTtlMs: number;
  campaignReview: boolean;
  publisherShare: number;
  /** A click sooner than this after its impression is invalid traffic (docs/TRUST_AND_SAFETY.md). */
  minClickDelayMs: number;
  indexRefreshMs: number;
  statsFlushMs: number;
  /**
   * Life of a serving process's lease-holder heartbeat (MySQL + Redis profile): once a killed process's heartbeat
   * has lapsed this long, the other processes give its unused budget leases back to the counters.
   */
  leaseHolderTtlMs: number;
  /**
   * MySQL + Redis: how long a process keeps a budget lease nobody bills from before it goes back to the counters
   * (a scarce one at most 5 s). Longer keeps leases through a lull in traffic; shorter hands idle budget back sooner.
   */
  leaseIdleMs: number;
  corsOrigins: string[] | '*';
  logLevel: string;
  /** `text`: short lines for a person at a terminal (the default); `json`: one JSON object per line, for log collectors. */
  logFormat: LogFormat;
  /** A bearer token that may read /metrics besides an admin key: what a Prometheus scraper is given (docs/OPERATIONS.md). */
  metricsToken: string | null;
  /** A conversion is credited to the user's latest click on the advertiser's campaigns within this many days. */
  attributionDays: number;
  /**
   * Raw event rows (clicks, conversions and custom events, exchange clicks and conversions, verification calls) are
   * removed once older than this many whole UTC days; hourly stats and counters are kept forever (docs/SCALING.md).
   */
  eventRetentionDays: number;
  /** Day partitions of the event tables made ahead of time (MySQL). */
  eventPartitionDaysAhead: number;
  /** Verification calls (docs/CONTRACT.md §7): delay after the click, timeout, tries, first retry delay, private targets. */
  verifyDelayMs: number;
  verifyTimeoutMs: number;
  verifyAttempts: number;
  verifyBackoffMs: number;
  verificationAllowPrivate: boolean;
  /** Exchange partners whose ledger balance is below minus this many clicks are far in debt (shown less). */
  exchangeDebtLimit: number;
  /** This process processes queue jobs (false: it only adds them; `npm run start:worker` processes). */
  queueWorkers: boolean;
  /** Profile batch jobs (docs/CONTRACT.md §8): tries in all, first retry delay (doubling), records per upsert statement. */
  profileBatchAttempts: number;
  profileBatchBackoffMs: number;
  profileChunkSize: number;
  /** Largest profile CSV upload, in bytes (it is streamed, never held whole). */
  profileCsvMaxBytes: number;
  /** Most impressions one (ad block, user) pair is served within any hour, across campaigns; 0: no cap. */
  userImpressionsPerHour: number;
}

export type LogFormat = 'text' | 'json';

export interface RedisNode {
  host: string;
  port: number;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const DEFAULT_SQLITE_FILE = './data/adnet.sqlite';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

/** Parses and validates the environment; throws ConfigError naming every bad variable. */
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

export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };

  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  const secret = (name: string): string | null => {
    const raw = read(name);
    if (raw === undefined) return null;
    if (raw.length < 16) {
      problems.push(`${name} must be at least 16 characters long`);
      return null;
    }
    return raw;
  };

  const appEnvRaw = read('APP_ENV') ?? 'production';
  let appEnv: AppEnv = 'production';
  if (appEnvRaw === 'production' || appEnvRaw === 'test') appEnv = appEnvRaw;
  else problems.push(`APP_ENV must be production or test (got "${appEnvRaw}")`);

  const database = parseDatabaseUrl(read('DATABASE_URL'), problems);

  const redisClusterNodes = parseClusterNodes(read('REDIS_CLUSTER_NODES'), problems);
  let redisUrl = read('REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) {
    problems.push(`REDIS_URL must be a redis:// or rediss:// URL`);
  }
  if (redisClusterNodes !== null) redisUrl = `redis://${redisClusterNodes[0].host}:${redisClusterNodes[0].port}`;
  const redisPrefix = read('REDIS_PREFIX') ?? 'adnet:';
  // A brace in the prefix would become the keys' hash tag on a cluster (Redis hashes the first {...} of a key), and
  // the per-user, per-campaign and per-holder tags of the serving state would no longer keep their keys together.
  if (/[{}]/.test(redisPrefix)) problems.push(`REDIS_PREFIX must not contain { or } (got "${redisPrefix}")`);

  const trustProxy = parseTrustProxy(read('TRUST_PROXY'), problems);

  const shareRaw = read('PUBLISHER_SHARE');
  let publisherShare = 0.7;
  if (shareRaw !== undefined) {
    const share = Number(shareRaw);
    if (!Number.isFinite(share) || share < 0 || share > 1) {
      problems.push(`PUBLISHER_SHARE must be a number from 0 to 1 (got "${shareRaw}")`);
    } else publisherShare = share;
  }

  const corsRaw = read('CORS_ORIGINS') ?? '*';
  const corsOrigins: string[] | '*' =
    corsRaw === '*'
      ? '*'
      : corsRaw
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean);
  if (corsOrigins !== '*') {
    for (const origin of corsOrigins) {
      if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
        problems.push(`CORS_ORIGINS entries must be origins like https://app.example.com (got "${origin}")`);
      }
    }
  }

  const logLevel = read('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }

  const logFormatRaw = read('LOG_FORMAT') ?? 'text';
  let logFormat: LogFormat = 'text';
  if (logFormatRaw === 'text' || logFormatRaw === 'json') logFormat = logFormatRaw;
  else problems.push(`LOG_FORMAT must be text or json (got "${logFormatRaw}")`);

  const config: AppConfig = {
    port: integer('PORT', 3000, 0, 65535),
    host: read('HOST') ?? '0.0.0.0',
    appEnv,
    database,
    runMigrations: boolean('DB_MIGRATE', true),
    redisUrl,
    redisClusterNodes,
    redisPrefix,
    adminApiKey: secret('ADMIN_API_KEY'),
    testApiKey: secret('TEST_API_KEY'),
    trustProxy,
    bodyLimitBytes: integer('BODY_LIMIT', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    rateLimitPerSecond: integer('RATE_LIMIT_PER_SECOND', 2000, 0, 1_000_000),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 300_000, 100, 3_600_000),
    handlerTimeoutMs: integer('HANDLER_TIMEOUT_MS', 15_000, 0, 3_600_000),
    maxQueryBytes: integer('MAX_QUERY_BYTES', 4096, 256, 65_536),
    keyCacheTtlMs: integer('KEY_CACHE_TTL_MS', 10_000, 0, 3_600_000),
    // UNKNOWN_KEY_RATE_LIMIT_PER_SECOND=50   requests without a valid key per client IP and second (0: off)
    unknownKeyRateLimitPerSecond: integer('UNKNOWN_KEY_RATE_LIMIT_PER_SECOND', 50, 0, 1_000_000),
    // UNKNOWN_KEY_CACHE_MAX=10000            unknown keys remembered per process (LRU; valid keys are kept apart)
    unknownKeyCacheMax: integer('UNKNOWN_KEY_CACHE_MAX', 10_000, 0, 10_000_000),
    profileCacheMax: integer('PROFILE_CACHE_MAX', 200_000, 0, 10_000_000),
    profileCacheTtlMs: integer('PROFILE_CACHE_TTL_MS', 60_000, 0, 3_600_000),
    campaignReview: boolean('CAMPAIGN_REVIEW', false),
    publisherShare,
    minClickDelayMs: integer('MIN_CLICK_DELAY_MS', 300, 0, 60_000),
    indexRefreshMs: integer('INDEX_REFRESH_MS', 10_000, 100, 3_600_000),
    statsFlushMs: integer('STATS_FLUSH_MS', 1000, 10, 60_000),
    leaseHolderTtlMs: integer('LEASE_HOLDER_TTL_MS', 30_000, 3_000, 600_000),
    leaseIdleMs: integer('LEASE_IDLE_MS', LEASE_IDLE_MS, 1_000, 600_000),
    corsOrigins,
    logLevel,
    logFormat,
    metricsToken: secret('METRICS_TOKEN'),
    attributionDays: integer('ATTRIBUTION_DAYS', 7, 1, 90),
    eventRetentionDays: integer('EVENT_RETENTION_DAYS', 90, 2, 36_500),
    eventPartitionDaysAhead: integer('EVENT_PARTITION_DAYS_AHEAD', DEFAULT_DAYS_AHEAD, 1, 365),
    verifyDelayMs: integer('VERIFY_DELAY_MS', 60_000, 0, 86_400_000),
    verifyTimeoutMs: integer('VERIFY_TIMEOUT_MS', 5000, 100, 60_000),
    verifyAttempts: integer('VERIFY_ATTEMPTS', 5, 1, 20),
    verifyBackoffMs: integer('VERIFY_BACKOFF_MS', 10_000, 10, 3_600_000),
    verificationAllowPrivate: boolean('VERIFICATION_ALLOW_PRIVATE', false),
    exchangeDebtLimit: integer('EXCHANGE_DEBT_LIMIT', 100, 0, 1_000_000_000),
    queueWorkers: boolean('QUEUE_WORKERS', true),
    profileBatchAttempts: integer('PROFILE_BATCH_ATTEMPTS', 5, 1, 50),
    profileBatchBackoffMs: integer('PROFILE_BATCH_BACKOFF_MS', 1000, 10, 3_600_000),
    profileChunkSize: integer('PROFILE_CHUNK_SIZE', 1000, 1, 2500),
    profileCsvMaxBytes: integer('PROFILE_CSV_MAX_BYTES', 256 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
    userImpressionsPerHour: integer('USER_IMPRESSIONS_PER_HOUR', 60, 0, 100_000),
  };
  // Attribution reads the clicks of the window back: they must still be there.
  if (config.eventRetentionDays <= config.attributionDays) {
    problems.push(`EVENT_RETENTION_DAYS (${config.eventRetentionDays}) must be more than ATTRIBUTION_DAYS (${config.attributionDays})`);
  }
  if (!config.queueWorkers && !redisUrl) {
    problems.push('QUEUE_WORKERS=false needs REDIS_URL: without Redis the queues are in process, and no other process could run their jobs');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** REDIS_CLUSTER_NODES: host:port seed nodes, comma-separated (the client learns the rest of the cluster from them). */
function parseClusterNodes(raw: string | undefined, problems: string[]): RedisNode[] | null {
  if (raw === undefined) return null;
  const nodes: RedisNode[] = [];
  for (const seed of raw.split(',').map((part) => part.trim())) {
    const match = /^([^\s:]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(seed);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) {
      problems.push(`REDIS_CLUSTER_NODES must be host:port seeds separated by commas (got "${seed}")`);
      return null;
    }
    nodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port: Number(match[2]) });
  }
  return nodes;
}

function parseDatabaseUrl(raw: string | undefined, problems: string[]): DatabaseTarget {
  if (raw === undefined) return { type: 'sqlite', location: DEFAULT_SQLITE_FILE };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') problems.push('DATABASE_URL sqlite:<path> needs a file path');
    return { type: 'sqlite', location: file || DEFAULT_SQLITE_FILE };
  }
  if (/^(mysql|mariadb):\/\/[^\s]+$/.test(raw)) {
    try {
      const url = new URL(raw.replace(/^mariadb:/, 'mysql:'));
      if (url.pathname.length <= 1) problems.push('DATABASE_URL must name a database, e.g. mysql://root@127.0.0.1:3306/adnet');
      return { type: 'mysql', location: url.toString() };
    } catch {
      problems.push('DATABASE_URL is not a valid URL');
    }
  } else {
    problems.push('DATABASE_URL must be sqlite:<path> or mysql://user:pass@host:port/database');
  }
  return { type: 'sqlite', location: DEFAULT_SQLITE_FILE };
}

function parseTrustProxy(raw: string | undefined, problems: string[]): boolean | number | string[] {
  if (raw === undefined || /^(false|0)$/i.test(raw)) return false;
  if (/^true$/i.test(raw)) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address);
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (family === 0 || !bitsOk) {
      problems.push(`TRUST_PROXY must be true, false, a hop count or a list of IPs/CIDRs (bad entry "${entry}")`);
    }
  }
  return entries;
}
