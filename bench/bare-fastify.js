'use strict';
/**
 * The yardstick: a bare Fastify server answering a fixed JSON of about 600 bytes (roughly one served ad answer),
 * with no database, no Redis, no auth. The benchmark reports the service's throughput as a share of this one's.
 */
const Fastify = require('fastify');

const ad = (i) => ({
  adBlockId: '01jbenchblock0000000000000',
  adId: `ad_01jbenchcampaign00000000${i}`,
  campaignId: `01jbenchcampaign00000000${i}`,
  icon: 'https://cdn.example.com/icon.png',
  image: 'https://cdn.example.com/ad.png',
  text: 'Play the best puzzle game',
  brandName: 'Acme Games',
  buttonText: 'Play now',
  destination: { actionType: 'visit.website', url: 'https://example.com/landing' },
});
const BODY = JSON.stringify({ code: 0, message: 'success', data: { msg: '2 ads', success: true, ads: [ad(1), ad(2)] } });

const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(BODY);
});
app.post('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(BODY);
});
app.listen({ port: Number(process.env.PORT ?? 3999), host: '127.0.0.1' }).then(() => {
  process.stdout.write(`ready ${BODY.length} bytes\n`);
});
