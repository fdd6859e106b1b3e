import { isIP } from 'node:net';
import type { EnvReader } from '../../config/env-reader';

/** The HTTP edge: where the server listens, what it accepts, its deadlines, proxies and CORS. */
export interface EdgeConfig {
  port: number;
  host: string;
  trustProxy: boolean | number | string[];
  bodyLimitBytes: number;
  /** Whole-request receive deadline (slow clients get 408), handler deadline (503), longest query string (414). */
  requestTimeoutMs: number;
  handlerTimeoutMs: number;
  maxQueryBytes: number;
  corsOrigins: string[] | '*';
}

export const EDGE_CONFIG = Symbol('EDGE_CONFIG');

export function readEdgeConfig(env: EnvReader): EdgeConfig {
  return {
    port: env.integer('PORT', 3000, 0, 65535),
    host: env.read('HOST') ?? '0.0.0.0',
    trustProxy: parseTrustProxy(env),
    bodyLimitBytes: env.integer('BODY_LIMIT', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    requestTimeoutMs: env.integer('REQUEST_TIMEOUT_MS', 300_000, 100, 3_600_000),
    handlerTimeoutMs: env.integer('HANDLER_TIMEOUT_MS', 15_000, 0, 3_600_000),
    maxQueryBytes: env.integer('MAX_QUERY_BYTES', 4096, 256, 65_536),
    corsOrigins: parseCorsOrigins(env),
  };
}

function parseCorsOrigins(env: EnvReader): string[] | '*' {
  const raw = env.read('CORS_ORIGINS') ?? '*';
  if (raw === '*') return '*';
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) env.problem(`CORS_ORIGINS entries must be origins like https://app.example.com (got "${origin}")`);
  }
  return origins;
}

function parseTrustProxy(env: EnvReader): boolean | number | string[] {
  const raw = env.read('TRUST_PROXY');
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
    if (family === 0 || !bitsOk) env.problem(`TRUST_PROXY must be true, false, a hop count or a list of IPs/CIDRs (bad entry "${entry}")`);
  }
  return entries;
}
