import { loadConfig } from './app-config';
import { ConfigError } from './config/env-reader';
import { holderTimings } from './serving/state/budget-leases';

describe(loadConfig.name, () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('should default to the embedded profile on port 3000 in production', () => {
    const config = loadConfig({});
    expect(config).toEqual(
      expect.objectContaining({
        port: 3000,
        appEnv: 'production',
        database: { type: 'sqlite', location: './data/adnet.sqlite' },
        runMigrations: true,
        redisUrl: null,
        adminApiKey: null,
        trustProxy: false,
        bodyLimitBytes: 10 * 1024 * 1024,
        campaignReview: false,
        publisherShare: 0.7,
        minClickDelayMs: 300,
        corsOrigins: '*',
      }),
    );
  });

  it('should read the unknown-key limits, 50 per IP and second and 10000 remembered by default', () => {
    expect(loadConfig({})).toEqual(expect.objectContaining({ unknownKeyRateLimitPerSecond: 50, unknownKeyCacheMax: 10_000 }));
    expect(loadConfig({ UNKNOWN_KEY_RATE_LIMIT_PER_SECOND: '0', UNKNOWN_KEY_CACHE_MAX: '5' })).toEqual(
      expect.objectContaining({ unknownKeyRateLimitPerSecond: 0, unknownKeyCacheMax: 5 }),
    );
    expect(problemsOf({ UNKNOWN_KEY_RATE_LIMIT_PER_SECOND: '-1', UNKNOWN_KEY_CACHE_MAX: 'many' })).toEqual([
      'UNKNOWN_KEY_RATE_LIMIT_PER_SECOND must be an integer from 0 to 1000000 (got "-1")',
      'UNKNOWN_KEY_CACHE_MAX must be an integer from 0 to 10000000 (got "many")',
    ]);
  });

  it('should read the MySQL + Redis profile', () => {
    const config = loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/adnet', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.database).toEqual({ type: 'mysql', location: 'mysql://root@127.0.0.1:3306/adnet' });
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.sqlite' }).database).toEqual({ type: 'sqlite', location: '/tmp/x.sqlite' });
  });

  it('should read DATABASE_REPLICA_URLS as MySQL URLs beside a MySQL primary, and refuse anything else', () => {
    const primary = 'mysql://root@127.0.0.1:3306/adnet';
    expect(loadConfig({ DATABASE_URL: primary }).databaseReplicas).toEqual([]);
    expect(
      loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'mysql://ro@10.0.0.2:3306/adnet, mariadb://ro:pw@10.0.0.3/adnet' }).databaseReplicas,
    ).toEqual(['mysql://ro@10.0.0.2:3306/adnet', 'mysql://ro:pw@10.0.0.3/adnet']);
    expect(problemsOf({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'mysql://ro:secret@10.0.0.2:3306/adnet,10.0.0.3' })).toEqual([
      'DATABASE_REPLICA_URLS must be mysql://user:pass@host:port/database URLs separated by commas (got "10.0.0.3")',
    ]);
    expect(problemsOf({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'mysql://ro:secret@10.0.0.2:3306' })).toEqual([
      'DATABASE_REPLICA_URLS must be mysql://user:pass@host:port/database URLs separated by commas (got "mysql://ro:***@10.0.0.2:3306")',
    ]);
    expect(problemsOf({ DATABASE_REPLICA_URLS: 'mysql://ro@10.0.0.2:3306/adnet' })).toEqual([
      'DATABASE_REPLICA_URLS needs a MySQL DATABASE_URL (replicas are of a MySQL primary)',
    ]);
  });

  it('should read Redis Cluster seeds, taking precedence over REDIS_URL', () => {
    const config = loadConfig({ REDIS_URL: 'redis://10.0.0.9:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000, 127.0.0.1:7001,[::1]:7002' });
    expect(config.redisClusterNodes).toEqual([
      { host: '127.0.0.1', port: 7000 },
      { host: '127.0.0.1', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(config.redisUrl).toBe('redis://127.0.0.1:7000');
    expect(loadConfig({}).redisClusterNodes).toBeNull();
    expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,nohost' })).toEqual([
      'REDIS_CLUSTER_NODES must be host:port seeds separated by commas (got "nohost")',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:70000' })).toEqual([
      'REDIS_CLUSTER_NODES must be host:port seeds separated by commas (got "127.0.0.1:70000")',
    ]);
  });

  it('should refuse a REDIS_PREFIX with braces (they would become the cluster hash tag of every key)', () => {
    expect(problemsOf({ REDIS_PREFIX: '{adnet}:' })).toEqual(['REDIS_PREFIX must not contain { or } (got "{adnet}:")']);
  });

  it('should parse TRUST_PROXY as a flag, a hop count or an address list', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('should name every bad variable at once', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      APP_ENV: 'staging',
      DATABASE_URL: 'postgres://x/y',
      REDIS_URL: 'http://x',
      ADMIN_API_KEY: 'short',
      TRUST_PROXY: 'nonsense',
      BODY_LIMIT: '-5',
      PUBLISHER_SHARE: '1.5',
      CAMPAIGN_REVIEW: 'maybe',
      CORS_ORIGINS: 'example.com',
      LOG_LEVEL: 'loud',
    });
    const names = problems.map((problem) => problem.split(' ')[0]);
    expect(names).toEqual(
      expect.arrayContaining([
        'PORT',
        'APP_ENV',
        'DATABASE_URL',
        'REDIS_URL',
        'ADMIN_API_KEY',
        'TRUST_PROXY',
        'BODY_LIMIT',
        'PUBLISHER_SHARE',
        'CAMPAIGN_REVIEW',
        'CORS_ORIGINS',
        'LOG_LEVEL',
      ]),
    );
  });

  it('should require a database name in a MySQL URL', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://root@127.0.0.1:3306' })[0]).toMatch(/^DATABASE_URL must name a database/);
  });
});

