import { QueryFailedError } from 'typeorm';

const DUPLICATE_KEY_CODES = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT']);

/** The statement failed on a unique index or primary key (MySQL/MariaDB or SQLite). */
export function isDuplicateKey(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error as QueryFailedError & { driverError?: { code?: string } }).driverError?.code;
  return code !== undefined && DUPLICATE_KEY_CODES.has(code);
}
