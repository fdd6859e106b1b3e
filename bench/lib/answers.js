'use strict';
/**
 * The fixed answers of the bench's own servers (bare Fastify, the floors): JSON as large as the service's answers,
 * measured at the start of each run and passed as BARE_FETCH_BYTES with BARE_FETCH_ADS ads (GET, the served-ads
 * answer) and BARE_CLICK_BYTES (POST, the click answer). Not part of the service.
 */
const ad = (i) => ({
  adBlockId: '01jbenchblock0000000000000',
  adId: `ad_01jbenchcampaign00000000${i}`,
  campaignId: `01jbenchcampaign00000000${i}`,
  icon: 'https://cdn.example.com/icon.png',
  image: 'https://cdn.example.com/ad.png',
  text: '',
  brandName: 'Acme Games',
  buttonText: 'Play now',
  destination: { actionType: 'visit.website', url: 'https://example.com/landing' },
});

/** `build(padding)` with padding grown until the JSON is `bytes` long (or as short as it gets). */
function sized(bytes, build) {
  const bare = JSON.stringify(build('')).length;
  return JSON.stringify(build('x'.repeat(Math.max(0, bytes - bare))));
}

/** @returns {{fetchBody: string, clickBody: string}} the answers sized by BARE_FETCH_BYTES, BARE_FETCH_ADS, BARE_CLICK_BYTES */
function answerBodies(env = process.env) {
  const fetchBytes = Number(env.BARE_FETCH_BYTES || 2080);
  const fetchAds = Number(env.BARE_FETCH_ADS || 5);
  const clickBytes = Number(env.BARE_CLICK_BYTES || 80);
  const fetchBody = sized(fetchBytes, (padding) => {
    const ads = Array.from({ length: fetchAds }, (_, i) => ad(i + 1));
    if (ads.length > 0) ads[0].text = padding;
    return { code: 0, message: 'success', data: { msg: `${fetchAds} ads`, success: true, ads } };
  });
  const clickBody = sized(clickBytes, (padding) => ({ code: 0, message: 'success', data: { status: 'success', msg: padding } }));
  return { fetchBody, clickBody };
}

module.exports = { answerBodies };
