import type { INestApplicationContext } from '@nestjs/common';
import { campaignBody } from '../../test/factories/campaign.factory';
import { principalOf, startAppContext } from '../../test/support/app-context';
import type { Principal } from '../accounts/principal';
import { ConflictError, NotFoundError } from '../common/errors';
import { AccountsService } from '../accounts/accounts.service';
import { CampaignsService } from './campaigns.service';
import type { CampaignCreateDto } from './dto/campaign.dto';

const principal = (accountId: string, roles: Principal['roles'] = ['advertiser']) => principalOf(accountId, roles);
let alice: Principal;
let bob: Principal;
let admin: Principal;
const body = (overrides: Parameters<typeof campaignBody>[0] = {}) => campaignBody(overrides) as unknown as CampaignCreateDto;

describe(CampaignsService.name, () => {
  let app: INestApplicationContext;
  let campaigns: CampaignsService;

  beforeAll(async () => {
    app = await startAppContext();
    campaigns = app.get(CampaignsService);
    // campaigns copy their owner's time zone: the owners exist
    const accounts = app.get(AccountsService);
    const accountOf = async (name: string, roles: Principal['roles']) => principal((await accounts.createAccount(name, roles)).account.id, roles);
    alice = await accountOf('Alice', ['advertiser']);
    bob = await accountOf('Bob', ['advertiser']);
    admin = await accountOf('Admin', ['admin']);
  });
  afterAll(() => app.close());

  it('should store a new campaign running, at version 1, with every counter and spend at zero', async () => {
    const id = await campaigns.create(alice, body({ name: 'Spring', bidding: { billingType: 'CPC', costPer: 0.5 } }));
    const detail = await campaigns.detail(alice, id);
    expect(detail).toMatchObject({
      campaignId: id,
      name: 'Spring',
      campaignStatus: 'onGoing',
      impressions: 0,
      clicks: 0,
      conversions: 0,
      cost: 0,
      spentToday: 0,
    });
    expect(detail.bidding).toEqual({ billingType: 'CPC', costPer: 0.5 });
  });

  it("should answer another advertiser's campaign exactly like an unknown one, and show it to an admin", async () => {
    const id = await campaigns.create(alice, body());
    await expect(campaigns.detail(bob, id)).rejects.toThrow(NotFoundError);
    await expect(campaigns.detail(bob, 'no-such-campaign')).rejects.toThrow(NotFoundError);
    expect((await campaigns.detail(admin, id)).campaignId).toBe(id);
  });

  it("should list an advertiser's own campaigns only, newest first, and every campaign to an admin", async () => {
    const mine = [await campaigns.create(bob, body({ name: 'B1' })), await campaigns.create(bob, body({ name: 'B2' }))];
    const [rows, total] = await campaigns.list(bob, 0, 10);
    expect(total).toBe(2);
    expect(rows.map((row) => row.id)).toEqual([...mine].reverse());
    const [, all] = await campaigns.list(admin, 0, 100);
    expect(all).toBeGreaterThanOrEqual(4);
  });

  it('should pause, start and end a campaign, and refuse to start it once ended', async () => {
    const id = await campaigns.create(alice, body());
    await campaigns.setStatus(alice, id, 'paused');
    expect((await campaigns.detail(alice, id)).campaignStatus).toBe('paused');
    await campaigns.setStatus(alice, id, 'start');
    expect((await campaigns.detail(alice, id)).campaignStatus).toBe('onGoing');
    await campaigns.setStatus(alice, id, 'end');
    await campaigns.setStatus(alice, id, 'end');
    await expect(campaigns.setStatus(alice, id, 'start')).rejects.toThrow(ConflictError);
    expect((await campaigns.detail(alice, id)).campaignStatus).toBe('ended');
  });

  it('should apply an edit to what it names and leave the rest as it was', async () => {
    const id = await campaigns.create(alice, body({ name: 'Before' }));
    const before = await campaigns.detail(alice, id);
    const after = await campaigns.update(alice, { campaignId: id, name: 'After' } as Parameters<CampaignsService['update']>[1]);
    expect(after).toMatchObject({ name: 'After', budget: before.budget, bidding: before.bidding, targeting: before.targeting, impressions: 0 });
    expect(after.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
  });
});
