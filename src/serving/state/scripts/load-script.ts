import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisClient } from '../../../redis/redis.module';

/** The Lua scripts of the Redis serving state, by file name (without `.lua`) in this folder. */
export type ScriptName =
  | 'serve-many'
  | 'bill'
  | 'click-bind'
  | 'click-bill'
  | 'click-bind-bill'
  | 'click-unbind'
  | 'view'
  | 'complete'
  | 'holder'
  | 'forget-holder'
  | 'lease'
  | 'give-back'
  | 'reclaim';

const loaded = new Map<string, string>();

/**
 * The text of a script, read once per process. `{{NAME}}` placeholders are filled in from `values`, so the
 * constants a script shares with TypeScript are written once; a placeholder without a value is an error at start,
 * not a script that fails in Redis.
 */
export function loadScript(name: ScriptName, values: Record<string, string | number> = {}): string {
  const cacheKey = `${name}\0${JSON.stringify(values)}`;
  const cached = loaded.get(cacheKey);
  if (cached !== undefined) return cached;
  const text = readFileSync(join(__dirname, `${name}.lua`), 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in values)) throw new Error(`script ${name}.lua: no value for {{${key}}}`);
    return String(values[key]);
  });
  loaded.set(cacheKey, text);
  return text;
}

/** Registers a script as a command of this client (ioredis runs it with EVALSHA, loading it when Redis lacks it). */
export function defineScript(redis: RedisClient, command: string, name: ScriptName, values?: Record<string, string | number>): void {
  redis.defineCommand(command, { lua: loadScript(name, values) });
}
