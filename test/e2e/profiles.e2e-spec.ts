import { DataSource, type ObjectLiteral } from 'typeorm';
import { ProfilesService } from '../../src/profiles/profiles.service';
import { TEST_PROFILE } from '../support/profile';
import { batchStatus, countRows, Json, PROFILE_STATUS, postBatch, storedProfile, uploadAndApply, uploadBatch, waitForBatch } from '../support/profile-helpers';
import { expectValidationError, newUser, UNKNOWN_ID } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAccounts } from '../support/factories';

type Account = { accountId: string; apiKey: string };

const fullRecord = (i: number): Json => ({
  messengerUserId: `full-${i}`,
  ipAddress: i % 2 === 0 ? '81.2.69.142' : '2001:4860:4860::8888',
  walletAddress: `EQD4FPq-PRDieyQKkizFTRtSDyucUIqrj0v_zXJmqaDp6_${String(i).padStart(6, '0')}`.padEnd(120, 'x'),
  walletClassify: ['primary', 'evm', 'alt'][i % 3],
  isPremium: i % 2 === 0,
  isHighValue: i % 5 === 0,
  walletHasBalance: i % 7 === 0,
  language: 'en',
});

describe(`Profiles (endpoint 10), batch status, upserts [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let publisher: Account;
  let otherPublisher: Account;
  let advertiser: Account;
  let partner: Account;

  beforeAll(async () => {
    t = await startTestApp({ PROFILE_CHUNK_SIZE: '1000', PROFILE_BATCH_ATTEMPTS: '2', PROFILE_BATCH_BACKOFF_MS: '300' });
    ({ publisher, otherPublisher, advertiser, partner } = await createAccounts(t, {
      publisher: ['publisher', 'Publisher P'],
      otherPublisher: ['publisher', 'Publisher Q'],
      advertiser: ['advertiser', 'Advertiser A'],
      partner: ['partner', 'Partner X'],
    }));
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const expectNothingStored = async (before: { profiles: number; batches: number }) => {
    expect(await countRows(t, 'profiles')).toBe(before.profiles);
    expect(await countRows(t, 'profile_batches')).toBe(before.batches);
  };
  const counts = async () => ({ profiles: await countRows(t, 'profiles'), batches: await countRows(t, 'profile_batches') });

  describe('validation: the whole batch is checked before anything is stored', () => {
    const valid = (): Json => ({ messengerUserId: 'user-1', ipAddress: '8.8.8.8', walletAddress: 'EQD4FPq', walletClassify: 'primary' });
    const cases: [string, string, (record: Json) => void][] = [
      ['messengerUserId missing', 'list.0.messengerUserId', (r) => delete r.messengerUserId],
      ['messengerUserId empty', 'list.0.messengerUserId', (r) => (r.messengerUserId = '')],
      ['messengerUserId blank', 'list.0.messengerUserId', (r) => (r.messengerUserId = '   ')],
      ['messengerUserId a number', 'list.0.messengerUserId', (r) => (r.messengerUserId = 5012345678)],
      ['messengerUserId null', 'list.0.messengerUserId', (r) => (r.messengerUserId = null)],
      ['messengerUserId of 129 characters', 'list.0.messengerUserId', (r) => (r.messengerUserId = 'u'.repeat(129))],
      ['ipAddress not an IP', 'list.0.ipAddress', (r) => (r.ipAddress = 'not-an-ip')],
      ['ipAddress with three parts', 'list.0.ipAddress', (r) => (r.ipAddress = '10.0.1')],
      ['ipAddress out of range', 'list.0.ipAddress', (r) => (r.ipAddress = '256.1.1.1')],
      ['ipAddress a bad IPv6', 'list.0.ipAddress', (r) => (r.ipAddress = '2001:db8::g')],
      ['ipAddress a number', 'list.0.ipAddress', (r) => (r.ipAddress = 8888)],
      ['ipAddress empty', 'list.0.ipAddress', (r) => (r.ipAddress = '')],
      ['walletClassify missing with walletAddress', 'list.0.walletClassify', (r) => delete r.walletClassify],
      ['walletClassify null with walletAddress', 'list.0.walletClassify', (r) => (r.walletClassify = null)],
      ['walletClassify unknown', 'list.0.walletClassify', (r) => (r.walletClassify = 'solana')],
      ['walletClassify upper-case', 'list.0.walletClassify', (r) => (r.walletClassify = 'PRIMARY')],
      ['walletClassify without walletAddress', 'list.0.walletClassify', (r) => delete r.walletAddress],
      ['walletAddress empty', 'list.0.walletAddress', (r) => (r.walletAddress = '')],
      ['walletAddress of 129 characters', 'list.0.walletAddress', (r) => (r.walletAddress = 'w'.repeat(129))],
      ['walletAddress a number', 'list.0.walletAddress', (r) => (r.walletAddress = 12345)],
      ['isPremium a string', 'list.0.isPremium', (r) => (r.isPremium = 'yes')],
      ['isHighValue a number', 'list.0.isHighValue', (r) => (r.isHighValue = 1)],
      ['walletHasBalance "true"', 'list.0.walletHasBalance', (r) => (r.walletHasBalance = 'true')],
      ['language not ISO 639-1', 'list.0.language', (r) => (r.language = 'xx')],
      ['language a locale', 'list.0.language', (r) => (r.language = 'en-US')],
    ];

    it.each(cases)('should answer 400 naming the field for %s, storing nothing', async (_case, field, mutate) => {
      const before = await counts();
      const record = valid();
      mutate(record);
      const response = await postBatch(t, publisher.apiKey, [valid(), record].slice(1));
      expectValidationError(response, field);
      await expectNothingStored(before);
    });

    it.each([
      ['0 records', [], 'list'],
      ['5001 records', Array.from({ length: 5001 }, (_, i) => ({ messengerUserId: `over-${i}` })), 'list'],
      ['list not an array', { messengerUserId: 'a' }, 'list'],
      ['list a string', 'records', 'list'],
      ['list null', null, 'list'],
      ['a record that is a string', [{ messengerUserId: 'a' }, 'b'], 'list.1'],
      ['a record that is null', [{ messengerUserId: 'a' }, null], 'list.1'],
      ['a record that is an array', [{ messengerUserId: 'a' }, [{ messengerUserId: 'b' }]], 'list.1'],
    ])('should answer 400 naming %s', async (_case, list, field) => {
      const before = await counts();
      expectValidationError(await postBatch(t, publisher.apiKey, list), field);
      await expectNothingStored(before);
    });

    it('should answer 400 for a missing list and for malformed JSON', async () => {
      const before = await counts();
      expectValidationError(await t.http().post('/api/v2/openapi/user/profile/batch').set('x-api-key', publisher.apiKey).send({}), 'list');
      const malformed = await t
        .http()
        .post('/api/v2/openapi/user/profile/batch')
        .set('x-api-key', publisher.apiKey)
        .set('content-type', 'application/json')
        .send('{"list": [');
      expect([malformed.status, malformed.body.code]).toEqual([400, 400]);
      await expectNothingStored(before);
    });

    it('should refuse a 5000-record batch whose bad record is deep inside, naming it and storing nothing', async () => {
      const before = await counts();
      const list = Array.from({ length: 5000 }, (_, i) => fullRecord(i));
      list[4321].ipAddress = '300.1.2.3';
      list[4998].walletClassify = 'sol';
      const response = await postBatch(t, publisher.apiKey, list);
      expectValidationError(response, 'list.4321.ipAddress');
      expectValidationError(response, 'list.4998.walletClassify');
      expect(response.body.data.errors).toHaveLength(2);
      await expectNothingStored(before);
    });

    it('should accept 5000 full records (the body limit admits them) and apply every one', async () => {
      const list = Array.from({ length: 5000 }, (_, i) => fullRecord(i));
      expect(JSON.stringify({ list }).length).toBeGreaterThan(900_000);
      const status = await uploadAndApply(t, publisher.apiKey, list);
      expect(status).toEqual(expect.objectContaining({ status: 'done', total: 5000, processed: 5000, attempts: 1, error: null }));
      const rows: { n: number | string }[] = await t.app.get(DataSource).query("SELECT COUNT(*) AS n FROM profiles WHERE messengerUserId LIKE 'full-%'");
      expect(Number(rows[0].n)).toBe(5000);
      expect(await storedProfile(t, 'full-4999')).toEqual({
        messengerUserId: 'full-4999',
        ipAddress: '2001:4860:4860::8888',
        walletAddress: fullRecord(4999).walletAddress,
        walletClassify: 'evm',
        isPremium: false,
        isHighValue: false,
        walletHasBalance: false,
        language: 'en',
      });
    });

    it('should answer 401 without or with an unknown key and 403 for advertiser and partner keys, before checking input', async () => {
      const before = await counts();
      const missing = await t.http().post('/api/v2/openapi/user/profile/batch').send({ list: [] });
      expect([missing.status, missing.body.code]).toEqual([401, 401]);
      const unknown = await postBatch(t, 'not-a-real-key-0123456789abcdef', [{ messengerUserId: 'a' }]);
      expect([unknown.status, unknown.body.code]).toEqual([401, 401]);
      for (const key of [advertiser.apiKey, partner.apiKey]) {
        for (const list of [[{ messengerUserId: 'a' }], []]) {
          const response = await postBatch(t, key, list);
          expect([response.status, response.body.code]).toEqual([403, 403]);
        }
        const status = await t.http().get(PROFILE_STATUS).query({ batchId: UNKNOWN_ID }).set('x-api-key', key);
        expect([status.status, status.body.code]).toEqual([403, 403]);
      }
      await expectNothingStored(before);
    });

    it('should ignore unknown fields of a record (not stored)', async () => {
      const user = newUser('extra');
      await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, isPremium: true, nickname: 'Bob', score: 5 }]);
      expect(await storedProfile(t, user)).toEqual(expect.objectContaining({ messengerUserId: user, isPremium: true }));
    });
  });

  describe('upserts by (publisher, messengerUserId)', () => {
    it('should overwrite the fields a later batch carries, keep those it does not, and clear those it sets to null', async () => {
      const user = newUser('merge');
      await uploadAndApply(t, publisher.apiKey, [
        { messengerUserId: user, ipAddress: '81.2.69.142', walletAddress: 'EQ-first', walletClassify: 'primary', isPremium: true, language: 'DE' },
      ]);
      expect(await storedProfile(t, user)).toEqual({
        messengerUserId: user,
        ipAddress: '81.2.69.142',
        walletAddress: 'EQ-first',
        walletClassify: 'primary',
        isPremium: true,
        isHighValue: null,
        walletHasBalance: null,
        language: 'de',
      });

      await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, isHighValue: true, walletAddress: '0xsecond', walletClassify: 'evm' }]);
      expect(await storedProfile(t, user)).toEqual({
        messengerUserId: user,
        ipAddress: '81.2.69.142',
        walletAddress: '0xsecond',
        walletClassify: 'evm',
        isPremium: true,
        isHighValue: true,
        walletHasBalance: null,
        language: 'de',
      });

      // another publisher's upload of the same user is its own profile: this publisher's stays as it is
      await uploadAndApply(t, otherPublisher.apiKey, [{ messengerUserId: user, isHighValue: false, walletAddress: null }]);
      expect(await storedProfile(t, user, publisher.accountId)).toEqual(expect.objectContaining({ isHighValue: true, walletAddress: '0xsecond' }));
      expect(await storedProfile(t, user, otherPublisher.accountId)).toEqual(
        expect.objectContaining({ isHighValue: false, walletAddress: null, isPremium: null, ipAddress: null, language: null }),
      );

      await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, walletAddress: null, ipAddress: null, isPremium: false }]);
      expect(await storedProfile(t, user, publisher.accountId)).toEqual({
        messengerUserId: user,
        ipAddress: null,
        walletAddress: null,
        walletClassify: null,
        isPremium: false,
        isHighValue: true,
        walletHasBalance: null,
        language: 'de',
      });
    });

    it('should apply records of one batch in order: a later record of the same user wins, also across record shapes', async () => {
      const user = newUser('order');
      const other = newUser('order');
      await uploadAndApply(t, publisher.apiKey, [
        { messengerUserId: user, ipAddress: '8.8.8.8', language: 'en' },
        { messengerUserId: other, isPremium: true },
        { messengerUserId: user, ipAddress: '81.2.69.142', walletAddress: 'EQ1', walletClassify: 'alt' },
        { messengerUserId: user, ipAddress: '85.214.132.117', language: 'fr' },
      ]);
      expect(await storedProfile(t, user)).toEqual(
        expect.objectContaining({ ipAddress: '85.214.132.117', walletAddress: 'EQ1', walletClassify: 'alt', language: 'fr', isPremium: null }),
      );
      expect(await storedProfile(t, other)).toEqual(expect.objectContaining({ isPremium: true, ipAddress: null }));
    });

    it('should write each chunk with one multi-row statement, not a query per record', async () => {
      const statements: string[] = [];
      const dataSource = t.app.get(DataSource);
      const query = dataSource.query.bind(dataSource);
      jest.spyOn(dataSource, 'query').mockImplementation((sql: string, params?: unknown[] | ObjectLiteral) => {
        if (/^INSERT INTO .profiles./.test(sql)) statements.push(sql);
        return query(sql, params);
      });
      const tag = newUser('chunk');
      // 2500 records of mixed shapes in chunks of 1000: 3 statements
      const list = Array.from({ length: 2500 }, (_, i) =>
        i % 3 === 0
          ? { messengerUserId: `${tag}-${i}`, isPremium: true }
          : i % 3 === 1
            ? { messengerUserId: `${tag}-${i}`, walletAddress: `EQ${i}`, walletClassify: 'evm', language: 'en' }
            : { messengerUserId: `${tag}-${i}`, ipAddress: '8.8.8.8' },
      );
      await uploadAndApply(t, publisher.apiKey, list);
      expect(statements).toHaveLength(3);
      expect(await storedProfile(t, `${tag}-2498`)).toEqual(expect.objectContaining({ ipAddress: '8.8.8.8', isPremium: null, walletAddress: null }));
      expect(await storedProfile(t, `${tag}-2497`)).toEqual(expect.objectContaining({ walletAddress: 'EQ2497', language: 'en', isPremium: null }));
      const rows: { n: number | string }[] = await query('SELECT COUNT(*) AS n FROM profiles WHERE messengerUserId LIKE ?', [`${tag}-%`]);
      expect(Number(rows[0].n)).toBe(2500);
    });

    it('should leave every profile as it was when the same batch is applied twice (jobs are safe to run twice)', async () => {
      const user = newUser('twice');
      const batchId = await uploadBatch(t, publisher.apiKey, [{ messengerUserId: user, isPremium: true, walletAddress: 'EQ2', walletClassify: 'evm' }]);
      const done = await waitForBatch(t, publisher.apiKey, batchId);
      expect(done.status).toBe('done');
      const service = t.app.get(ProfilesService);
      await service.applyBatch({ id: batchId, name: 'profile-batch', data: { batchId }, attemptsMade: 0, attempts: 2 });
      expect(await batchStatus(t, publisher.apiKey, batchId)).toEqual(done);
      expect(await storedProfile(t, user)).toEqual(expect.objectContaining({ isPremium: true, walletAddress: 'EQ2', walletClassify: 'evm' }));
    });
  });

  describe('batch status', () => {
    it('should report queued, then processing with counts, then done', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const service = t.app.get(ProfilesService);
      const upsert = service.upsertChunk.bind(service);
      let calls = 0;
      jest.spyOn(service, 'upsertChunk').mockImplementation(async (accountId, rows) => {
        calls += 1;
        if (calls === 2) await gate; // hold the second chunk of the first batch
        return upsert(accountId, rows);
      });
      const tag = newUser('status');
      const first = await uploadBatch(
        t,
        publisher.apiKey,
        Array.from({ length: 1500 }, (_, i) => ({ messengerUserId: `${tag}-a${i}` })),
      );
      const second = await uploadBatch(t, publisher.apiKey, [{ messengerUserId: `${tag}-b` }]);
      const processing = await waitForBatch(t, publisher.apiKey, first, (status) => status.status === 'processing' && status.processed === 1000);
      expect(processing).toEqual(
        expect.objectContaining({ batchId: first, status: 'processing', total: 1500, processed: 1000, attempts: 1, error: null, finishedAt: null }),
      );
      // one job at a time: the second batch waits
      expect(await batchStatus(t, publisher.apiKey, second)).toEqual(
        expect.objectContaining({ batchId: second, status: 'queued', total: 1, processed: 0, attempts: 0, error: null, finishedAt: null }),
      );
      release();
      const done = await waitForBatch(t, publisher.apiKey, first);
      expect(done).toEqual(expect.objectContaining({ status: 'done', total: 1500, processed: 1500, attempts: 1, error: null }));
      expect(done.finishedAt).toBeGreaterThanOrEqual(done.createdAt);
      expect(await waitForBatch(t, publisher.apiKey, second)).toEqual(expect.objectContaining({ status: 'done', total: 1, processed: 1 }));
    });

    it("should answer an unknown batch and another publisher's batch with the same 404, and admins any batch", async () => {
      const batchId = await uploadBatch(t, publisher.apiKey, [{ messengerUserId: newUser('owner') }]);
      await waitForBatch(t, publisher.apiKey, batchId);
      const foreign = await t.http().get(PROFILE_STATUS).query({ batchId }).set('x-api-key', otherPublisher.apiKey);
      const unknown = await t.http().get(PROFILE_STATUS).query({ batchId: UNKNOWN_ID }).set('x-api-key', publisher.apiKey);
      const notFound = { code: 404, message: 'batchId: batch not found', data: { errors: [{ field: 'batchId', message: 'batch not found' }] } };
      expect([foreign.status, foreign.body]).toEqual([404, notFound]);
      expect([unknown.status, unknown.body]).toEqual([404, notFound]);
      expect(await batchStatus(t, ADMIN_KEY, batchId)).toEqual(expect.objectContaining({ batchId, status: 'done', total: 1, processed: 1 }));
    });

    it('should answer 400 naming batchId when it is missing or empty', async () => {
      expectValidationError(await t.http().get(PROFILE_STATUS).set('x-api-key', publisher.apiKey), 'batchId');
      expectValidationError(await t.http().get(PROFILE_STATUS).query({ batchId: '' }).set('x-api-key', publisher.apiKey), 'batchId');
    });
  });

  describe('retries', () => {
    it('should retry a failed job with backoff, show its error meanwhile, and finish it', async () => {
      const service = t.app.get(ProfilesService);
      jest.spyOn(service, 'upsertChunk').mockRejectedValueOnce(new Error('simulated database outage'));
      const user = newUser('retry');
      const batchId = await uploadBatch(t, publisher.apiKey, [{ messengerUserId: user, isHighValue: true }]);
      const waiting = await waitForBatch(t, publisher.apiKey, batchId, (status) => status.attempts === 1 && status.error !== null);
      expect(waiting).toEqual(expect.objectContaining({ status: 'queued', attempts: 1, processed: 0, error: 'simulated database outage', finishedAt: null }));
      const done = await waitForBatch(t, publisher.apiKey, batchId);
      expect(done).toEqual(expect.objectContaining({ status: 'done', attempts: 2, processed: 1, total: 1, error: 'simulated database outage' }));
      // the retry came after the backoff (PROFILE_BATCH_BACKOFF_MS=300)
      expect(done.finishedAt - done.createdAt).toBeGreaterThanOrEqual(300);
      expect(await storedProfile(t, user)).toEqual(expect.objectContaining({ isHighValue: true }));
    });

    it('should mark the batch failed with its error after the last try, storing none of its records', async () => {
      const service = t.app.get(ProfilesService);
      jest.spyOn(service, 'upsertChunk').mockRejectedValue(new Error('simulated disk full'));
      const user = newUser('fail');
      const batchId = await uploadBatch(t, publisher.apiKey, [{ messengerUserId: user, isPremium: true }]);
      const failed = await waitForBatch(t, publisher.apiKey, batchId);
      expect(failed).toEqual(expect.objectContaining({ status: 'failed', attempts: 2, processed: 0, total: 1, error: 'simulated disk full' }));
      expect(failed.finishedAt).toEqual(expect.any(Number));
      expect(await storedProfile(t, user)).toBeNull();
    });
  });
});
