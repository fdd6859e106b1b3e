import type { EnvReader } from '../config/env-reader';

export interface ProfilesConfig {
  /** Profiles each API process keeps in memory (MySQL + Redis profile; 0: read Redis every time), and for how long. */
  profileCacheMax: number;
  profileCacheTtlMs: number;
  /** Profile batch jobs (docs/CONTRACT.md §8): tries in all, first retry delay (doubling), records per upsert statement. */
  profileBatchAttempts: number;
  profileBatchBackoffMs: number;
  profileChunkSize: number;
  /** Largest profile CSV upload, in bytes (it is streamed, never held whole). */
  profileCsvMaxBytes: number;
}

export const PROFILES_CONFIG = Symbol('PROFILES_CONFIG');

export function readProfilesConfig(env: EnvReader): ProfilesConfig {
  return {
    profileCacheMax: env.integer('PROFILE_CACHE_MAX', 200_000, 0, 10_000_000),
    profileCacheTtlMs: env.integer('PROFILE_CACHE_TTL_MS', 60_000, 0, 3_600_000),
    profileBatchAttempts: env.integer('PROFILE_BATCH_ATTEMPTS', 5, 1, 50),
    profileBatchBackoffMs: env.integer('PROFILE_BATCH_BACKOFF_MS', 1000, 10, 3_600_000),
    profileChunkSize: env.integer('PROFILE_CHUNK_SIZE', 1000, 1, 2500),
    profileCsvMaxBytes: env.integer('PROFILE_CSV_MAX_BYTES', 256 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
  };
}
