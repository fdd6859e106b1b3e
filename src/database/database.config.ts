import type { EnvReader } from '../config/env-reader';

export interface DatabaseTarget {
  type: 'sqlite' | 'mysql';
  /** sqlite: file path; mysql: the connection URL */
  location: string;
}

/** DATABASE_URL and DB_MIGRATE. */
export interface DatabaseConfig {
  database: DatabaseTarget;
  runMigrations: boolean;
}

export const DATABASE_CONFIG = Symbol('DATABASE_CONFIG');

const DEFAULT_SQLITE_FILE = './data/adnet.sqlite';

export function readDatabaseConfig(env: EnvReader): DatabaseConfig {
  return { database: parseDatabaseUrl(env), runMigrations: env.boolean('DB_MIGRATE', true) };
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
    try {
      const url = new URL(raw.replace(/^mariadb:/, 'mysql:'));
      if (url.pathname.length <= 1) env.problem('DATABASE_URL must name a database, e.g. mysql://root@127.0.0.1:3306/adnet');
      return { type: 'mysql', location: url.toString() };
    } catch {
      env.problem('DATABASE_URL is not a valid URL');
    }
  } else {
    env.problem('DATABASE_URL must be sqlite:<path> or mysql://user:pass@host:port/database');
  }
  return { type: 'sqlite', location: DEFAULT_SQLITE_FILE };
}
