'use strict';
/**
 * The yardstick: a bare Fastify server with no database, no Redis, no auth, answering fixed JSON as large as the
 * service's own answers, measured at the start of the run (BARE_FETCH_BYTES with BARE_FETCH_ADS ads for GET, the
 * served-ads answer; BARE_CLICK_BYTES for POST, the click answer). The benchmark reports the service's throughput as a
 * share of this one's: both then cost the load generator the same to read.
 */
const Fastify = require('fastify');

const FETCH_BYTES = Number(process.env.BARE_FETCH_BYTES || 2080);
const FETCH_ADS = Number(process.env.BARE_FETCH_ADS || 5);
const CLICK_BYTES = Number(process.env.BARE_CLICK_BYTES || 80);

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

const FETCH_BODY = sized(FETCH_BYTES, (padding) => {
  const ads = Array.from({ length: FETCH_ADS }, (_, i) => ad(i + 1));
  if (ads.length > 0) ads[0].text = padding;
  return { code: 0, message: 'success', data: { msg: `${FETCH_ADS} ads`, success: true, ads } };
});
const CLICK_BODY = sized(CLICK_BYTES, (padding) => ({ code: 0, message: 'success', data: { status: 'success', msg: padding } }));

const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(FETCH_BODY);
});
app.post('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(CLICK_BODY);
});
app.listen({ port: Number(process.env.PORT ?? 3999), host: '127.0.0.1' }).then(() => {
  process.stdout.write(`ready: GET answers ${FETCH_BODY.length} bytes (${FETCH_ADS} ads), POST ${CLICK_BODY.length} bytes\n`);
});
