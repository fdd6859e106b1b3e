/**
 * A Telegram mini app's browser, in a process of its own (happy-dom is an ES module, which the Jest process cannot
 * load), running the real `ton-ai-sdk` package from node_modules. It gives the SDK the globals it reads (`window`,
 * `document`, `localStorage`, `navigator`, `Telegram.WebApp`, the ClientJS fingerprint library it would load from a
 * CDN) and a `fetch` that does what a browser's does: it sends the browser's `User-Agent` and the app's `Origin`, and
 * resolves `*.localhost` to the loopback address (RFC 6761, as browsers do). Any other host is refused, so nothing
 * leaves the machine and a request to the SDK's default host fails. Every exchange is recorded.
 *
 * Driven over the IPC channel by test/support/ton-ai-sdk-browser.ts: each message `{id, op, ...}` is answered
 * `{id, result}` or `{id, error}`.
 */
/* global Request, Headers, Response */
import { createRequire } from 'node:module';
import { Window } from 'happy-dom';

const require = createRequire(import.meta.url);

const MINI_APP_ORIGIN = 'https://miniapp.example';
const PHONE_USER_AGENT =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 Telegram-Android/11.2.3';
const DEVICE_FINGERPRINT = 2854123301;
const CLIENTJS_URL = 'https://cdn.jsdelivr.net/npm/clientjs@0.1.11/dist/client.min.js';
const nodeFetch = globalThis.fetch;

/**
 * The SDK's clock: its countdowns and auto-close run on whole-second timers (setInterval(…, 1000), setTimeout(…, 2000)).
 * The driver sets SDK_SECOND_MS to how many real milliseconds one of the SDK's seconds lasts, so a 10-second countdown
 * runs its ten ticks, in order, in a fraction of the time. Shorter timers (React's, this file's polling) keep theirs.
 */
const SDK_SECOND_MS = Number(process.env.SDK_SECOND_MS ?? 1000);
const scaled = (delay) => (typeof delay === 'number' && delay >= 1000 ? Math.round((delay * SDK_SECOND_MS) / 1000) : delay);
const realSetTimeout = globalThis.setTimeout;
const realSetInterval = globalThis.setInterval;
globalThis.setTimeout = (handler, delay, ...args) => realSetTimeout(handler, scaled(delay), ...args);
globalThis.setInterval = (handler, delay, ...args) => realSetInterval(handler, scaled(delay), ...args);

let sdk = null;
let browser = null;

class Browser {
  constructor(port, telegramUserId) {
    this.port = port;
    this.exchanges = [];
    this.openedLinks = [];
    this.callbacks = {};
    this.inFlight = 0;
    this.waiters = [];
    this.window = new Window({
      url: `${MINI_APP_ORIGIN}/game/`,
      settings: {
        disableJavaScriptFileLoading: true,
        disableJavaScriptEvaluation: true,
        disableCSSFileLoading: true,
        handleDisabledFileLoadingAsSuccess: true,
        navigator: { userAgent: PHONE_USER_AGENT },
      },
    });
    const user = { id: Number(telegramUserId) };
    this.window.Telegram = {
      WebApp: {
        initData: `user=${encodeURIComponent(JSON.stringify(user))}`,
        initDataUnsafe: { user },
        openLink: (url) => this.openedLinks.push(url),
        openTelegramLink: (url) => this.openedLinks.push(url),
      },
    };
    this.window.ClientJS = class {
      getFingerprint() {
        return DEVICE_FINGERPRINT;
      }
      getCurrentResolution() {
        return '1080x2400';
      }
      getTimeZone() {
        return 'Europe/Berlin';
      }
    };
    // The fingerprint library is "loaded" already (the SDK looks for its script tag before adding one).
    const script = this.window.document.createElement('script');
    script.setAttribute('src', CLIENTJS_URL);
    this.window.document.head.appendChild(script);
    const slot = this.window.document.createElement('div');
    slot.id = 'ad-slot';
    this.window.document.body.appendChild(slot);
  }

  /** The SDK and React read these at call time. */
  install() {
    const w = this.window;
    const globals = {
      window: w,
      document: w.document,
      localStorage: w.localStorage,
      navigator: w.navigator,
      location: w.location,
      MutationObserver: w.MutationObserver,
      HTMLElement: w.HTMLElement,
      HTMLIFrameElement: w.HTMLIFrameElement,
      Node: w.Node,
      Element: w.Element,
      Event: w.Event,
      fetch: (input, init) => this.fetch(input, init),
    };
    for (const [name, value] of Object.entries(globals)) Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }

