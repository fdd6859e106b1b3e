import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TEST_PROFILE } from '../support/profile';
import { uploadAndApply } from '../support/profile-helpers';
import { IP, UA } from '../support/serving-helpers';
import { createServable, endAllCampaigns, fetchIds, FetchOptions, newUser } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAdBlock, openCampaign, createAccount } from '../support/factories';

type Account = { accountId: string; apiKey: string };
const sorted = (ids: string[]) => [...ids].sort();

describe(`Profiles feed serving's targeting (matching/ad) [${TEST_PROFILE}]`, () => {
  // One database for two application instances: the second starts with an empty serving store and rebuilds it.
  const sqliteFile = join(tmpdir(), `adnet-e2e-profiles-${process.pid}-${randomBytes(4).toString('hex')}.sqlite`);
  const databaseEnv: Record<string, string> = TEST_PROFILE === 'embedded' ? { DATABASE_URL: `sqlite:${sqliteFile}` } : {};
  let t: TestApp;
  let publisher: Account;
  let advertiser: Account;
  let block: string;
  const campaigns: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true', ...databaseEnv });
    publisher = await createAccount(t, ['publisher'], 'Publisher P');
    advertiser = await createAccount(t, ['advertiser'], 'Advertiser A');
    block = await createAdBlock(t, publisher.apiKey, 'Main block');
    await endAllCampaigns(t);
    const targeted: Record<string, Record<string, unknown>> = {
      premium: { messengerPremium: true },
      highValue: { isHighValueUser: true },
      wallet: { userLinkedWallet: true },
      chainWallet: { userLinkedChainWallet: true },
      balance: { userWalletHasBalanceOnChain: true },
      german: { includedLanguages: ['de'] },
      britain: { includedRegions: ['GB'] },
    };
    for (const [name, targeting] of Object.entries(targeted)) {
      campaigns[name] = await createServable(t, advertiser.apiKey, openCampaign({ name, targeting }));
    }
  });
  afterAll(async () => {
    await t.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });
  });

  const fetchAs = (app: TestApp, user: string, options: FetchOptions = {}) =>
    fetchIds(app, publisher.apiKey, block, user, { ip: IP.US, lang: 'fr', ua: UA.Android, ...options }).then(sorted);
  const names = (...keys: string[]) => sorted(keys.map((key) => campaigns[key]));

  it('should serve none of the targeted campaigns to a user without a profile', async () => {
    expect(await fetchAs(t, newUser())).toEqual([]);
  });

  it('should turn each profile field into its targeting flag as soon as the batch is done', async () => {
    const users = {
      premium: newUser('premium'),
      highValue: newUser('high'),
      evm: newUser('evm'),
      primary: newUser('primary'),
      balance: newUser('balance'),
      everything: newUser('all'),
    };
    await uploadAndApply(t, publisher.apiKey, [
      { messengerUserId: users.premium, isPremium: true, isHighValue: false },
      { messengerUserId: users.highValue, isHighValue: true },
      { messengerUserId: users.evm, walletAddress: '0xabc', walletClassify: 'evm' },
      { messengerUserId: users.primary, walletAddress: 'EQabc', walletClassify: 'primary' },
      { messengerUserId: users.balance, walletAddress: 'alt-1', walletClassify: 'alt', walletHasBalance: true },
      {
        messengerUserId: users.everything,
        isPremium: true,
        isHighValue: true,
        walletAddress: 'EQall',
        walletClassify: 'primary',
        walletHasBalance: true,
        language: 'de',
      },
    ]);
    expect(await fetchAs(t, users.premium)).toEqual(names('premium'));
    expect(await fetchAs(t, users.highValue)).toEqual(names('highValue'));
    expect(await fetchAs(t, users.evm)).toEqual(names('wallet'));
    expect(await fetchAs(t, users.primary)).toEqual(names('wallet', 'chainWallet'));
    expect(await fetchAs(t, users.balance)).toEqual(names('wallet', 'balance'));
    expect(await fetchAs(t, users.everything)).toEqual(names('premium', 'highValue', 'wallet', 'chainWallet', 'balance', 'german'));
  });

  it("should take the profile's language before Accept-Language, and Accept-Language when the profile has none", async () => {
    const speaker = newUser('lang');
    const silent = newUser('nolang');
    await uploadAndApply(t, publisher.apiKey, [
      { messengerUserId: speaker, language: 'DE' },
      { messengerUserId: silent, isPremium: false },
    ]);
    expect(await fetchAs(t, speaker, { lang: 'fr-FR' })).toEqual(names('german'));
    expect(await fetchAs(t, silent, { lang: 'fr-FR' })).toEqual([]);
    expect(await fetchAs(t, silent, { lang: 'de-AT' })).toEqual(names('german'));
  });

  it("should use the profile's IP for the region only when the request IP yields no country", async () => {
    const british = newUser('gb');
    await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: british, ipAddress: IP.GB }]);
    // the request comes from the US: the request wins
    expect(await fetchAs(t, british, { ip: IP.US })).toEqual([]);
    // no forwarded address: the loopback test client has no country, so the profile's IP decides
    expect(await fetchAs(t, british, { ip: '' })).toEqual(names('britain'));
    expect(await fetchAs(t, british, { ip: '10.1.2.3' })).toEqual(names('britain'));
    // a user without a profile IP from nowhere matches no region
    expect(await fetchAs(t, newUser(), { ip: '10.1.2.3' })).toEqual([]);
  });

  it('should stop serving a flag once a later batch clears it', async () => {
    const user = newUser('clear');
    await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, isPremium: true, walletAddress: 'EQx', walletClassify: 'primary' }]);
    expect(await fetchAs(t, user)).toEqual(names('premium', 'wallet', 'chainWallet'));
    await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, isPremium: false }]);
    expect(await fetchAs(t, user)).toEqual(names('wallet', 'chainWallet'));
    await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, walletAddress: null }]);
    expect(await fetchAs(t, user)).toEqual([]);
  });

  it('should serve the merged profile when one batch carries a full record and later a partial one for the same user', async () => {
    const repeated = newUser('repeat');
    const single = newUser('single');
    const full = {
      ipAddress: '8.8.8.8',
      walletAddress: 'EQx',
      walletClassify: 'primary',
      isPremium: true,
      isHighValue: false,
      walletHasBalance: false,
      language: 'de',
    };
    await uploadAndApply(t, publisher.apiKey, [
      { messengerUserId: repeated, ...full },
      { messengerUserId: single, ...full, isHighValue: true },
      { messengerUserId: repeated, isPremium: false },
    ]);
    expect(await fetchAs(t, repeated)).toEqual(names('wallet', 'chainWallet', 'german'));
    expect(await fetchAs(t, single)).toEqual(names('premium', 'highValue', 'wallet', 'chainWallet', 'german'));
  });

  it('should rebuild the serving store from the database: at the start of a process whose store is empty, and on demand', async () => {
    const user = newUser('rebuild');
    await uploadAndApply(t, publisher.apiKey, [{ messengerUserId: user, isHighValue: true, language: 'de' }]);
    // a second instance on the same database, with an empty store of its own (new process memory, or a new
    // REDIS_PREFIX standing for a Redis that lost its keys)
    const second = await startTestApp({ TRUST_PROXY: 'true', ...databaseEnv }, { dropSchema: false });
    try {
      expect(await fetchAs(second, user)).toEqual(names('highValue', 'german'));

      const forbidden = await second.http().post('/api/v2/admin/profiles/rebuild-store').set('x-api-key', publisher.apiKey);
      expect([forbidden.status, forbidden.body.code]).toEqual([403, 403]);
      const rebuilt = await second.http().post('/api/v2/admin/profiles/rebuild-store').set('x-api-key', ADMIN_KEY).expect(200);
      const rows: { n: number | string }[] = await second.app.get(DataSource).query('SELECT COUNT(*) AS n FROM profiles');
      expect(rebuilt.body).toEqual({ code: 0, message: 'success', data: { profiles: Number(rows[0].n) } });
      expect(Number(rows[0].n)).toBeGreaterThan(10);
      expect(await fetchAs(second, user)).toEqual(names('highValue', 'german'));
    } finally {
      await second.close();
    }
  });

  (TEST_PROFILE === 'mysql' ? it : it.skip)(
    'should serve a profile written through another process at once, although this process had it in memory',
    async () => {
      // Two more processes on one Redis: `reader` only serves (no queue workers), `writer` applies the batches.
      const shared = { TRUST_PROXY: 'true', REDIS_PREFIX: `adnet-e2e:prof-${randomBytes(4).toString('hex')}:` };
      const writer = await startTestApp(shared, { dropSchema: false });
      const reader = await startTestApp({ ...shared, QUEUE_WORKERS: 'false' }, { dropSchema: false });
      try {
        const user = newUser('cached');
        // the reader keeps "no profile" for this user, then the premium flag, then its removal
        expect(await fetchAs(reader, user)).toEqual([]);
        await uploadAndApply(writer, publisher.apiKey, [{ messengerUserId: user, isPremium: true }]);
        expect(await fetchAs(reader, user)).toEqual(names('premium'));
        await uploadAndApply(writer, publisher.apiKey, [{ messengerUserId: user, isPremium: false, isHighValue: true }]);
        expect(await fetchAs(reader, user)).toEqual(names('highValue'));
      } finally {
        await reader.close();
        await writer.close();
      }
    },
  );
});