describe('loadConfig: queues and profile imports', () => {
  it('should process queue jobs in the API process by default and refuse QUEUE_WORKERS=false without Redis', () => {
    expect(loadConfig({}).queueWorkers).toBe(true);
    expect(loadConfig({ QUEUE_WORKERS: 'false', REDIS_URL: 'redis://127.0.0.1:6379' }).queueWorkers).toBe(false);
    expect(() => loadConfig({ QUEUE_WORKERS: 'false' })).toThrow(/QUEUE_WORKERS=false needs REDIS_URL/);
  });

  it('should give a worker process nice 10 by default, 0–19 if set', () => {
    expect(loadConfig({}).workerNice).toBe(10);
    expect(loadConfig({ WORKER_NICE: '0' }).workerNice).toBe(0);
    expect(() => loadConfig({ WORKER_NICE: '20' })).toThrow(/WORKER_NICE must be an integer from 0 to 19/);
  });

  it('should keep raw events 90 days by default, with partitions 7 days ahead, and refuse a retention within the attribution window', () => {
    const config = loadConfig({});
    expect([config.eventRetentionDays, config.eventPartitionDaysAhead]).toEqual([90, 7]);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '400', EVENT_PARTITION_DAYS_AHEAD: '14' })).toEqual(
      expect.objectContaining({ eventRetentionDays: 400, eventPartitionDaysAhead: 14 }),
    );
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '7' })).toThrow(/EVENT_RETENTION_DAYS \(7\) must be more than ATTRIBUTION_DAYS \(7\)/);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '7', ATTRIBUTION_DAYS: '3' }).eventRetentionDays).toBe(7);
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: 'forever' })).toThrow(/EVENT_RETENTION_DAYS must be an integer/);
    expect(() => loadConfig({ EVENT_PARTITION_DAYS_AHEAD: '0' })).toThrow(/EVENT_PARTITION_DAYS_AHEAD must be an integer from 1 to 365/);
  });

  it('should read the profile batch settings within their bounds', () => {
    const config = loadConfig({});
    expect([config.profileBatchAttempts, config.profileBatchBackoffMs, config.profileChunkSize]).toEqual([5, 1000, 1000]);
    expect(() => loadConfig({ PROFILE_CHUNK_SIZE: '5000' })).toThrow(/PROFILE_CHUNK_SIZE must be an integer from 1 to 2500/);
    expect(() => loadConfig({ PROFILE_BATCH_ATTEMPTS: '0' })).toThrow(/PROFILE_BATCH_ATTEMPTS/);
  });

  it('should read the lease holder heartbeat life, billing trusted for a third of it (at least two heartbeats)', () => {
    expect(loadConfig({}).leaseHolderTtlMs).toBe(30_000);
    expect(holderTimings(loadConfig({}).leaseHolderTtlMs)).toEqual({ holderTtlMs: 30_000, holderTrustMs: 10_000 });
    expect(holderTimings(loadConfig({ LEASE_HOLDER_TTL_MS: '3000' }).leaseHolderTtlMs)).toEqual({ holderTtlMs: 3000, holderTrustMs: 2000 });
    expect(holderTimings(9000)).toEqual({ holderTtlMs: 9000, holderTrustMs: 3000 });
    expect(() => loadConfig({ LEASE_HOLDER_TTL_MS: '500' })).toThrow(/LEASE_HOLDER_TTL_MS must be an integer from 3000/);
  });

  it('should read how long an unused budget lease is kept: 5 s by default, from 1 s to 10 min', () => {
    expect(loadConfig({}).leaseIdleMs).toBe(5000);
    expect(loadConfig({ LEASE_IDLE_MS: '60000' }).leaseIdleMs).toBe(60_000);
    expect(() => loadConfig({ LEASE_IDLE_MS: '500' })).toThrow(/LEASE_IDLE_MS must be an integer from 1000 to 600000/);
  });

  it('should read the abuse limits: request and handler deadlines, longest query string', () => {
    const config = loadConfig({});
    expect([config.requestTimeoutMs, config.handlerTimeoutMs, config.maxQueryBytes]).toEqual([300_000, 15_000, 4096]);
    expect(loadConfig({ HANDLER_TIMEOUT_MS: '0' }).handlerTimeoutMs).toBe(0);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '50' })).toThrow(/REQUEST_TIMEOUT_MS must be an integer from 100/);
    expect(() => loadConfig({ MAX_QUERY_BYTES: 'lots' })).toThrow(/MAX_QUERY_BYTES/);
  });
});
