'use strict';
/**
 * The yardstick: a bare Fastify server with no database, no Redis, no auth, answering fixed JSON as large as the
 * service's own answers, measured at the start of the run (bench/lib/answers.js). The benchmark reports the service's throughput as a
 * share of this one's: both then cost the load generator the same to read.
 */
const Fastify = require('fastify');
// The service's own fix for Node 20's AsyncResource#bind (src/common/lean-async-resource-bind.ts): without it every
// POST's request outlives its scavenges here too, and the yardstick would be a handicapped Fastify.
require(require('node:path').join(__dirname, '..', '..', 'dist/src/common/lean-async-resource-bind.js')).installLeanAsyncResourceBind();

const { fetchBody: FETCH_BODY, clickBody: CLICK_BODY } = require('./answers').answerBodies();

const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(FETCH_BODY);
});
app.post('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(CLICK_BODY);
});
app.listen({ port: Number(process.env.PORT ?? 3999), host: '127.0.0.1' }).then(() => {
  process.stdout.write(`ready: GET answers ${FETCH_BODY.length} bytes (${process.env.BARE_FETCH_ADS || 5} ads), POST ${CLICK_BODY.length} bytes\n`);
});
