import type { AppConfig } from './app-config';
import type { AdminKeySource } from './accounts/admin-key-file';

export interface StartupSummary {
  /** The first line: where it listens and on what profile. */
  headline: string;
  /** The few lines a person reads at a terminal (LOG_FORMAT=text), the headline first. */
  lines: string[];
  /** The same facts as fields of one JSON line (LOG_FORMAT=json). */
  fields: Record<string, unknown>;
}

/**
 * What the API process says once it listens: the profile, the URLs of the API, its docs, the admin panel and the
 * metrics, where the admin key comes from, and who runs the queue jobs. A few lines instead of Nest's hundred.
 */
export function startupSummary(config: AppConfig, port: number, adminKey: AdminKeySource, adminKeyWorks = true): StartupSummary {
  const base = `http://${displayHost(config.host)}:${port}`;
  const replicas = config.databaseReplicas.length;
  const database =
    config.database.type === 'sqlite'
      ? `SQLite ${config.database.location}`
      : `MySQL ${withoutPassword(config.database.location)}${replicas > 0 ? ` (reports, lists and series from ${replicas} read replica${replicas > 1 ? 's' : ''})` : ''}`;
  const profile = config.database.type === 'sqlite' && !config.redisUrl ? 'embedded profile' : config.redisUrl ? 'MySQL + Redis profile' : 'MySQL profile';
  const queues = config.redisUrl
    ? `BullMQ queues on Redis, ${config.queueWorkers ? 'jobs run in this process too' : 'jobs run by `npm run start:worker` (QUEUE_WORKERS=false)'}`
    : 'in-process queues and serving state';
  const keySource = !adminKeyWorks
    ? adminKey.kind === 'environment'
      ? 'the ADMIN_API_KEY given was revoked: start with another value'
      : `the admin key in ${adminKey.file} was revoked (replaced by an ADMIN_API_KEY since): delete the file to have a new one made, or set ADMIN_API_KEY`
    : adminKey.kind === 'environment'
      ? 'admin key from ADMIN_API_KEY'
      : `admin key in ${adminKey.file}${adminKey.created ? ' (created now)' : ''}`;
  const metricsAccess = config.metricsToken ? 'an admin key, or METRICS_TOKEN as a bearer token' : 'an admin key';
  const headline = `listening on ${base} (${profile}: ${database}, ${queues})`;
  return {
    headline,
    lines: [headline, `API docs:    ${base}/docs`, `Admin panel: ${base}/admin/ — ${keySource}`, `Metrics:     ${base}/metrics (${metricsAccess})`],
    fields: {
      profile,
      database: config.database.type,
      databaseReplicas: replicas,
      redis: Boolean(config.redisUrl),
      queueWorkers: config.queueWorkers,
      appEnv: config.appEnv,
      docs: `${base}/docs`,
      admin: `${base}/admin/`,
      metrics: `${base}/metrics`,
      adminKey: adminKey.kind === 'environment' ? 'ADMIN_API_KEY' : adminKey.file,
      adminKeyCreated: adminKey.kind === 'file' && adminKey.created,
      adminKeyWorks,
    },
  };
}

/** A wildcard or loopback listen address is reached as localhost from the machine itself. */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '127.0.0.1' || host === '::1' || host === 'localhost') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'mysql://…';
  }
}
