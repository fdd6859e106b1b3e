'use strict';
/**
 * `node bench/probes/post-garbage.js`: the two V8 pitfalls of Node 20 found on the click route (docs/PERFORMANCE.md#the-post-routes-garbage), each measured on a bare Fastify server of its own, with and without the service's fix:
 *
 * - Node's AsyncResource#bind, which Fastify's content-type parser calls once per request with a body: every POST
 *   request outlives its scavenges (src/common/lean-async-resource-bind.ts);
 * - an object literal that starts with a spread and goes on (`{ ...facts, now }`), built once per request: a hidden
 *   class per object (src/common/with-fields.ts).
 *
 * Each variant runs in a fresh process (`--max-semi-space-size=32`, as `npm start`, and `--trace-gc-nvp`) under
 * autocannon, 50 connections, a 200-byte JSON body, POST_GARBAGE_DURATION seconds (8); printed: POSTs a second, the
 * scavenges, their mean pause and the MB they promoted to the old generation per second. Needs a built service (`npm
 * run build`: the fixes are loaded from dist/).
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const autocannon = require('autocannon');

const ROOT = path.join(__dirname, '..', '..');
const DURATION = Number(process.env.POST_GARBAGE_DURATION || 8);
const PORT = 4117;

/** The server of one variant: `bind` node|lean, `build` spread|withFields|none (what the handler builds per request). */
function serverSource(bind, build) {
  return `
    ${bind === 'lean' ? `require(${JSON.stringify(path.join(ROOT, 'dist/src/common/lean-async-resource-bind.js'))}).installLeanAsyncResourceBind();` : ''}
    const { withFields } = require(${JSON.stringify(path.join(ROOT, 'dist/src/common/with-fields.js'))});
    const app = require('fastify')({ logger: false });
    const facts = (body) => ({ campaignId: body.campaignId, adId: body.adId, userId: body.messengerUserId });
    let sink = 0;
    app.post('/*', (request, reply) => {
      const built = ${build === 'spread' ? '{ ...facts(request.body), now: Date.now() }' : build === 'withFields' ? 'withFields(facts(request.body), { now: Date.now() })' : 'null'};
      if (built) sink += built.now & 1;
      reply.header('content-type', 'application/json; charset=utf-8').send('{"status":"success","msg":"click counted"}');
    });
    app.listen({ port: ${PORT}, host: '127.0.0.1' }).then(() => process.stdout.write('ready\\n'));
  `;
}

async function measure(bind, build) {
  const child = spawn(process.execPath, ['--max-semi-space-size=32', '--trace-gc-nvp', '-e', serverSource(bind, build)], { cwd: ROOT });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  while (!output.includes('ready')) await new Promise((resolve) => setTimeout(resolve, 50));
  const startAt = output.length;
  const body = JSON.stringify({
    eventType: 'click',
    eventData: { adBlockId: 'blk_0123456789abcdef', adId: 'ad_cmp_0123456789abcdef', campaignId: 'cmp_0123456789abcdef', messengerUserId: 'u1234567' },
  });
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}/api/v2/openapi/ad/event/report`,
    method: 'POST',
    connections: 50,
    duration: DURATION,
    headers: { 'content-type': 'application/json' },
    body,
  });
  child.kill();
  const scavenges = output
    .slice(startAt)
    .split('\n')
    .filter((line) => line.includes('gc=s '))
    .map((line) => ({ pause: Number(/ pause=([\d.]+)/.exec(line)[1]), promoted: Number(/ promoted=(\d+)/.exec(line)[1]) }));
  const promoted = scavenges.reduce((sum, scavenge) => sum + scavenge.promoted, 0);
  const meanPause = scavenges.reduce((sum, scavenge) => sum + scavenge.pause, 0) / Math.max(1, scavenges.length);
  return { rps: result.requests.average, scavenges: scavenges.length, meanPause, promotedMbPerSecond: promoted / 1024 / 1024 / DURATION };
}

async function main() {
  const variants = [
    ['node', 'none', "Node 20's bind (bare Fastify before the fix)"],
    ['lean', 'none', 'lean bind (the service, the bench yardsticks)'],
    ['lean', 'spread', 'lean bind + `{ ...facts, now }` per request'],
    ['lean', 'withFields', 'lean bind + `withFields(facts, { now })` per request'],
  ];
  for (const [bind, build, name] of variants) {
    const row = await measure(bind, build);
    process.stdout.write(
      `${name}: ${row.rps.toFixed(0)} POST/s, ${row.scavenges} scavenges, mean pause ${row.meanPause.toFixed(1)} ms, ` +
        `${row.promotedMbPerSecond.toFixed(1)} MB/s promoted\n`,
    );
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
