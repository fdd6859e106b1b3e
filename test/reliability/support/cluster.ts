import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';

const root = join(__dirname, '..', '..', '..');

export const ADMIN_KEY = 'reliability-admin-key-0123456789abcdef';
export const DATABASE = 'adnet';

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released for the child to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** One child process of the cluster, its output going to a log file. */
export class Proc {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitedAt: number | null = null;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exitedAt = Date.now();
        resolve({ code, signal });
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitedAt === null;
  }

  /** Sends the signal to this process (by its pid) and waits for it to exit. */
  async stop(signal: NodeJS.Signals, timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const started = Date.now();
    if (this.running) this.child.kill(signal);
    const timer = setTimeout(() => this.running && this.child.kill('SIGKILL'), timeoutMs);
    const result = await this.exited;
    clearTimeout(timer);
    return { ...result, ms: Date.now() - started };
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  tail(lines = 30): string {
    return this.log().split('\n').slice(-lines).join('\n');
  }
}

/**
 * A private MariaDB, a private Redis, API processes and queue worker processes, all started from the build, all on
 * ports of their own: the shared servers on 3306/6379 are never touched. Everything lives under one temporary
 * directory (data, sockets, logs), removed at the end unless RELIABILITY_KEEP is set.
 */
export class Cluster {
  readonly dir = join(tmpdir(), `adnet-reliability-${process.pid}-${Date.now().toString(36)}`);
  /**
   * `redisClusterBase`: instead of one Redis, a Redis Cluster of 3 masters and 3 replicas on ports base..base+5
   * (scripts/redis-cluster.sh), which the processes reach through REDIS_CLUSTER_NODES.
   */
  constructor(readonly options: { redisClusterBase?: number } = {}) {}

  readonly redisPrefix = 'rel:';
  mysqlPort = 0;
  redisPort = 0;
  mariadb: Proc | null = null;
  redis: Proc | null = null;
  readonly apis: (Proc | null)[] = [];
  apiPorts: number[] = [];
  worker: Proc | null = null;
  private readonly all: Proc[] = [];
  private starts = 0;

  get databaseUrl(): string {
    return `mysql://root@127.0.0.1:${this.mysqlPort}/${DATABASE}`;
  }

  get redisUrl(): string {
    return `redis://127.0.0.1:${this.redisPort}`;
  }

  /** The seed list of the Redis Cluster (REDIS_CLUSTER_NODES); null with one Redis. */
  get redisClusterNodes(): string | null {
    const base = this.options.redisClusterBase;
    return base === undefined ? null : [0, 1, 2, 3, 4, 5].map((i) => `127.0.0.1:${base + i}`).join(',');
  }

