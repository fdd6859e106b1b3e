import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TEST_PROFILE } from '../support/profile';
import { batchStatus, countRows, PROFILE_CSV, storedProfile, uploadCsv, waitForBatch } from '../support/profile-helpers';
import { expectValidationError, newUser } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };
const HEADER = 'messengerUserId,walletAddress,walletClassify';
const CSV_LIMIT = 2_000_000;

describe(`Profile CSV import [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: Account;
  let otherPublisher: Account;
  let advertiser: Account;

  beforeAll(async () => {
    t = await startTestApp({ PROFILE_CSV_MAX_BYTES: String(CSV_LIMIT) });
    ({ publisher, otherPublisher, advertiser } = await createAccounts(t, {
      publisher: ['publisher', 'Publisher P'],
      otherPublisher: ['publisher', 'Publisher Q'],
      advertiser: ['advertiser', 'Advertiser A'],
    }));
  });
  afterAll(() => t.close());

  const counts = async () => ({ profiles: await countRows(t, 'profiles'), batches: await countRows(t, 'profile_batches') });
  const usersLike = async (prefix: string) => {
    const rows: { n: number | string }[] = await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM profiles WHERE messengerUserId LIKE ?', [`${prefix}%`]);
    return Number(rows[0].n);
  };

  it('should import the three interface columns and the optional ones, ignoring unknown columns and keeping values of empty cells', async () => {
    const a = newUser('csv');
    const b = newUser('csv');
    const c = newUser('csv');
    const csv = [
      `${HEADER},ipAddress,isPremium,isHighValue,walletHasBalance,language,note`,
      `${a},EQD4FPq-PRDi,primary,81.2.69.142,true,0,yes,DE,ignored`,
      `${b},0xabc,evm,,FALSE,1,no,,`,
      `"${c}",,,2001:db8::1,,,,en,"quoted, with comma"`,
    ].join('\r\n');
    const response = await uploadCsv(t, publisher.apiKey, `\uFEFF${csv}\r\n`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: 'success', data: { batchIds: [expect.any(String)], total: 3 } });
    const status = await waitForBatch(t, publisher.apiKey, response.body.data.batchIds[0]);
    expect(status).toEqual(expect.objectContaining({ status: 'done', total: 3, processed: 3, attempts: 1, error: null }));
    expect(await storedProfile(t, a)).toEqual({
      messengerUserId: a,
      ipAddress: '81.2.69.142',
      walletAddress: 'EQD4FPq-PRDi',
      walletClassify: 'primary',
      isPremium: true,
      isHighValue: false,
      walletHasBalance: true,
      language: 'de',
    });
    expect(await storedProfile(t, b)).toEqual({
      messengerUserId: b,
      ipAddress: null,
      walletAddress: '0xabc',
      walletClassify: 'evm',
      isPremium: false,
      isHighValue: true,
      walletHasBalance: false,
      language: null,
    });
    expect(await storedProfile(t, c)).toEqual(expect.objectContaining({ ipAddress: '2001:db8::1', walletAddress: null, language: 'en' }));

    // an empty cell keeps the stored value
    const again = await uploadCsv(t, publisher.apiKey, `${HEADER},isPremium\n${a},,,false\n`).expect(200);
    await waitForBatch(t, publisher.apiKey, again.body.data.batchIds[0]);
    expect(await storedProfile(t, a)).toEqual(
      expect.objectContaining({ walletAddress: 'EQD4FPq-PRDi', walletClassify: 'primary', isPremium: false, language: 'de' }),
    );
  });

  it("should import the panel's sample CSV whole, each of its users as the page describes them", async () => {
    const sample = readFileSync(join(__dirname, '..', '..', 'admin-ui', 'src', 'profiles', 'profiles-sample.csv'), 'utf8');
    const response = await uploadCsv(t, publisher.apiKey, sample).expect(200);
    expect(response.body.data.total).toBe(3);
    const status = await waitForBatch(t, publisher.apiKey, response.body.data.batchIds[0]);
    expect(status).toEqual(expect.objectContaining({ status: 'done', total: 3, processed: 3, error: null }));
    expect(await storedProfile(t, '5212345678', publisher.accountId)).toEqual(
      expect.objectContaining({ walletClassify: 'primary', ipAddress: '203.0.113.7', isPremium: true, walletHasBalance: true, language: 'en' }),
    );
    expect(await storedProfile(t, '5298765432', publisher.accountId)).toEqual(expect.objectContaining({ walletClassify: 'evm', language: 'de' }));
    expect(await storedProfile(t, '5233344455', publisher.accountId)).toEqual(
      expect.objectContaining({ walletAddress: null, isHighValue: true, ipAddress: '198.51.100.23', language: 'es' }),
    );
  });

  it('should split a large file into batches of 5000 that each report their status', async () => {
    const tag = newUser('big');
    const lines = [HEADER];
    for (let i = 0; i < 12_001; i++) lines.push(i % 2 === 0 ? `${tag}-${i},EQ${i},primary` : `${tag}-${i},,`);
    const response = await uploadCsv(t, publisher.apiKey, lines.join('\n')).expect(200);
    expect(response.body.data.total).toBe(12_001);
    const { batchIds } = response.body.data;
    expect(batchIds).toHaveLength(3);
    const totals = [];
    for (const batchId of batchIds) {
      const status = await waitForBatch(t, publisher.apiKey, batchId);
      expect(status.status).toBe('done');
      totals.push([status.total, status.processed]);
    }
    expect(totals).toEqual([
      [5000, 5000],
      [5000, 5000],
      [2001, 2001],
    ]);
    expect(await usersLike(`${tag}-`)).toBe(12_001);
    expect(await storedProfile(t, `${tag}-12000`)).toEqual(expect.objectContaining({ walletAddress: 'EQ12000', walletClassify: 'primary' }));
  });

  it('should refuse a file with a bad row deep inside, naming its line and field, and store nothing (no batch either)', async () => {
    const before = await counts();
    const tag = newUser('badrow');
    const lines = [HEADER];
    for (let i = 0; i < 11_000; i++) lines.push(`${tag}-${i},EQ${i},evm`);
    lines[9000] = `${tag}-x,EQx,solana`; // line 9001 of the file
    const response = await uploadCsv(t, publisher.apiKey, lines.join('\n'));
    expectValidationError(response, 'line.9001.walletClassify');
    expect(await counts()).toEqual(before);
  });

  it('should name every bad row of a file, in file order, checking the rows after the first bad one, and store nothing', async () => {
    const before = await counts();
    const tag = newUser('badrows');
    const csv = [
      `${HEADER},ipAddress`,
      `${tag}-1,EQ1,evm,`,
      `${tag}-2,EQ2,,`, // line 3: a wallet without class
      `${tag}-3,,,1.2.3.4.5`, // line 4: a bad IP
      `${tag}-4,,evm,`, // line 5: a class without wallet
      `,EQ5,evm,`, // line 6: no messengerUserId
      `${tag}-6,EQ6,primary,`,
    ].join('\n');
    const response = await uploadCsv(t, publisher.apiKey, csv);
    expect([response.status, response.body.code]).toEqual([400, 400]);
    const errors: { field: string; message: string }[] = response.body.data.errors;
    expect(errors.map((error) => error.field)).toEqual(['line.3.walletClassify', 'line.4.ipAddress', 'line.5.walletClassify', 'line.6.messengerUserId']);
    for (const error of errors) expect(error.message.startsWith(error.field)).toBe(true);
    expect(response.body.message).toBe(errors.map((error) => error.message).join('; '));
    expect(await counts()).toEqual(before);
    expect(await usersLike(tag)).toBe(0);
  });

  it('should name at most 100 field errors, the first ones of the file, and store nothing', async () => {
    const before = await counts();
    const tag = newUser('manybad');
    const lines = [HEADER];
    for (let i = 0; i < 6_000; i++) lines.push(i % 50 === 0 ? `${tag}-${i},EQ${i},` : `${tag}-${i},EQ${i},evm`);
    const response = await uploadCsv(t, publisher.apiKey, lines.join('\n'));
    expect([response.status, response.body.code]).toEqual([400, 400]);
    // rows 0, 50, 100, ... are bad: lines 2, 52, 102, ... of the file; 120 of them, 100 named
    expect(response.body.data.errors.map((error: { field: string }) => error.field)).toEqual(
      Array.from({ length: 100 }, (_, i) => `line.${2 + i * 50}.walletClassify`),
    );
    expect(await counts()).toEqual(before);
    expect(await usersLike(tag)).toBe(0);
  });

  it('should name the bad rows before a line that breaks the CSV, and that line', async () => {
    const before = await counts();
    const response = await uploadCsv(t, publisher.apiKey, `${HEADER}\nu1,EQ1,\nu2,,evm\n"u3,EQ3,evm\n`);
    expect([response.status, response.body.code]).toEqual([400, 400]);
    expect(response.body.data.errors.map((error: { field: string }) => error.field)).toEqual(['line.2.walletClassify', 'line.3.walletClassify', 'line.4']);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ['a bad IP', `${HEADER},ipAddress\nu1,,,1.2.3.4.5\n`, 'line.2.ipAddress'],
    ['a wallet without class', `${HEADER}\nu1,EQ1,\n`, 'line.2.walletClassify'],
    ['a class without wallet', `${HEADER}\nu1,,evm\n`, 'line.2.walletClassify'],
    ['no messengerUserId', `${HEADER}\nu1,,\n,EQ1,evm\n`, 'line.3.messengerUserId'],
    ['a bad boolean', `${HEADER},isPremium\nu1,,,maybe\n`, 'line.2.isPremium'],
    ['a bad language', `${HEADER},language\nu1,,,english\n`, 'line.2.language'],
    ['a missing column in the header', 'messengerUserId,walletAddress\nu1,EQ1\n', 'header'],
    ['a repeated column in the header', `${HEADER},walletAddress\nu1,EQ1,evm,EQ2\n`, 'header'],
    ['only a header', `${HEADER}\n`, 'file'],
    ['an empty file', '', 'file'],
    ['a row with too many cells', `${HEADER}\nu1,EQ1,evm,extra\n`, 'line.2'],
    ['an unclosed quote', `${HEADER}\n"u1,EQ1,evm\n`, 'line.2'],
  ])('should answer 400 for %s, storing nothing', async (_case, csv, field) => {
    const before = await counts();
    expectValidationError(await uploadCsv(t, publisher.apiKey, csv), field);
    expect(await counts()).toEqual(before);
  });

  it('should answer 413 for a file over PROFILE_CSV_MAX_BYTES, read as a stream, storing nothing', async () => {
    const before = await counts();
    const tag = newUser('huge');
    const lines = [HEADER];
    for (let size = 0, i = 0; size <= CSV_LIMIT; i += 1) {
      lines.push(`${tag}-${i},EQ${'x'.repeat(60)}${i},evm`);
      size += lines[lines.length - 1].length + 1;
    }
    const response = await uploadCsv(t, publisher.apiKey, lines.join('\n'));
    expect([response.status, response.body.code]).toEqual([413, 413]);
    expect(response.body.message).toContain('PROFILE_CSV_MAX_BYTES');
    expect(await counts()).toEqual(before);
  });

  it('should answer 401/403 before reading the file, and 400 for a body that is not text/csv', async () => {
    const csv = `${HEADER}\nu1,EQ1,evm\n`;
    const before = await counts();
    const missing = await t.http().post(PROFILE_CSV).set('content-type', 'text/csv').send(csv);
    expect([missing.status, missing.body.code]).toEqual([401, 401]);
    const forbidden = await uploadCsv(t, advertiser.apiKey, csv);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 403]);
    const json = await t
      .http()
      .post(PROFILE_CSV)
      .set('x-api-key', publisher.apiKey)
      .send({ list: [{ messengerUserId: 'u1' }] });
    expect([json.status, json.body.code]).toEqual([400, 400]);
    expect(json.body.message).toContain('text/csv');
    expect(await counts()).toEqual(before);
  });

  it("should keep each imported batch to its owner: another publisher's status request is a 404, an admin's works", async () => {
    const response = await uploadCsv(t, publisher.apiKey, `${HEADER}\n${newUser('own')},EQ1,alt\n`).expect(200);
    const [batchId] = response.body.data.batchIds;
    await waitForBatch(t, publisher.apiKey, batchId);
    const foreign = await t.http().get('/api/v2/openapi/user/profile/batch/status').query({ batchId }).set('x-api-key', otherPublisher.apiKey);
    expect(foreign.status).toBe(404);
    expect((await batchStatus(t, ADMIN_KEY, batchId)).status).toBe('done');
  });
});
