import type { EnvReader } from '../config/env-reader';

export interface DatabaseTarget {
  type: 'sqlite' | 'mysql';
  /** sqlite: file path; mysql: the connection URL */
  location: string;
}

/** DATABASE_URL, DATABASE_REPLICA_URLS and DB_MIGRATE. */
export interface DatabaseConfig {
  database: DatabaseTarget;
  /**
   * MySQL replicas of `database` (connection URLs), read by the reads that may lag: reports, lists and series
   * (src/database/replica-reads.ts). Empty: everything reads the primary.
   */
  databaseReplicas: string[];
  runMigrations: boolean;
}

export const DATABASE_CONFIG = Symbol('DATABASE_CONFIG');

const DEFAULT_SQLITE_FILE = './data/adnet.sqlite';

export function readDatabaseConfig(env: EnvReader): DatabaseConfig {
  const database = parseDatabaseUrl(env);
  return { database, databaseReplicas: parseReplicaUrls(env, database), runMigrations: env.boolean('DB_MIGRATE', true) };
}

function parseDatabaseUrl(env: EnvReader): DatabaseTarget {
  const raw = env.read('DATABASE_URL');
  if (raw === undefined) return { type: 'sqlite', location: DEFAULT_SQLITE_FILE };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') env.problem('DATABASE_URL sqlite:<path> needs a file path');
    return { type: 'sqlite', location: file || DEFAULT_SQLITE_FILE };
  }
  if (/^(mysql|mariadb):\/\/[^\s]+$/.test(raw)) {
    const location = mysqlUrl(raw);
    if (location === 'invalid') env.problem('DATABASE_URL is not a valid URL');
    else if (location === 'no database') env.problem('DATABASE_URL must name a database, e.g. mysql://root@127.0.0.1:3306/adnet');
    else return { type: 'mysql', location };
  } else {
    env.problem('DATABASE_URL must be sqlite:<path> or mysql://user:pass@host:port/database');
  }
  return { type: 'sqlite', location: DEFAULT_SQLITE_FILE };
}

/** DATABASE_REPLICA_URLS: comma-separated MySQL URLs, only beside a MySQL DATABASE_URL. */
function parseReplicaUrls(env: EnvReader, primary: DatabaseTarget): string[] {
  const raw = env.read('DATABASE_REPLICA_URLS');
  if (raw === undefined) return [];
  if (primary.type !== 'mysql') {
    env.problem('DATABASE_REPLICA_URLS needs a MySQL DATABASE_URL (replicas are of a MySQL primary)');
    return [];
  }
  const replicas: string[] = [];
  for (const entry of raw.split(',').map((part) => part.trim())) {
    const location = /^(mysql|mariadb):\/\/[^\s]+$/.test(entry) ? mysqlUrl(entry) : 'invalid';
    if (location === 'invalid' || location === 'no database') {
      env.problem(`DATABASE_REPLICA_URLS must be mysql://user:pass@host:port/database URLs separated by commas (got "${withoutPassword(entry)}")`);
      return [];
    }
    replicas.push(location);
  }
  return replicas;
}

function mysqlUrl(raw: string): string | 'invalid' | 'no database' {
  try {
    const url = new URL(raw.replace(/^mariadb:/, 'mysql:'));
    return url.pathname.length <= 1 ? 'no database' : url.toString();
  } catch {
    return 'invalid';
  }
}

/** A URL as it may be printed: its password masked. */
function withoutPassword(entry: string): string {
  return entry.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
