import type { INestApplicationContext } from '@nestjs/common';
import { principalOf, startAppContext } from '../../test/support/app-context';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { NotFoundError, ValidationError } from '../common/errors';
import type { RequestFacts } from '../common/request-facts';
import { ClicksService } from './clicks.service';

const BROWSER = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const facts: RequestFacts = { ip: '203.0.113.7', userAgent: BROWSER, acceptLanguage: 'en', origin: undefined, header: () => undefined };
const publisher = principalOf('acc-publisher', ['publisher']);
const otherPublisher = principalOf('acc-other', ['publisher']);

describe(ClicksService.name, () => {
  let app: INestApplicationContext;
  let clicks: ClicksService;
  let adBlockId: string;

  beforeAll(async () => {
    app = await startAppContext();
    clicks = app.get(ClicksService);
    adBlockId = await app.get(AdBlocksService).create(publisher, { name: 'Level end' });
  });
  afterAll(() => app.close());

  const event = (fields: Partial<{ adId: string; campaignId: string; adBlockId: string }> = {}) => ({
    adBlockId,
    messengerUserId: 'u-1',
    adId: 'ad_00000000000000000000000000',
    campaignId: '00000000000000000000000000',
    eventType: 'click',
    ...fields,
  });

  it('should refuse a click no impression was served for, naming eventData', async () => {
    const refused = clicks.reportClick(publisher, event(), facts);
    await expect(refused).rejects.toThrow(ValidationError);
    await expect(refused).rejects.toMatchObject({ errors: [{ field: 'eventData', message: 'no matching impression' }] });
  });

  it("should answer a click on another publisher's block like an unknown block", async () => {
    await expect(clicks.reportClick(otherPublisher, event(), facts)).rejects.toThrow(NotFoundError);
  });

  it('should answer a test ad without counting it', async () => {
    await expect(clicks.reportClick(publisher, event({ adId: 'test_ad_1' }), facts)).resolves.toEqual({ status: 'success', msg: 'test ad: not counted' });
  });
});
