import { ConflictError } from '../common/errors';
import { changeWithVersion, type VersionedWriter } from './versioned-change';

interface Row {
  id: string;
  version: number;
  status: string;
  impressions: number;
}

/** A table of one row whose `update` applies only when the version matches, like the SQL statement. */
function tableOf(row: Row) {
  const updates: Record<string, unknown>[] = [];
  const rows = {
    updateAtVersion: jest.fn(async (id: string, version: number, values: Partial<Row>) => {
      updates.push(values);
      if (id !== row.id || version !== row.version) return false;
      Object.assign(row, values);
      return true;
    }),
  } satisfies VersionedWriter<Row>;
  return { rows, updates, load: async () => ({ ...row }) };
}

const options = { field: 'campaignId', what: 'campaign', writable: ['status'] as const };

describe('changeWithVersion', () => {
  it('should write only the decided columns and the next version', async () => {
    const row = { id: 'c1', version: 3, status: 'onGoing', impressions: 10 };
    const { rows, updates, load } = tableOf(row);

    const { record, changed } = await changeWithVersion(rows, load, () => ({ status: 'paused' }), options);

    expect(changed).toBe(true);
    expect(updates).toEqual([{ status: 'paused', version: 4 }]);
    expect(record).toEqual({ id: 'c1', version: 4, status: 'paused', impressions: 10 });
  });

  it('should refuse a change that writes a column outside `writable`, before writing anything', async () => {
    const row = { id: 'c1', version: 3, status: 'onGoing', impressions: 10 };
    const { rows, updates, load } = tableOf(row);
    // the stale copy of a counter, as a whole row spread into the change would carry it
    const decide = (current: Row) => ({ ...current, status: 'paused' });

    await expect(changeWithVersion(rows, load, decide, options)).rejects.toThrow('a campaign change may not write id, version, impressions');
    expect(updates).toEqual([]);
    expect(row).toEqual({ id: 'c1', version: 3, status: 'onGoing', impressions: 10 });
  });

  it('should read again when the version moved, and give up with a 409 conflict after ten tries', async () => {
    const row = { id: 'c1', version: 1, status: 'onGoing', impressions: 0 };
    const { rows, updates } = tableOf(row);
    // every read is one version behind: another edit always lands in between
    const stale = async () => ({ ...row, version: row.version - 1 });

    await expect(changeWithVersion(rows, stale, () => ({ status: 'paused' }), options)).rejects.toThrow(ConflictError);
    expect(updates).toHaveLength(10);
    expect(row.status).toBe('onGoing');
  });

  it('should write nothing when the decision is null', async () => {
    const row = { id: 'c1', version: 1, status: 'paused', impressions: 0 };
    const { rows, updates, load } = tableOf(row);

    const { record, changed } = await changeWithVersion(rows, load, () => null, options);

    expect({ changed, updates, record }).toEqual({ changed: false, updates: [], record: row });
  });
});
