import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, unknown>;
  status: number;
}

/**
 * A publisher's reward endpoint on a free local port: records every call and answers each path's way — `/ok` 200,
 * `/flaky` 500 to the first two calls of each eventId then 200, `/down` 503 always.
 */
export class RewardReceiver {
  readonly calls: ReceivedCall[] = [];
  private readonly server: Server;
  private readonly seen = new Map<string, number>();

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(rawBody) as Record<string, unknown>;
        } catch {
          // recorded as is
        }
        const path = (request.url ?? '/').split('?')[0];
        const tries = (this.seen.get(String(body.eventId)) ?? 0) + 1;
        this.seen.set(String(body.eventId), tries);
        const status = path === '/down' ? 503 : path === '/flaky' && tries <= 2 ? 500 : 200;
        this.calls.push({ path, headers: request.headers, rawBody, body, status });
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no');
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  callsOf(eventId: string): ReceivedCall[] {
    return this.calls.filter((call) => call.body.eventId === eventId);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `read` until `done` holds of its value (every 20 ms, at most `limitMs`); answers the last value read. */
export async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean, limitMs = 15_000): Promise<T> {
  const until = Date.now() + limitMs;
  let value = await read();
  while (!done(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
}
