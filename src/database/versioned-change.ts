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
 */
export async function changeWithVersion<T extends Versioned>(
  rows: Repository<T>,
  load: () => Promise<T>,
  decide: (current: T) => Partial<T> | null,
  conflict: { field: string; what: string },
): Promise<{ record: T; changed: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const current = await load();
    const changes = decide(current);
    if (!changes) return { record: current, changed: false };
    const next = { ...changes, version: current.version + 1 };
    const result = await rows.update({ id: current.id, version: current.version } as FindOptionsWhere<T>, next as QueryDeepPartialEntity<T>);
    if (result.affected === 1) return { record: { ...current, ...next }, changed: true };
    if (attempt >= MAX_ATTEMPTS) throw new ConflictError(`${conflict.field}: the ${conflict.what} is being changed concurrently, retry`);
  }
}
