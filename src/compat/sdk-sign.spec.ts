import { createHash } from 'node:crypto';
import { isSdkSign, SDK_SALT, sdkSign } from './sdk-sign';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('the ton-ai-sdk sign', () => {
  it("should use the SDK's salt: each char code of Ton.AI times three, in hex", () => {
    expect(SDK_SALT).toBe('fc14d14a8ac3db');
  });

  it('should sign the fields sorted by name, the ones the SDK left undefined as `undefined`, then the app key and salt', () => {
    const eventData = { openId: '55', type: 'telegram', timestamp: 1700000000000 };
    expect(sdkSign(eventData, ['campaignId', 'openId', 'type', 'timestamp'], 'app-1')).toBe(
      md5('campaignId=undefined&openId=55&timestamp=1700000000000&type=telegram&appKey=app-1&salt=fc14d14a8ac3db'),
    );
  });

  it('should sign a field the body carries beyond the listed ones (num), and not one it does not carry', () => {
    const withNum = { openId: '55', num: 2, uuid: undefined };
    expect(sdkSign(withNum, ['openId'], 'k')).toBe(md5('num=2&openId=55&appKey=k&salt=fc14d14a8ac3db'));
  });

  it('should accept only the same sign (any case), not one of other data or another key', () => {
    const eventData = { openId: '55' };
    const sign = sdkSign(eventData, ['openId'], 'k');
    expect(isSdkSign(sign, eventData, ['openId'], 'k')).toBe(true);
    expect(isSdkSign(sign.toUpperCase(), eventData, ['openId'], 'k')).toBe(true);
    expect(isSdkSign(sign, { openId: '56' }, ['openId'], 'k')).toBe(false);
    expect(isSdkSign(sign, eventData, ['openId'], 'other')).toBe(false);
    expect(isSdkSign(sign.slice(1), eventData, ['openId'], 'k')).toBe(false);
  });
});
