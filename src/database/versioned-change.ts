import { ConflictError } from '../common/errors';

interface Versioned {
  id: string;
  version: number;
}

/** The owning repository's conditional write: applies `changes` only while the row is still at `version`. */
export interface VersionedWriter<T extends Versioned> {
  updateAtVersion(id: string, version: number, changes: Partial<T>): Promise<boolean>;
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
  rows: VersionedWriter<T>,
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
    if (await rows.updateAtVersion(current.id, current.version, next as Partial<T>)) return { record: { ...current, ...next }, changed: true };
    if (attempt >= MAX_ATTEMPTS) throw new ConflictError(`${options.field}: the ${options.what} is being changed concurrently, retry`);
  }
}
