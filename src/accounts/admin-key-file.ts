import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { DatabaseConfig } from '../database/database.config';
import { ConfigError } from '../config/env-reader';
import type { AccountsConfig } from './accounts.config';

/** Where the admin key of this start comes from: the environment, or the key file beside the SQLite database. */
export type AdminKeySource = { kind: 'environment' } | { kind: 'file'; file: string; created: boolean };

export interface AdminKey {
  key: string;
  source: AdminKeySource;
}

/** The file beside the SQLite database that holds the admin key of a start without ADMIN_API_KEY. */
export const ADMIN_KEY_FILE_NAME = 'admin-key';

/** Shown when the MySQL profile is started without ADMIN_API_KEY: one line, saying why and what to do. */
export const MYSQL_NEEDS_ADMIN_KEY =
  'ADMIN_API_KEY is required with a MySQL DATABASE_URL (set it to a secret of at least 16 characters): ' +
  'processes on several machines share that database, so no one machine may make up the admin key';

/**
 * The admin key of the API process (docs/OPERATIONS.md, "The first run"). ADMIN_API_KEY when set. Otherwise, on the
 * embedded profile, a key created once and kept in `admin-key` beside the SQLite file (mode 0600), read again on
 * later starts, so `npm start` on a fresh machine leads to a working login. The MySQL profile has no such default:
 * throws ConfigError. The key then goes through the same bootstrap as ADMIN_API_KEY (a changed key revokes the old).
 */
export function resolveAdminKey(config: Pick<AccountsConfig, 'adminApiKey'> & Pick<DatabaseConfig, 'database'>): AdminKey {
  if (config.adminApiKey) return { key: config.adminApiKey, source: { kind: 'environment' } };
  if (config.database.type !== 'sqlite') throw new ConfigError([MYSQL_NEEDS_ADMIN_KEY]);
  const file = adminKeyFileOf(config.database.location);
  const existing = readKeyFile(file);
  if (existing !== null) return { key: existing, source: { kind: 'file', file, created: false } };
  mkdirSync(dirname(file), { recursive: true });
  const key = `adn_admin_${randomBytes(32).toString('base64url')}`;
  try {
    // `wx`: another process starting at the same moment keeps the key it wrote, and this one reads it below.
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { key: readKeyFile(file)!, source: { kind: 'file', file, created: false } };
  }
  return { key, source: { kind: 'file', file, created: true } };
}

/** `./data/admin-key` for `./data/adnet.sqlite`: a relative path keeps its `./`, as the operator wrote it. */
export function adminKeyFileOf(sqliteFile: string): string {
  const file = join(dirname(sqliteFile), ADMIN_KEY_FILE_NAME);
  return isAbsolute(file) || file.startsWith('.') ? file : `./${file}`;
}

function readKeyFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const key = text.trim();
  if (key.length < 16) {
    throw new ConfigError([`the admin key in ${file} is shorter than 16 characters: delete the file to have a new one created, or set ADMIN_API_KEY`]);
  }
  // The key file is a credential: a copy made readable by others (a restore, an editor) is closed again.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return key;
}
