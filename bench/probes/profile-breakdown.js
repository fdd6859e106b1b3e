'use strict';
/**
 * Where a service process's CPU went, by layer, from a V8 CPU profile (`BENCH_SERVICE_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=/tmp/prof"` on bench/serving.js). Not part of the service.
 *
 *   node bench/probes/profile-breakdown.js /tmp/prof/CPU.….cpuprofile               # busy samples per second, to find the runs
 *   node bench/probes/profile-breakdown.js /tmp/prof/CPU.….cpuprofile 17.9 12       # the layers between 17.9 s and 12 s
 *                                                                             # before the profile's end
 *   PROFILE_FUNCTIONS=40 node bench/probes/profile-breakdown.js … 17.9 12            # and the 40 functions with the most
 *                                                                             # samples of their own, then the 40 with
 *                                                                             # the most under them (inclusive)
 * Each busy sample (idle left out) goes to one layer by the function it was taken in: socket and file writes (the
 * system calls, which V8 shows as the native function doing them), Node's own modules, Fastify, the Redis and MySQL
 * clients, the garbage collector, and the service's code by feature folder. The bench runs its phases in a fixed
 * order (bench/serving.js), so the runs are easy to tell apart in the per-second list.
 */
const fs = require('node:fs');

const SYSTEM_CALLS = /^(writev|writeUtf8String|writeBuffer|writeString|writeLatin1String|readStart|onStreamRead)$/;

function layerOf({ functionName, url }) {
  if (functionName === '(idle)') return null;
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (!url && SYSTEM_CALLS.test(functionName)) return 'socket and file writes (system calls)';
  if (functionName === '(program)') return 'V8 (compiler, runtime)';
  if (/\/(ioredis|redis-parser|denque|@ioredis)\//.test(url)) return 'Redis client (ioredis)';
  if (/\/(mysql2|typeorm|sql-escaper|sqlstring|better-sqlite3)\//.test(url)) return 'database client (mysql2, TypeORM, better-sqlite3)';
  if (/\/(fastify|find-my-way|avvio|secure-json-parse|fast-querystring|@fastify|light-my-request|toad-cache)\//.test(url)) return 'Fastify';
  if (url.includes('/@nestjs/')) return 'Nest';
  if (url.startsWith('node:') || !url) return "Node's own modules and natives (HTTP, streams, timers, regular expressions)";
  if (url.includes('/dist/src/')) return `service: ${url.split('/dist/src/')[1].split('/')[0].replace(/\.js$/, '')}`;
  if (url.includes('node_modules/')) return `other package: ${url.split('node_modules/').pop().split('/')[0]}`;
  return `other: ${url}`;
}

function main() {
  const [file, from, to] = process.argv.slice(2);
  if (!file) throw new Error('usage: node bench/probes/profile-breakdown.js <file.cpuprofile> [fromSecondsBeforeEnd toSecondsBeforeEnd]');
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const samples = [];
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    samples.push({ secondsBeforeEnd: (profile.endTime - time) / 1e6, layer: layerOf(nodes.get(profile.samples[i]).callFrame) });
  }
  if (from === undefined) {
    const perSecond = new Map();
    for (const { secondsBeforeEnd, layer } of samples) {
      const second = Math.floor(secondsBeforeEnd);
      const entry = perSecond.get(second) ?? { busy: 0, all: 0 };
      entry.all++;
      if (layer) entry.busy++;
      perSecond.set(second, entry);
    }
    const line = [...perSecond]
      .sort((a, b) => a[0] - b[0])
      .map(([second, { busy, all }]) => `${second}:${Math.round((100 * busy) / all)}%`)
      .join(' ');
    process.stdout.write(`busy share of each second, by seconds before the profile's end:\n${line}\n`);
    return;
  }
  const counts = new Map();
  let busy = 0;
  for (const { secondsBeforeEnd, layer } of samples) {
    if (secondsBeforeEnd > Number(from) || secondsBeforeEnd < Number(to) || !layer) continue;
    busy++;
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
  }
  process.stdout.write(`${busy} busy samples between ${from} s and ${to} s before the end:\n`);
  for (const [layer, count] of [...counts].sort((a, b) => b[1] - a[1])) {
    if (count / busy >= 0.003) process.stdout.write(`${((100 * count) / busy).toFixed(1).padStart(5)} %  ${layer}\n`);
  }
  const functions = Number(process.env.PROFILE_FUNCTIONS || 0);
  if (functions > 0) writeFunctions(profile, nodes, Number(from), Number(to), functions);
}

/**
 * The functions of the window by their own samples (self) and by the samples at or under them (inclusive: a
 * function counted once per sample however often it recurs in the stack), as shares of the busy samples.
 */
function writeFunctions(profile, nodes, from, to, top) {
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const nameOf = ({ callFrame }) => `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`;
  const self = new Map();
  const inclusive = new Map();
  let busy = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    const secondsBeforeEnd = (profile.endTime - time) / 1e6;
    const node = nodes.get(profile.samples[i]);
    if (secondsBeforeEnd > from || secondsBeforeEnd < to || !layerOf(node.callFrame)) continue;
    busy++;
    self.set(nameOf(node), (self.get(nameOf(node)) ?? 0) + 1);
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parentOf.get(id)) {
      const name = nameOf(nodes.get(id));
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    }
  }
  for (const [title, counts] of [
    ['own samples', self],
    ['samples at or under them', inclusive],
  ]) {
    process.stdout.write(`\nfunctions by ${title}:\n`);
    for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(`${((100 * count) / busy).toFixed(1).padStart(5)} %  ${name}\n`);
    }
  }
}

main();
