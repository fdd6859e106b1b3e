import type { INestApplicationContext } from '@nestjs/common';
import { principalOf, startAppContext } from '../../test/support/app-context';
import { ConflictError, NotFoundError } from '../common/errors';
import type { ExchangeCampaignCreateDto, ExchangeCampaignUpdateDto } from './dto/exchange.dto';
import { ExchangeCampaign } from './entities/exchange-campaign.entity';
import { ExchangeCampaignsService, normalizeTargeting, toResponse } from './exchange-campaigns.service';

describe('exchange campaign shapes', () => {
  describe(normalizeTargeting.name, () => {
    it('should fill every list, normalise code case and drop repeats', () => {
      expect(normalizeTargeting({}, { includedRegions: ['us', 'US', 'de'], includedLanguages: ['EN'] })).toEqual({
        includedRegions: ['US', 'DE'],
        excludedRegions: [],
        includedLanguages: ['en'],
        excludedLanguages: [],
      });
      expect(normalizeTargeting({}, undefined)).toEqual({ includedRegions: [], excludedRegions: [], includedLanguages: [], excludedLanguages: [] });
    });

    it('should replace the lists given and keep the others', () => {
      const previous = { includedRegions: ['US'], excludedRegions: ['CN'], includedLanguages: ['en'], excludedLanguages: [] };
      expect(normalizeTargeting(previous, { includedRegions: [], excludedLanguages: ['fr'] })).toEqual({
        includedRegions: [],
        excludedRegions: ['CN'],
        includedLanguages: ['en'],
        excludedLanguages: ['fr'],
      });
    });
  });

  describe(toResponse.name, () => {
    it('should answer the balance as clicks sent minus received and ctr over its own impressions', () => {
      const campaign = Object.assign(new ExchangeCampaign(), {
        id: 'x1',
        accountId: 'p1',
        name: 'n',
        status: 'onGoing',
        icon: 'https://x/i.png',
        image: null,
        text: 't',
        actionType: 'visit.website',
        destinationUrl: 'https://x',
        targeting: { includedRegions: [], excludedRegions: [], includedLanguages: [], excludedLanguages: [] },
        impressions: 8,
        impressionsSent: 20,
        clicksSent: 3,
        clicksReceived: 2,
        version: 1,
        createdAt: 1,
        updatedAt: 2,
      });
      expect(toResponse(campaign)).toEqual(expect.objectContaining({ exchangeCampaignId: 'x1', id: 'x1', userId: 'p1', balance: 1, ctr: 0.25, image: null }));
      expect(toResponse({ ...campaign, impressions: 0 } as ExchangeCampaign).ctr).toBe(0);
    });
  });
});

const alice = principalOf('acc-alice', ['partner']);
const bob = principalOf('acc-bob', ['partner']);
const admin = principalOf('acc-admin', ['admin']);
const body = (name: string) =>
  ({
    name,
    icon: 'https://cdn.example.com/icon.png',
    text: 'Race your friends',
    destination: { actionType: 'open.miniapp', url: 'https://t.me/racing_bot/app' },
  }) as ExchangeCampaignCreateDto;

describe(ExchangeCampaignsService.name, () => {
  let app: INestApplicationContext;
  let exchange: ExchangeCampaignsService;

  beforeAll(async () => {
    app = await startAppContext();
    exchange = app.get(ExchangeCampaignsService);
  });
  afterAll(() => app.close());

  it('should store a new exchange campaign running, its ledger at zero, for its partner only', async () => {
    const id = await exchange.create(alice, body('Racing'));
    expect(await exchange.detail(alice, id)).toMatchObject({
      exchangeCampaignId: id,
      name: 'Racing',
      campaignStatus: 'onGoing',
      impressions: 0,
      clicksSent: 0,
      clicksReceived: 0,
      balance: 0,
    });
    await expect(exchange.detail(bob, id)).rejects.toThrow(NotFoundError);
    await expect(exchange.detail(admin, id)).resolves.toMatchObject({ exchangeCampaignId: id });
    const [mine, total] = await exchange.list(alice, 0, 10);
    expect([mine.map((item) => item.exchangeCampaignId), total]).toEqual([[id], 1]);
    expect((await exchange.list(bob, 0, 10))[1]).toBe(0);
  });

  it("should change a campaign's text in place, and never an ended one", async () => {
    const id = await exchange.create(alice, body('Puzzle swap'));
    const updated = await exchange.update(alice, { exchangeCampaignId: id, text: 'Solve it' } as ExchangeCampaignUpdateDto);
    expect(updated).toMatchObject({ exchangeCampaignId: id, name: 'Puzzle swap', text: 'Solve it' });
    await expect(exchange.update(bob, { exchangeCampaignId: id, text: 'Mine now' } as ExchangeCampaignUpdateDto)).rejects.toThrow(NotFoundError);

    await exchange.setStatus(alice, id, 'end');
    expect((await exchange.detail(alice, id)).campaignStatus).toBe('ended');
    await expect(exchange.update(alice, { exchangeCampaignId: id, text: 'Back again' } as ExchangeCampaignUpdateDto)).rejects.toThrow(ConflictError);
    await expect(exchange.setStatus(alice, id, 'start')).rejects.toThrow(ConflictError);
  });
});
