'use strict';
/**
 * Floors for reading the ratios: bare Fastify (the yardstick's answers, as large as the service's: bench/lib/answers.js)
 * plus only the one piece of I/O that a request of each hot route cannot do without, done the way the service does
 * it, on any path (the bench sends them the service's own requests). Not part of the service.
 *
 * GET  /*   one Redis read per request (ioredis with auto-pipelining; none without REDIS_URL), then the fetch answer:
 *           every ad request must read or write state shared by all processes (exclusions, served marks).
 * POST /*   one row per request committed to MySQL before the click answer, group-committed like the click
 *           ledger (one transaction at a time holds every row waiting when it starts), then the answer.
 *           FLOOR_COMMITS=2 lets two transactions be in flight (measured here: 14,800 → 15,500 rows/s). With
 *           FLOOR_SQLITE=<file> (the embedded profile) the rows go to SQLite in WAL mode instead, committed in
 *           groups the same way, synchronous FULL as the service's SQLite (src/database/data-source-options.ts;
 *           FLOOR_SQLITE_SYNCHRONOUS overrides it).
 *           With the header `x-floor-bill: 1` (MySQL + Redis) one Redis script runs first, the click's other piece of
 *           I/O on the production profile: the click bound to its user once (SET NX) and its price added to its
 *           campaign's spend (INCRBY), atomically, as every process shares the budget.
 */
const Fastify = require('fastify');
// The service's own fix for Node 20's AsyncResource#bind (src/common/lean-async-resource-bind.ts): without it every
// POST's request outlives its scavenges here too, and the yardstick would be a handicapped Fastify.
require(require('node:path').join(__dirname, '..', '..', 'dist/src/common/lean-async-resource-bind.js')).installLeanAsyncResourceBind();
const { Redis } = require('ioredis');
const mysql = require('mysql2/promise');

const { fetchBody, clickBody } = require('./answers').answerBodies();

/** Commits a group of rows durably: MySQL (one transaction on a pooled connection) or SQLite (FLOOR_SQLITE). */
async function rowWriter() {
  if (process.env.FLOOR_SQLITE) {
    const Database = require('better-sqlite3');
    const db = new Database(process.env.FLOOR_SQLITE);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${process.env.FLOOR_SQLITE_SYNCHRONOUS || 'FULL'}`);
    db.exec('CREATE TABLE IF NOT EXISTS floor_rows (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL, createdAt INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO floor_rows (body, createdAt) VALUES (?, ?)');
    const insertAll = db.transaction((bodies) => {
      for (const body of bodies) insert.run(body, Date.now());
    });
    // A turn of the event loop gathers the group, as the service's writer does.
    return async (bodies) => {
      await new Promise((resolve) => setImmediate(resolve));
      insertAll(bodies);
    };
  }
  const pool = mysql.createPool({ uri: process.env.DATABASE_URL, connectionLimit: 4, multipleStatements: true });
  await pool.query('CREATE TABLE IF NOT EXISTS floor_rows (id BIGINT AUTO_INCREMENT PRIMARY KEY, body VARCHAR(1000) NOT NULL, createdAt BIGINT NOT NULL)');
  return async (bodies) => {
    const connection = await pool.getConnection();
    try {
      await connection.query(
        `START TRANSACTION; INSERT INTO floor_rows (body, createdAt) VALUES ${bodies.map(() => '(?, ?)').join(', ')}`,
        bodies.flatMap((body) => [body, Date.now()]),
      );
      await connection.query('COMMIT');
    } finally {
      connection.release();
    }
  };
}

/** The floor's bind and bill: one mark per user and ad, the campaign's spend raised once per first click. */
const BIND_AND_BILL = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 600000) then return redis.call('INCRBY', KEYS[2], ARGV[2]) end
return -1`;

async function main() {
  const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL, { enableAutoPipelining: true }) : null;
  redis?.defineCommand('floorBindAndBill', { numberOfKeys: 2, lua: BIND_AND_BILL });
  const writeRows = await rowWriter();

  let waiting = [];
  let writing = 0;
  const maxWriting = Number(process.env.FLOOR_COMMITS || 1);
  async function commitWaiting() {
    if (writing >= maxWriting || waiting.length === 0) return;
    writing += 1;
    const batch = waiting;
    waiting = [];
    try {
      await writeRows(batch.map((entry) => entry.body));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      writing -= 1;
      void commitWaiting();
    }
  }

  const app = Fastify({ logger: false });
  const answer = (reply, body) => reply.header('content-type', 'application/json; charset=utf-8').send(body);
  app.get('/*', (request, reply) => {
    if (!redis) return answer(reply, fetchBody);
    redis.get(`adnet-bench:floor:${request.url.length}`).then(
      () => answer(reply, fetchBody),
      (error) => reply.code(500).send(error.message),
    );
  });
  app.post('/*', (request, reply) => {
    const event = /** @type {{eventData?: Record<string, string>}} */ (request.body)?.eventData ?? {};
    const billed =
      redis && request.headers['x-floor-bill'] === '1'
        ? /** @type {any} */ (redis).floorBindAndBill(
            `adnet-bench:floor:clicked:${event.messengerUserId}:${event.adId}`,
            `adnet-bench:floor:spent:${event.campaignId}`,
            Date.now(),
            1000,
          )
        : Promise.resolve();
    billed
      .then(
        () =>
          new Promise((resolve, reject) => {
            waiting.push({ body: JSON.stringify(request.body), resolve, reject });
            void commitWaiting();
          }),
      )
      .then(
        () => answer(reply, clickBody),
        (error) => reply.code(500).send(error.message),
      );
  });
  await app.listen({ port: Number(process.env.PORT ?? 3997), host: '127.0.0.1' });
  process.stdout.write('ready\n');
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