  /** Runs scripts/redis-cluster.sh (start, stop) for this suite's cluster. */
  private redisClusterScript(command: 'start' | 'stop'): void {
    const result = spawnSync('bash', [join(root, 'scripts', 'redis-cluster.sh'), command, String(this.options.redisClusterBase)], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (result.status !== 0) throw new Error(`redis-cluster.sh ${command} failed:\n${result.stdout}\n${result.stderr}`);
  }

  /**
   * The master serving a hash slot now, and its process id (from its pid file): `redis-cli CLUSTER NODES` on a node
   * that is up.
   */
  redisMasterOf(slot: number): { port: number; pid: number } {
    const base = this.options.redisClusterBase!;
    for (let i = 0; i < 6; i++) {
      const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(base + i), 'cluster', 'nodes'], { encoding: 'utf8', timeout: 5000 });
      if (result.status !== 0 || !result.stdout.includes('myself')) continue;
      for (const line of result.stdout.trim().split('\n')) {
        const fields = line.split(' ');
        if (!fields[2].includes('master') || fields[2].includes('fail')) continue;
        const covers = fields.slice(8).some((range) => {
          const [from, to] = range.split('-').map(Number);
          return slot >= from && slot <= (to ?? from);
        });
        if (!covers) continue;
        const port = Number(fields[1].split(':')[1].split('@')[0]);
        const pid = Number(readFileSync(join(tmpdir(), `adnet-redis-cluster-${base}`, String(port), 'redis.pid'), 'utf8').trim());
        return { port, pid };
      }
    }
    throw new Error(`no master found for slot ${slot}`);
  }

  /** Whether every node of the cluster but `exceptPort` (a killed one) reports cluster_state:ok. */
  redisClusterOk(exceptPort: number): boolean {
    const base = this.options.redisClusterBase!;
    for (let i = 0; i < 6; i++) {
      if (base + i === exceptPort) continue;
      const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(base + i), 'cluster', 'info'], { encoding: 'utf8', timeout: 5000 });
      if (result.status !== 0 || !result.stdout.includes('cluster_state:ok')) return false;
    }
    return true;
  }

  async init(apiCount: number): Promise<void> {
    // the processes run the build, as `npm start` does: build it first if a source changed (in `.ci/run` the build
    // stage before this one did)
    const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.js')], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}\n${build.stderr}`);
    mkdirSync(join(this.dir, 'logs'), { recursive: true });
    // if the test process ends without afterAll (a crash, a kill), the children go with it
    process.once('exit', () => {
      for (const proc of this.all) if (proc.running) proc.child.kill('SIGKILL');
    });
    this.mysqlPort = await freePort();
    this.redisPort = await freePort();
    for (let i = 0; i < apiCount; i++) this.apiPorts.push(await freePort());
  }

  // ---- MariaDB ----

  /** mariadb-install-db into the private data directory (about 2.5 s). */
  installMariaDb(): void {
    const result = spawnSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'mysql')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (result.status !== 0) {
      throw new Error(`mariadb-install-db failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}\n${result.stderr}`);
    }
  }

  async startMariaDb(): Promise<number> {
    const started = Date.now();
    const args = [
      '--no-defaults',
      `--datadir=${join(this.dir, 'mysql')}`,
      `--port=${this.mysqlPort}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(this.dir, 'mysql.sock')}`,
      `--pid-file=${join(this.dir, 'mysql.pid')}`,
      '--skip-grant-tables',
      '--skip-name-resolve',
      '--innodb-buffer-pool-size=128M',
      '--max-connections=500',
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    ];
    this.mariadb = this.spawnLogged('mariadb', 'mariadbd', args);
    await waitUntil(
      'MariaDB accepting connections',
      async () => {
        if (!this.mariadb!.running) throw new Error(`mariadbd exited:\n${this.mariadb!.tail()}`);
        return this.mysqlAlive();
      },
      60_000,
      50,
    );
    return Date.now() - started;
  }

  async mysqlAlive(): Promise<boolean> {
    try {
      const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.mysqlPort, user: 'root', connectTimeout: 1000 });
      await connection.query('SELECT 1');
      await connection.end();
      return true;
    } catch {
      return false;
    }
  }

  async sql<T = Record<string, unknown>>(statement: string, params: unknown[] = []): Promise<T[]> {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.mysqlPort, user: 'root', database: DATABASE });
    try {
      const [rows] = await connection.query(statement, params);
      return rows as T[];
    } finally {
      await connection.end();
    }
  }

  /**
   * Holds `LOCK TABLES <table> WRITE` on a session of its own for `ms` (every other session's reads and writes of the
   * table wait for it), then unlocks; answers how long the lock was held.
   */
  async lockTable(table: string, ms: number): Promise<number> {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.mysqlPort, user: 'root', database: DATABASE });
    try {
      await connection.query(`LOCK TABLES ${table} WRITE`);
      const lockedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, ms));
      await connection.query('UNLOCK TABLES');
      return Date.now() - lockedAt;
    } finally {
      await connection.end();
    }
  }

  // ---- Redis ----

  /**
   * Redis with an append-only file fsynced at every write, as a production Redis behind BullMQ is run (its jobs
   * and the budget counters must survive a restart); no RDB snapshots.
   */
  async startRedis(): Promise<number> {
    const started = Date.now();
    if (this.options.redisClusterBase !== undefined) {
      this.redisClusterScript('start');
      return Date.now() - started;
    }
    const dir = join(this.dir, 'redis');
    mkdirSync(dir, { recursive: true });
    this.redis = this.spawnLogged('redis', 'redis-server', [
      '--port',
      String(this.redisPort),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--daemonize',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ]);
    await waitUntil(
      'Redis answering PING',
      async () => {
        if (!this.redis!.running) throw new Error(`redis-server exited:\n${this.redis!.tail()}`);
        return this.redisAlive();
      },
      20_000,
      25,
    );
    return Date.now() - started;
  }

  /** Kills Redis (SIGKILL) and deletes its data: started again, it is empty, as a Redis without persistence restarts. */
  async killRedisAndItsData(): Promise<void> {
    await this.redis!.stop('SIGKILL');
    rmSync(join(this.dir, 'redis'), { recursive: true, force: true });
  }

  redisAlive(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = new Socket();
      let answer = '';
      const done = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.setTimeout(1000, () => done(false));
      socket.once('error', () => done(false));
      socket.on('data', (chunk) => {
        answer += chunk;
        if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
      });
      socket.connect(this.redisPort, '127.0.0.1', () => socket.write('PING\r\n'));
    });
  }

  // ---- application processes ----

  private appEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    // A clean environment: nothing of the test runner's (APP_ENV=test, TEST_* URLs) leaks into the service.
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TZ: 'UTC',
      NODE_ENV: 'production',
      APP_ENV: 'production',
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      ...(this.redisClusterNodes ? { REDIS_CLUSTER_NODES: this.redisClusterNodes } : {}),
      REDIS_PREFIX: this.redisPrefix,
      ADMIN_API_KEY: ADMIN_KEY,
      // errorLines() reads the JSON lines' levels
      LOG_FORMAT: 'json',
      RATE_LIMIT_PER_SECOND: '0',
      STATS_FLUSH_MS: '250',
      INDEX_REFRESH_MS: '2000',
      // Redis here fsyncs every write and shares two cores with every process and the load: 500 ms (not the default
      // 250) keeps refusals to real outages, and still answers within a second (docs/OPERATIONS.md, Faults).
      REDIS_DEADLINE_MS: '500',
      // The load's users click as soon as their ads arrive; the minimum delay is replayed in the e2e abuse suite.
      MIN_CLICK_DELAY_MS: '0',
      ...extra,
    };
  }

  /** API process i on its own port, started as `npm start` starts it (package.json); answers once /health is 200. */
  async startApi(i: number, extra: Record<string, string> = {}): Promise<number> {
    const started = Date.now();
    const preload = process.env.RELIABILITY_API_PRELOAD ? ['-r', process.env.RELIABILITY_API_PRELOAD] : [];
    const probeArgs = (process.env.RELIABILITY_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const proc = this.spawnLogged(`api${i}`, process.execPath, [...preload, ...probeArgs, '--max-semi-space-size=32', 'dist/src/main.js'], {
      cwd: root,
      env: this.appEnv({ PORT: String(this.apiPorts[i]), HOST: '127.0.0.1', QUEUE_WORKERS: 'false', LOG_LEVEL: 'warn', ...extra }),
    });
    this.apis[i] = proc;
    await waitUntil(
      `api${i} healthy`,
      async () => {
        if (!proc.running) throw new Error(`api${i} exited:\n${proc.tail()}`);
        return (await healthOf(this.apiPorts[i])).status === 200;
      },
      120_000,
      100,
    );
    return Date.now() - started;
  }

  /** A `start:worker` process (dist/src/worker.js, as `npm run start:worker`); answers once it says its queue workers run. */
  async startWorker(extra: Record<string, string> = {}): Promise<number> {
    const started = Date.now();
    const proc = this.spawnLogged('worker', process.execPath, ['dist/src/worker.js'], {
      cwd: root,
      env: this.appEnv({ LOG_LEVEL: 'info', ...extra }),
    });
    this.worker = proc;
    await waitUntil(
      'worker running',
      () => {
        if (!proc.running) throw new Error(`worker exited:\n${proc.tail()}`);
        return proc.log().includes('queue worker running');
      },
      120_000,
      100,
    );
    return Date.now() - started;
  }

  private spawnLogged(name: string, command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Proc {
    this.starts += 1;
    const logFile = join(this.dir, 'logs', `${String(this.starts).padStart(2, '0')}-${name}.log`);
    const fd = openSync(logFile, 'a');
    const child = spawn(command, args, { cwd: options.cwd ?? this.dir, env: options.env ?? process.env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.on('error', () => undefined);
    const proc = new Proc(name, child, logFile);
    this.all.push(proc);
    return proc;
  }

  /** Every log line of the application processes (APIs, workers) at level error or fatal. */
  errorLines(): string[] {
    return this.all
      .filter((proc) => proc.name.startsWith('api') || proc.name === 'worker')
      .flatMap((proc) =>
        proc
          .log()
          .split('\n')
          .filter((line) => /"level":(50|60)/.test(line))
          .map((line) => `${proc.name}: ${line}`),
      );
  }

  /**
   * What the APIs logged of the requests they answered 500 since `since` (epoch ms): the error's type and message and
   * the route, at most `limit` lines, for a phase's printout when it saw a 5xx.
   */
  failedRequests(since: number, limit = 5): string[] {
    const lines: string[] = [];
    for (const line of this.errorLines()) {
      if (!line.includes('"msg":"request failed"')) continue;
      try {
        const entry = JSON.parse(line.slice(line.indexOf('{')));
        // a lost database connection is logged too, and answered 503 (src/common/edge/envelope-writer.ts)
        if (entry.time < since || /^(ECONN|PROTOCOL_|POOL_STALLED|ER_SERVER_SHUTDOWN)/.test(String(entry.err?.code ?? ''))) continue;
        lines.push(
          `${line.slice(0, line.indexOf(':'))} ${entry.url}: ${entry.err?.type} ${entry.err?.message} ${String(entry.err?.stack ?? '')
            .split('\n')
            .slice(1, 4)
            .join(' <')}`,
        );
      } catch {
        continue;
      }
    }
    return lines.slice(0, limit);
  }

  /** Kills whatever still runs (the children of this suite only, by pid) and removes the directory. */
  async destroy(): Promise<void> {
    const running = this.all.filter((proc) => proc.running);
    for (const proc of running) proc.child.kill('SIGKILL');
    await Promise.all(running.map((proc) => proc.exited));
    if (this.options.redisClusterBase !== undefined) this.redisClusterScript('stop');
    if (process.env.RELIABILITY_KEEP) process.stdout.write(`reliability: files kept in ${this.dir}\n`);
    else rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Health {
  status: number;
  body: { data?: { ready?: boolean; database?: string; redis?: string } } | null;
}

/** GET /health/ready: whether the API can serve now (a load balancer's view; /health is liveness, always 200). */
export async function healthOf(port: number): Promise<Health> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(5000) });
    return { status: response.status, body: (await response.json()) as Health['body'] };
  } catch {
    return { status: 0, body: null };
  }
}
