import type { ServedAdDto } from './dto/serving.dto';

/** Prefix of test ads: clicks on them are answered success and never counted. */
export const TEST_AD_PREFIX = 'test_';

/** Well-formed synthetic ads for `debug: true`: never billed or counted. */
export function testAds(adBlockId: string, limit: number): ServedAdDto[] {
  return Array.from({ length: limit }, (_, i) => ({
    adBlockId,
    adId: `${TEST_AD_PREFIX}ad_${i + 1}`,
    campaignId: `${TEST_AD_PREFIX}campaign_${i + 1}`,
    icon: `https://example.com/adnet-test/icon-${i + 1}.png`,
    image: `https://example.com/adnet-test/image-${i + 1}.png`,
    text: `Test ad ${i + 1}: this is what an ad looks like`,
    brandName: 'Test brand',
    buttonText: 'Open',
    destination: { actionType: 'visit.website', url: `https://example.com/adnet-test/landing-${i + 1}` },
  }));
}

/** The `debug` header is true for `true` or `1`, in any case; anything else is false. */
export function isDebug(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^(true|1)$/i.test(value.trim());
}
