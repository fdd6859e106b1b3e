import type { FindOptionsWhere, ObjectLiteral, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { ConflictError } from '../common/errors';

interface Versioned extends ObjectLiteral {
  id: string;
  version: number;
}

const MAX_ATTEMPTS = 10;

/**
 * Read, decide, write only if nobody wrote in between (the version still matches), else read again: concurrent
 * edits and status changes never overwrite each other, and a final state (an ended campaign) stays final. `decide`
 * returns null when there is nothing to change. Resolves to the record as written and whether it changed.
 *
 * Only the `writable` columns may change. The row's counters have their own writer, which does not bump the
 * version: a counter read here and written back would undo the counter writes committed since the read (a pause
 * once wrote a campaign's impressions and spend back as they were, losing a flush of them).
 */
export async function changeWithVersion<T extends Versioned>(
  rows: Repository<T>,
  load: () => Promise<T>,
  decide: (current: T) => Partial<T> | null,
  options: { field: string; what: string; writable: readonly (keyof T & string)[] },
): Promise<{ record: T; changed: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const current = await load();
    const changes = decide(current);
    if (!changes) return { record: current, changed: false };
    const unwritable = Object.keys(changes).filter((column) => !(options.writable as readonly string[]).includes(column));
    if (unwritable.length > 0) throw new Error(`a ${options.what} change may not write ${unwritable.join(', ')}: only their own writer does`);
    const next = { ...changes, version: current.version + 1 };
    const result = await rows.update({ id: current.id, version: current.version } as FindOptionsWhere<T>, next as QueryDeepPartialEntity<T>);
    if (result.affected === 1) return { record: { ...current, ...next }, changed: true };
    if (attempt >= MAX_ATTEMPTS) throw new ConflictError(`${options.field}: the ${options.what} is being changed concurrently, retry`);
  }
}
