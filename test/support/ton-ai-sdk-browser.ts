import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/** The mini app's origin and browser (test/support/ton-ai-sdk-browser.mjs). */
export const MINI_APP_ORIGIN = 'https://miniapp.example';
/** What ClientJS's getFingerprint() answers in that browser: the SDK's device id. */
export const DEVICE_FINGERPRINT = 2854123301;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export interface SdkExchange {
  method: string;
  /** path and query, e.g. `/api/v2/ad/report/event` */
  path: string;
  headers: Record<string, string>;
  body: Json | undefined;
  status: number;
  response: Json | undefined;
}

/** `callback('done')` as an argument: the browser passes a function recording what it is called with under `done`. */
export const callback = (name: string) => `$callback:${name}`;

/**
 * A Telegram mini app's browser running the real `ton-ai-sdk`, in a child process (ton-ai-sdk-browser-child.mjs),
 * driven from the test: open() a fresh browser for a Telegram user, call() the SDK's exports, render() its
 * components, and read what it sent and got with settled().
 */
export class MiniAppBrowser {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  /** How many exchanges the steps so far have taken (see step()). */
  private seen = 0;

  /**
   * `sdkSecondMs`: how many real milliseconds one second of the SDK's countdowns lasts in this browser (its timers of a
   * second or more run that much faster; the ticks and what they send are unchanged). Real time is 1000.
   */
  constructor(
    private readonly servicePort: number,
    { sdkSecondMs = 20 }: { sdkSecondMs?: number } = {},
  ) {
    this.child = fork(join(__dirname, 'ton-ai-sdk-browser-child.mjs'), [], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      env: { ...process.env, SDK_SECOND_MS: String(sdkSecondMs) },
    });
    this.child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(`in the mini app's browser: ${message.error}`));
      else waiter?.resolve(message.result);
    });
  }

  private send<T>(op: string, fields: Json = {}): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ id, op, ...fields });
    });
  }

  /** A fresh browser (empty storage) whose Telegram user is `user`. */
  async open(user: string): Promise<void> {
    await this.send('open', { port: this.servicePort, user });
    this.seen = 0;
  }

  /** Calls an SDK export; with `wait`, answers once that callback (see callback()) was called too. */
  call<T = Json>(fn: string, args: unknown[] = [], wait?: string): Promise<T> {
    return this.send<T>('call', { fn, args, wait });
  }

  render(component: string, props: Json, wait?: string): Promise<void> {
    return this.send('render', { component, props, wait });
  }

  click(selector: string): Promise<void> {
    return this.send('click', { selector });
  }

  /** The names the SDK package exports. */
  exports(): Promise<string[]> {
    return this.send('exports');
  }

  state(): Promise<{ openedLinks: string[]; callbacks: Record<string, Json[]>; localStorage: Record<string, string> }> {
    return this.send('state');
  }

  /** The exchanges made since the last step, once `count` of them are done and none is in flight. */
  async step(count: number): Promise<SdkExchange[]> {
    const all = await this.send<SdkExchange[]>('settled', { count: this.seen + count });
    const made = all.slice(this.seen);
    this.seen = all.length;
    return made;
  }

  async close(): Promise<void> {
    await this.send('close');
    this.child.kill();
  }
}
