'use strict';
/**
 * An open-loop load at a fixed rate: requests are due at evenly spaced instants (rate per second, a timer every
 * millisecond sends the ones due), each on an idle keep-alive connection, and a request's latency counts from the
 * instant it was due, so a request that waited in the generator for a busy connection is charged its wait (as wrk2
 * does). Not part of the service.
 *
 * Why not autocannon's `overallRate`: it gives each connection a quota per second and sends it back to back from the
 * start of each second, so "2,000 req/s" is a saturating burst of 2,000 requests followed by silence; and it records
 * every answer slower than Math.ceil(1 / rate) = 1 ms (its rate is per second) as if requests 1 ms apart had waited
 * behind it, which inflated even bare Fastify's p99.
 */
const net = require('node:net');

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * @param {{url: string, rate: number, connections: number, duration: number, requests?: object[], method?: string,
 *   headers?: Record<string, string>, body?: string}} options  `requests` in autocannon's format (one entry, with
 *   `setupRequest`), so the same request sets drive both kinds of run.
 * Answers the shape of bench/lib/index.js's load(): req/s, p50 and p99 in ms, totals, non-2xx and errors.
 */
function loadAtRate({ url, rate, connections, duration, requests = [{}], method = 'GET', headers = {}, body }) {
  const target = new URL(url);
  const template = requests[0];
  const requestBytes = () => {
    const base = {
      method: template.method ?? method,
      path: template.path ?? `${target.pathname}${target.search}`,
      headers: { ...headers, ...template.headers },
      body: template.body ?? body,
    };
    const request = template.setupRequest ? template.setupRequest(base) : base;
    const payload = request.body === undefined ? '' : request.body;
    const lines = [`${request.method ?? base.method} ${request.path ?? base.path} HTTP/1.1`, `host: ${target.host}`, 'connection: keep-alive'];
    for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`);
    if (payload !== '') lines.push(`content-length: ${Buffer.byteLength(payload)}`);
    return `${lines.join('\r\n')}\r\n\r\n${payload}`;
  };

  return new Promise((resolve, reject) => {
    const latencies = [];
    /** When each answered request was due, in ms from the start of the run (same order as latencies). */
    const dueOffsets = [];
    let non2xx = 0;
    let errors = 0;
    let sent = 0;
    let completed = 0;
    const backlog = [];
    const idle = [];
    const sockets = [];
    let start = 0;
    let timer;
    let finishing = false;

    const send = (connection, dueAt) => {
      connection.dueAt = dueAt;
      connection.busy = true;
      connection.socket.write(requestBytes());
    };
    const dispatch = (dueAt) => {
      const connection = idle.pop();
      if (connection) send(connection, dueAt);
      else backlog.push(dueAt);
    };
    const finish = () => {
      if (finishing) return;
      finishing = true;
      clearInterval(timer);
      for (const connection of sockets) connection.socket.destroy();
      const quantile = (sorted, q) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
      // the p99 of the latencies due in each of `count` slices of `sliceMs` from the start
      const p99BySlice = (sliceMs, count) => {
        const slices = Array.from({ length: count }, () => []);
        latencies.forEach((latency, i) => slices[Math.min(count - 1, Math.floor(dueOffsets[i] / sliceMs))].push(latency));
        return slices.map((slice) =>
          Math.round(
            quantile(
              slice.sort((a, b) => a - b),
              0.99,
            ),
          ),
        );
      };
      // each second's own p99: a tail from one stall shows in one second, a steady one in all of them
      const p99BySecond = p99BySlice(1000, duration);
      // the first second's tenths: a start-up cost (connections, leases asked for again) shows in the first ones
      const p99ByTenthOfFirstSecond = p99BySlice(100, 10 * duration).slice(0, 10);
      latencies.sort((a, b) => a - b);
      const at = (q) => quantile(latencies, q);
      resolve({
        rps: Math.round(completed / duration),
        p50: Math.round(at(0.5)),
        p99: Math.round(at(0.99)),
        p99BySecond,
        p99ByTenthOfFirstSecond,
        total: completed,
        non2xx,
        // due but never answered within the run: the generator's backlog and the requests still in flight
        errors: errors + backlog.length + sockets.filter((connection) => connection.busy).length,
      });
    };

    const open = (connection) =>
      new Promise((opened, failed) => {
        const socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true });
        connection.socket = socket;
        let buffered = Buffer.alloc(0);
        let expect = -1;
        let status = 0;
        socket.once('connect', opened);
        socket.on('error', (error) => {
          if (start === 0) failed(error);
        });
        // A connection the server closed (or that failed) takes no more requests; the one it carried counts as an error.
        socket.once('close', () => {
          if (finishing) return;
          connection.closed = true;
          if (connection.busy) errors += 1;
          connection.busy = false;
          const at = idle.indexOf(connection);
          if (at >= 0) idle.splice(at, 1);
        });
        socket.on('data', (chunk) => {
          buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
          for (;;) {
            if (expect < 0) {
              const end = buffered.indexOf(HEADER_END);
              if (end < 0) return;
              const head = buffered.subarray(0, end).toString('latin1');
              status = Number(head.slice(9, 12));
              const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
              if (!length) {
                socket.destroy(new Error(`answer without content-length: ${head.split('\r\n')[0]}`));
                return;
              }
              expect = end + HEADER_END.length + Number(length[1]);
            }
            if (buffered.length < expect) return;
            buffered = buffered.subarray(expect);
            expect = -1;
            latencies.push(performance.now() - connection.dueAt);
            dueOffsets.push(connection.dueAt - start);
            completed += 1;
            if (status < 200 || status > 299) non2xx += 1;
            connection.busy = false;
            if (connection.closed) return;
            if (backlog.length > 0) send(connection, backlog.shift());
            else idle.push(connection);
          }
        });
      });

    Promise.all(
      Array.from({ length: connections }, () => {
        const connection = { socket: null, busy: false, closed: false, dueAt: 0 };
        sockets.push(connection);
        idle.push(connection);
        return open(connection);
      }),
    ).then(() => {
      start = performance.now();
      const total = Math.round(rate * duration);
      timer = setInterval(() => {
        const elapsed = performance.now() - start;
        const due = Math.min(total, Math.floor((elapsed * rate) / 1000));
        while (sent < due) dispatch(start + (sent++ * 1000) / rate);
        // a last second for the answers of the requests due at the end
        if (elapsed >= duration * 1000 + 1000 || (sent === total && completed + errors >= total)) finish();
      }, 1);
    }, reject);
  });
}

module.exports = { loadAtRate };