  async fetch(input, init) {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (!url.hostname.endsWith('.localhost')) throw new TypeError(`the mini app's browser reaches only *.localhost, not ${url.host}`);
    const headers = new Headers(request.headers);
    headers.set('user-agent', PHONE_USER_AGENT);
    headers.set('origin', MINI_APP_ORIGIN);
    const body = request.method === 'GET' ? undefined : await request.text();
    this.inFlight += 1;
    try {
      const response = await nodeFetch(`http://127.0.0.1:${this.port}${url.pathname}${url.search}`, { method: request.method, headers, body });
      const text = await response.text();
      this.exchanges.push({
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(headers),
        body: body ? JSON.parse(body) : undefined,
        status: response.status,
        response: text ? JSON.parse(text) : undefined,
      });
      return new Response(text, { status: response.status, headers: { 'content-type': response.headers.get('content-type') ?? 'application/json' } });
    } finally {
      this.inFlight -= 1;
      this.wake();
    }
  }

  wake() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  async until(condition) {
    while (!condition()) await new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Arguments with `"$callback:<name>"` strings (at any depth) made into functions recording what they get, and
   * `"$component:<export>"` into the SDK's component of that name.
   */
  withCallbacks(value) {
    if (typeof value === 'string' && value.startsWith('$component:')) return sdk[value.slice('$component:'.length)];
    if (typeof value === 'string' && value.startsWith('$callback:')) {
      const name = value.slice('$callback:'.length);
      return (arg) => {
        (this.callbacks[name] ??= []).push(arg === undefined ? null : JSON.parse(JSON.stringify(arg)));
        this.wake();
      };
    }
    if (Array.isArray(value)) return value.map((item) => this.withCallbacks(item));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.withCallbacks(item)]));
    return value;
  }

  async close() {
    await this.window.happyDOM.abort();
    await this.window.happyDOM.close();
  }
}

function loadSdk() {
  // The SDK's peer range is React 16 to 18, whose react-dom has render() and createRoot(); the repository runs
  // React 19, which moved createRoot to react-dom/client and dropped render(): this gives the SDK the API it uses.
  const reactDom = require('react-dom');
  const client = require('react-dom/client');
  const roots = new Map();
  reactDom.createRoot = client.createRoot;
  reactDom.render = (element, container) => {
    if (!roots.has(container)) roots.set(container, client.createRoot(container));
    roots.get(container).render(element);
  };
  reactDom.unmountComponentAtNode = (container) => {
    roots.get(container)?.unmount();
    return roots.delete(container);
  };
  return require('ton-ai-sdk');
}

const operations = {
  async open({ port, user }) {
    if (browser) await browser.close();
    browser = new Browser(port, user);
    browser.install();
    sdk ??= loadSdk();
    return null;
  },
  /** Calls an SDK export; with `wait`, also waits until that callback was called. */
  async call({ fn, args = [], wait }) {
    const result = await sdk[fn](...browser.withCallbacks(args));
    if (wait) await browser.until(() => (browser.callbacks[wait] ?? []).length > 0);
    return result === undefined ? null : JSON.parse(JSON.stringify(result));
  },
  /** Renders an SDK component into #ad-slot with react-dom/client. */
  async render({ component, props, wait }) {
    const { createElement } = require('react');
    const { createRoot } = require('react-dom/client');
    createRoot(browser.window.document.getElementById('ad-slot')).render(createElement(sdk[component], browser.withCallbacks(props)));
    if (wait) await browser.until(() => (browser.callbacks[wait] ?? []).length > 0);
    return null;
  },
  /** Clicks the first element matching `selector`, once it is there. */
  async click({ selector }) {
    const document = browser.window.document;
    while (document.querySelector(selector) === null) await new Promise((resolve) => setTimeout(resolve, 20));
    document.querySelector(selector).click();
    return null;
  },
  /** Every exchange, once `count` are recorded and none is in flight. */
  async settled({ count }) {
    await browser.until(() => browser.exchanges.length >= count && browser.inFlight === 0);
    return browser.exchanges;
  },
  /** The names the package exports. */
  async exports() {
    return Object.keys(sdk).sort();
  },
  async state() {
    return { openedLinks: browser.openedLinks, callbacks: browser.callbacks, localStorage: { ...browser.window.localStorage } };
  },
  async close() {
    if (browser) await browser.close();
    browser = null;
    return null;
  },
};

process.on('message', async (message) => {
  try {
    process.send({ id: message.id, result: await operations[message.op](message) });
  } catch (error) {
    process.send({ id: message.id, error: String(error?.stack ?? error) });
  }
});
