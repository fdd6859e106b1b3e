import { describe, expect, it } from 'vitest';
import { importProgress } from './ProfileImport';

describe('importProgress', () => {
  it('should count done batches whole and others by their processed records', () => {
    expect(
      importProgress(
        [
          { batchId: 'a', status: 'done', total: 5000, processed: 5000 },
          { batchId: 'b', status: 'processing', total: 5000, processed: 2500 },
          { batchId: 'c', status: 'queued', total: 2000, processed: 0 },
        ],
        12000,
      ),
    ).toBe(63);
    expect(importProgress([{ batchId: 'a', status: 'done', total: 5000, processed: 0 }], 5000)).toBe(100);
    expect(importProgress([], 0)).toBe(0);
  });
});
