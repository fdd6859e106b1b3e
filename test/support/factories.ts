/**
 * The e2e suite's factories: the accounts, keys, ad blocks and campaigns a test starts from, made through the API
 * (as an integrator makes them), with defaults that serve: a campaign open to every user and live from yesterday for
 * 30 days, a block with a name. Overrides say only what a test is about. The campaign body alone (no application,
 * for unit specs and the reliability suite too) is test/factories/campaign.factory.ts.
 */
import { campaignBody } from '../factories/campaign.factory';
import { ADMIN_KEY, TestApp } from './test-app';

export { campaignBody };

const DAY = 24 * 60 * 60 * 1000;

export type Role = 'advertiser' | 'publisher' | 'partner' | 'admin';
export interface Account {
  accountId: string;
  apiKey: string;
}

/** Creates an account through the admin API and answers its id and first key (`full` scope). */
export async function createAccount(t: TestApp, roles: string[], name = `account ${roles.join('+')}`): Promise<Account> {
  const response = await t.http().post('/api/v2/admin/accounts').set('x-api-key', ADMIN_KEY).send({ name, roles }).expect(200);
  return response.body.data;
}

/**
 * The accounts a file starts with, under the names it uses: `{ publisher: ['publisher', 'Publisher P'], rival:
 * 'advertiser' }` (a role, or a role and the account's name). Made one after another, in the order given, so lists
 * that show the newest first show them in reverse order.
 */
export async function createAccounts<Name extends string>(t: TestApp, cast: Record<Name, Role | [Role, string]>): Promise<Record<Name, Account>> {
  const made = {} as Record<Name, Account>;
  for (const [name, spec] of Object.entries(cast) as [Name, Role | [Role, string]][]) {
    const [role, accountName] = Array.isArray(spec) ? spec : [spec, undefined];
    made[name] = await createAccount(t, [role], accountName);
  }
  return made;
}

/** Issues another key of the caller's own account (self-service): a `serve` key by default, as a frontend uses. */
export async function createKey(
  t: TestApp,
  apiKey: string,
  body: { scope?: 'full' | 'serve'; label?: string; allowedOrigins?: string[] } = { scope: 'serve' },
): Promise<{ keyId: string; apiKey: string }> {
  const response = await t.http().post('/api/v2/openapi/account/keys').set('x-api-key', apiKey).send(body).expect(200);
  return response.body.data;
}

export async function createAdBlock(t: TestApp, apiKey: string, name = 'Home banner'): Promise<string> {
  const response = await t.http().post('/api/v2/openapi/ad/block/create').set('x-api-key', apiKey).send({ name }).expect(200);
  return response.body.data.adBlockId;
}

export async function createCampaign(t: TestApp, apiKey: string, body: object): Promise<string> {
  const response = await t.http().post('/api/v2/openapi/ad/campaign/create').set('x-api-key', apiKey).send(body);
  if (response.status !== 200) throw new Error(`campaign create failed: ${JSON.stringify(response.body)}`);
  return response.body.data.campaignId;
}

/**
 * A campaign body without any targeting (every user matches), live from `now - 1 day` for 30 days, unless the
 * overrides say otherwise. `now` should be the service clock's time when the test moves it.
 */
export function openCampaign(overrides: Parameters<typeof campaignBody>[0] = {}, now: number = Date.now()): ReturnType<typeof campaignBody> {
  return campaignBody({
    ...overrides,
    targeting: { includedRegions: [], includedLanguages: [], platform: 'All', ...overrides.targeting },
    budget: { startTime: now - DAY, endTime: now + 30 * DAY, ...overrides.budget },
  });
}
