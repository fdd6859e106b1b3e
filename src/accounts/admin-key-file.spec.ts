import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/env-reader';
import { adminKeyFileOf, MYSQL_NEEDS_ADMIN_KEY, resolveAdminKey } from './admin-key-file';

describe(resolveAdminKey.name, () => {
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'admin-key-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));
  const sqlite = (location: string) => ({ adminApiKey: null, database: { type: 'sqlite' as const, location } });

  it('should take ADMIN_API_KEY first, on either profile', () => {
    expect(resolveAdminKey({ adminApiKey: 'from-the-environment-123', database: { type: 'mysql', location: 'mysql://x/y' } })).toEqual({
      key: 'from-the-environment-123',
      source: { kind: 'environment' },
    });
  });

  it('should refuse the MySQL profile without ADMIN_API_KEY', () => {
    expect(() => resolveAdminKey({ adminApiKey: null, database: { type: 'mysql', location: 'mysql://x/y' } })).toThrow(
      new ConfigError([MYSQL_NEEDS_ADMIN_KEY]),
    );
  });

  it('should create the key file once (0600, in a folder made for it) and read it on later starts', () => {
    const database = join(folder, 'nested', 'adnet.sqlite');
    const first = resolveAdminKey(sqlite(database));
    const file = join(folder, 'nested', 'admin-key');
    expect(first.source).toEqual({ kind: 'file', file, created: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${first.key}\n`);
    expect(resolveAdminKey(sqlite(database))).toEqual({ key: first.key, source: { kind: 'file', file, created: false } });
  });

  it('should close a key file readable by others, and refuse one too short to be a key', () => {
    const file = join(folder, 'admin-key');
    writeFileSync(file, 'a-key-someone-wrote-here\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(resolveAdminKey(sqlite(join(folder, 'adnet.sqlite'))).key).toBe('a-key-someone-wrote-here');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, 'short\n');
    expect(() => resolveAdminKey(sqlite(join(folder, 'adnet.sqlite')))).toThrow(/shorter than 16 characters: delete the file/);
  });

  it('should show the file beside the default database as the operator wrote its path', () => {
    expect(adminKeyFileOf('./data/adnet.sqlite')).toBe('./data/admin-key');
    expect(adminKeyFileOf('data/adnet.sqlite')).toBe('./data/admin-key');
    expect(adminKeyFileOf('/var/lib/adnet/adnet.sqlite')).toBe('/var/lib/adnet/admin-key');
  });
});
