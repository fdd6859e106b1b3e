import { DataSource } from 'typeorm';
import { TestApp } from './test-app';

export const PROFILE_BATCH = '/api/v2/openapi/user/profile/batch';
export const PROFILE_STATUS = '/api/v2/openapi/user/profile/batch/status';
export const PROFILE_CSV = '/api/v2/openapi/user/profile/batch/csv';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export function postBatch(t: TestApp, apiKey: string, list: unknown) {
  return t.http().post(PROFILE_BATCH).set('x-api-key', apiKey).send({ list });
}

/** Uploads a batch that must be accepted; answers its batchId. */
export async function uploadBatch(t: TestApp, apiKey: string, list: unknown[]): Promise<string> {
  const response = await postBatch(t, apiKey, list);
  if (response.status !== 200) throw new Error(`batch refused: ${response.status} ${JSON.stringify(response.body).slice(0, 500)}`);
  expect(response.body).toEqual({ code: 0, message: 'success', data: { batchId: expect.any(String) } });
  return response.body.data.batchId;
}

export async function batchStatus(t: TestApp, apiKey: string, batchId: string): Promise<Json> {
  const response = await t.http().get(PROFILE_STATUS).query({ batchId }).set('x-api-key', apiKey);
  if (response.status !== 200) throw new Error(`status failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** Polls the status endpoint until the batch is done or failed (or `until` says so). */
export async function waitForBatch(
  t: TestApp,
  apiKey: string,
  batchId: string,
  until: (status: Json) => boolean = (status) => status.status === 'done' || status.status === 'failed',
  timeoutMs = 20_000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await batchStatus(t, apiKey, batchId);
    if (until(status)) return status;
    if (Date.now() > deadline) throw new Error(`batch ${batchId} still ${JSON.stringify(status)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

export async function uploadAndApply(t: TestApp, apiKey: string, list: unknown[]): Promise<Json> {
  const status = await waitForBatch(t, apiKey, await uploadBatch(t, apiKey, list));
  expect(status.status).toBe('done');
  return status;
}

export function uploadCsv(t: TestApp, apiKey: string, text: string | Buffer, contentType = 'text/csv') {
  return t.http().post(PROFILE_CSV).set('x-api-key', apiKey).set('content-type', contentType).send(text);
}

/**
 * The stored profile row, booleans as booleans, or null. Profiles are per publisher: name the account when more than
 * one publisher uploaded this user.
 */
export async function storedProfile(t: TestApp, messengerUserId: string, accountId?: string): Promise<Json | null> {
  const rows: Json[] = await t.app
    .get(DataSource)
    .query(
      'SELECT messengerUserId, ipAddress, walletAddress, walletClassify, isPremium, isHighValue, walletHasBalance, language FROM profiles WHERE messengerUserId = ?' +
        (accountId === undefined ? '' : ' AND accountId = ?'),
      accountId === undefined ? [messengerUserId] : [messengerUserId, accountId],
    );
  if (rows.length > 1) throw new Error(`${rows.length} publishers' profiles of ${messengerUserId}: name the account`);
  if (rows.length === 0) return null;
  const row = rows[0];
  const bool = (value: unknown) => (value === null ? null : value === true || Number(value) === 1);
  return { ...row, isPremium: bool(row.isPremium), isHighValue: bool(row.isHighValue), walletHasBalance: bool(row.walletHasBalance) };
}

export async function countRows(t: TestApp, table: 'profiles' | 'profile_batches'): Promise<number> {
  const rows: { n: number | string }[] = await t.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM ${table}`);
  return Number(rows[0].n);
}
