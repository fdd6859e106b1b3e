import { beforeEach, describe, expect, it } from 'vitest';
import { type ApiFailure, fakeApi, ok, query } from './fakeApi';

describe('profile imports', () => {
  beforeEach(() => localStorage.clear());

  it('should send a CSV file as text/csv and read batch status', async () => {
    const { provider, calls } = fakeApi({
      'POST /api/v2/openapi/user/profile/batch/csv': () => ok({ batchIds: ['b1', 'b2'], total: 6000 }),
      'GET /api/v2/openapi/user/profile/batch/status': () => ok({ batchId: 'b1', status: 'processing', total: 5000, processed: 1000 }),
    });
    const csv = 'messengerUserId,walletAddress,walletClassify\nu1,,\n';
    const imported = await provider.importProfilesCsv(new Blob([csv], { type: 'text/csv' }));
    const status = await provider.profileBatchStatus('b1');

    expect(calls[0].method).toBe('POST');
    expect(calls[0].headers['content-type']).toBe('text/csv');
    expect(imported).toEqual({ batchIds: ['b1', 'b2'], total: 6000 });
    expect(query(calls[1])).toEqual({ batchId: 'b1' });
    expect(status).toMatchObject({ status: 'processing', processed: 1000 });
  });

  it("should send an admin's CSV import for the publisher it names", async () => {
    const { provider, calls } = fakeApi({ 'POST /api/v2/openapi/user/profile/batch/csv': () => ok({ batchIds: ['b1'], total: 1 }) });
    await provider.importProfilesCsv(new Blob(['messengerUserId,walletAddress,walletClassify\nu1,,\n']), 'pub1');
    await provider.importProfilesCsv(new Blob(['messengerUserId,walletAddress,walletClassify\nu1,,\n']));
    expect(query(calls[0])).toEqual({ publisherId: 'pub1' });
    expect(query(calls[1])).toEqual({});
  });

  it('should map CSV line errors to their lines', async () => {
    const { provider } = fakeApi({
      'POST /api/v2/openapi/user/profile/batch/csv': () => ({
        status: 400,
        json: {
          code: 400,
          message: 'line.3.walletClassify is required with walletAddress',
          data: { errors: [{ field: 'line.3.walletClassify', message: 'line.3.walletClassify is required with walletAddress' }] },
        },
      }),
    });
    const error = (await provider.importProfilesCsv(new Blob(['x'])).catch((caught: unknown) => caught)) as ApiFailure;
    expect(error.status).toBe(400);
    expect(error.body.fieldErrors).toEqual([{ field: 'line.3.walletClassify', message: 'Line 3, walletClassify is required with walletAddress' }]);
  });
});
