import { ClickEventDataDto, ClickReportDto } from '../clicks/dto/click.dto';
import { AdFetchQueryDto } from '../serving/dto/serving.dto';
import { validateWithDecorators } from './validation.pipe';

// Deterministic generator so a failure can be reproduced.
let state = 7;
const random = () => {
  state = (state * 1103515245 + 12345) & 0x7fffffff;
  return state / 0x7fffffff;
};
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
/** Mostly the first (valid) value, so that whole inputs are often valid and the quick path is exercised. */
const mostly = <T>(values: readonly T[]): T => (random() < 0.7 ? values[0] : pick(values));

const ids = (max: number) => [
  'abc',
  '01jd3k5m8q9r2s4t6v8w0x2y4z',
  'x'.repeat(max),
  'x'.repeat(max + 1),
  '😀'.repeat(max / 2 + 1), // more UTF-16 units than the cap, fewer code points
  '',
  ' ',
  5,
  null,
  undefined,
  ['abc'],
  { id: 'abc' },
  true,
];
const limits = ['1', '5', '9', '0', '10', '5 ', ' 5', '05', '5.0', '-1', 'five', '', 5, 5.5, null, undefined, ['5'], '٥'];
const types = ['messenger', 'Messenger', 'telegram', '', null, undefined, ['messenger']];

function expectAgreement(metatype: new () => unknown, value: unknown, fast: unknown): boolean {
  if (fast === null) return false;
  // Whatever the quick check accepts, the decorators accept too, and they build the same instance.
  const slow = validateWithDecorators(metatype, value);
  expect(fast).toBeInstanceOf(metatype);
  expect(fast).toEqual(slow);
  return true;
}

describe('quick checks of hot-route DTOs agree with their decorators', () => {
  it('AdFetchQueryDto: 5,000 generated queries', () => {
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const query: Record<string, unknown> = {
        adBlockId: mostly(ids(64)),
        openId: mostly(ids(128)),
        type: mostly(types),
        limit: random() < 0.5 ? pick(limits.slice(0, 3)) : pick(limits),
      };
      if (random() < 0.2) query.extra = 'dropped';
      for (const key of Object.keys(query)) if (random() < 0.05) delete query[key];
      if (expectAgreement(AdFetchQueryDto, query, AdFetchQueryDto.acceptFast(query))) accepted += 1;
    }
    // The common valid shape must take the quick path, or it would be pointless.
    expect(accepted).toBeGreaterThan(500);
    expect(AdFetchQueryDto.acceptFast({ adBlockId: 'b', openId: 'u', type: 'messenger', limit: '3' })).toEqual(
      Object.assign(new AdFetchQueryDto(), { adBlockId: 'b', openId: 'u', type: 'messenger', limit: 3 }),
    );
  });

  it('ClickReportDto: 5,000 generated bodies', () => {
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const eventData: Record<string, unknown> = {
        adBlockId: mostly(ids(64)),
        messengerUserId: mostly(ids(128)),
        adId: mostly(ids(64)),
        campaignId: mostly(ids(64)),
      };
      if (random() < 0.2) eventData.extra = 'dropped';
      const body: Record<string, unknown> = {
        eventType: mostly(['click', 'Click', 'conversion', '', null, undefined]),
        eventData: pick([eventData, eventData, eventData, null, [eventData], 'data', undefined]),
      };
      if (random() < 0.1) body.extra = 1;
      if (expectAgreement(ClickReportDto, body, ClickReportDto.acceptFast(body))) accepted += 1;
    }
    expect(accepted).toBeGreaterThan(500);
  });

  it('never accepts what the decorators refuse, and leaves the wording of errors to them', () => {
    expect(AdFetchQueryDto.acceptFast({ adBlockId: 'b', openId: 'u', type: 'messenger', limit: '0' })).toBeNull();
    expect(() => validateWithDecorators(AdFetchQueryDto, { adBlockId: 'b', openId: 'u', type: 'messenger', limit: '0' })).toThrow(
      'limit must be an integer from 1 to 9',
    );
    expect(ClickReportDto.acceptFast({ eventType: 'click', eventData: { adBlockId: 'b' } })).toBeNull();
    expect(ClickReportDto.acceptFast({ eventType: 'click', eventData: new ClickEventDataDto() })).toBeNull();
  });
});
