import { createApiClient, type FieldError } from '../api';
import { createDataProvider } from '.';

/** The specs' fake API: a route table answering like the service, and the calls the panel made. */
export interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** What a failed call rejects with: react-admin's HttpError and the body the client gives it. */
export interface ApiFailure {
  status: number;
  message: string;
  body: { errors: unknown; fieldErrors: FieldError[] };
}

/** A fake `fetch` answering from a route table, recording each call. */
export function fakeApi(routes: Record<string, (call: Call) => { status?: number; json: unknown }>) {
  const calls: Call[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    const call: Call = {
      url,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
    };
    calls.push(call);
    const path = new URL(url, 'http://panel.test').pathname;
    const route = routes[`${call.method} ${path}`];
    const answer = route ? route(call) : { status: 404, json: { code: 404, message: `no route ${call.method} ${path}`, data: {} } };
    return new Response(JSON.stringify(answer.json), { status: answer.status ?? 200, headers: { 'content-type': 'application/json' } });
  };
  const api = createApiClient(fetchImpl as typeof fetch);
  return { api, calls, provider: createDataProvider(api) };
}

export const ok = (data: unknown) => ({ json: { code: 0, message: 'success', data } });
export const query = (call: Call) => Object.fromEntries(new URL(call.url, 'http://panel.test').searchParams);
