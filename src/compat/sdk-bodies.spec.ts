import { createHash } from 'node:crypto';
import { withCanonicalNames } from '../common/open-api-aliases';
import { RequestValidationPipe } from '../common/validation.pipe';
import {
  SdkAdEventDto,
  SdkAdFetchDto,
  SdkAdVerifyQueryDto,
  SdkCommonEventDto,
  SdkExchangeEventDto,
  SdkExchangeFetchDto,
  SdkExchangeVerifyQueryDto,
  SdkMultiAdFetchDto,
  SdkMultiExchangeFetchDto,
  SdkUserProfileDto,
} from './dto/sdk.dto';
import { isSdkSign, SIGNED_AD_FIELDS, SIGNED_EXCHANGE_FIELDS } from './sdk-sign';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
/** The validated DTO as the compat service hands it to the sign check. */
const fieldsOf = (eventData: object) => eventData as Record<string, unknown>;
const SALT = 'fc14d14a8ac3db';

/** What the ton-ai-sdk 2.2.2 sends, with TON AI's names (telegramUserId, type telegram, walletClassify ton). */
const exchangeConversion = {
  eventType: 'conversion',
  eventData: { telegramUserId: '5512345678', source: 'user', timestamp: 1767225600000 },
  // signed with the two fields SendTonExchangeConversion leaves undefined, which JSON dropped
  sign: md5(
    `inExchangeCampaignId=undefined&outExchangeCampaignId=undefined&source=user&telegramUserId=5512345678&timestamp=1767225600000&appKey=app-1&salt=${SALT}`,
  ),
};
const adClick = {
  eventType: 'click',
  eventData: { campaignId: 'c1', adId: 'ad_c1', adBlockId: 'b1', type: 'telegram', openId: '5512345678', uuid: '2854123301', timestamp: 1767225600000 },
  sign: md5(`adBlockId=b1&adId=ad_c1&campaignId=c1&openId=5512345678&timestamp=1767225600000&type=telegram&uuid=2854123301&appKey=app-1&salt=${SALT}`),
};
const SDK_INPUTS: [new () => object, object][] = [
  [SdkAdEventDto, adClick],
  [SdkExchangeEventDto, exchangeConversion],
  [SdkAdFetchDto, { adBlockId: 'b1', source: 'earn', viewer: { openId: '5512345678', uuid: '1', type: 'telegram' } }],
  [SdkMultiAdFetchDto, { adBlockId: 'b1', limit: 3, viewer: { openId: '5512345678', type: 'telegram' } }],
  [SdkExchangeFetchDto, { exchangeCampaignId: 'x1', source: 'earn', viewer: { telegramUserId: '5512345678' } }],
  [SdkMultiExchangeFetchDto, { exchangeCampaignId: 'x1', limit: 3, viewer: { telegramUserId: '5512345678' } }],
  [SdkUserProfileDto, { openId: '5512345678', type: 'telegram', walletClassify: 'ton', walletAddress: 'UQB' }],
  [SdkCommonEventDto, { eventName: 'level_up', openId: '5512345678', type: 'telegram', eventSource: 'sdk' }],
  [SdkAdVerifyQueryDto, { campaignId: 'c1', openId: '5512345678', type: 'telegram' }],
  [SdkExchangeVerifyQueryDto, { exchangeCampaignId: 'x1', openId: '5512345678' }],
];

describe("the ton-ai-sdk's bodies and the Open API aliases", () => {
  it('should reach the compat DTOs as the SDK sent them: no alias rewrite (the SDK signs its own names)', () => {
    for (const [dto, input] of SDK_INPUTS) {
      const canonical = withCanonicalNames(dto, input);
      expect({ dto: dto.name, value: canonical.value }).toEqual({ dto: dto.name, value: input });
      expect(canonical.value).toBe(input);
    }
  });

  it('should keep the signed fields through the validation pipe, so the sign is checked over what the SDK sent', () => {
    const pipe = new RequestValidationPipe();
    const conversion = pipe.transform(exchangeConversion, { type: 'body', metatype: SdkExchangeEventDto }) as SdkExchangeEventDto;
    expect({ ...conversion.eventData }).toEqual(exchangeConversion.eventData);
    expect(isSdkSign(conversion.sign, fieldsOf(conversion.eventData), SIGNED_EXCHANGE_FIELDS, 'app-1')).toBe(true);
    const click = pipe.transform(adClick, { type: 'body', metatype: SdkAdEventDto }) as SdkAdEventDto;
    expect({ ...click.eventData }).toEqual(adClick.eventData);
    expect(isSdkSign(click.sign, fieldsOf(click.eventData), SIGNED_AD_FIELDS, 'app-1')).toBe(true);
  });
});
