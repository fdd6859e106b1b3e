import { describe, expect, it } from 'vitest';
import { badLines, importProgress } from './ProfileImport';

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

describe('badLines', () => {
  it('should list each bad line of the file once, in order', () => {
    expect(
      badLines([
        { field: 'line.9.walletClassify', message: 'Line 9, walletClassify is required with walletAddress' },
        { field: 'line.3.ipAddress', message: 'Line 3, ipAddress must be an IP address' },
        { field: 'line.3.walletClassify', message: 'Line 3, walletClassify must be one of primary, secondary' },
      ]),
    ).toEqual([3, 9]);
    expect(badLines([{ field: 'header', message: 'Header row must name the columns messengerUserId' }])).toEqual([]);
  });
});
