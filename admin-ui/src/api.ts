import { HttpError } from 'react-admin';
import { humanizeFieldErrors, humanizeMessage } from './common/fieldLabels';

/** Where the panel keeps the API key and the account it belongs to (browser local storage). */
export const API_KEY_STORAGE = 'adnet.apiKey';
export const ACCOUNT_STORAGE = 'adnet.account';

export interface FieldError {
  field: string;
  message: string;
}

export interface ApiRequest {
  method?: 'GET' | 'POST';
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent as is (a file), with its content type, instead of JSON. */
  raw?: { body: BodyInit; contentType: string };
  /** A key to use instead of the stored one (the login check). */
  apiKey?: string;
}

type Fetch = typeof fetch;

/** The API's answer envelope: `{code, message, data}` (any part may be missing from a failure). */
interface Envelope {
  code?: unknown;
  message?: unknown;
  data?: { errors?: unknown } | null;
}

/**
 * Turns the API's `data.errors: [{field: "budget.amount", message}]` into the nested object react-admin's
 * forms expect (`{budget: {amount: message}}`), so each message appears under its own input.
 */
export function toFormErrors(errors: FieldError[] | undefined): Record<string, unknown> {
  const nested: Record<string, unknown> = {};
  for (const { field, message } of errors ?? []) {
    if (!field) continue;
    const parts = field.split('.');
    let node = nested;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) {
        // Two messages on one field: keep both.
        node[part] = typeof node[part] === 'string' ? `${node[part]}; ${message}` : message;
        return;
      }
      if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
      node = node[part] as Record<string, unknown>;
    });
  }
  return nested;
}

/** Calls the API and unwraps its `{code, message, data}` envelope; failures become react-admin HttpErrors. */
export function createApiClient(fetchImpl: Fetch = (...args) => fetch(...args), baseUrl = '') {
  return async function api<T = unknown>(path: string, request: ApiRequest = {}): Promise<T> {
    const url = new URL(baseUrl + path, baseUrl || window.location.origin);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    const apiKey = request.apiKey ?? localStorage.getItem(API_KEY_STORAGE);
    if (apiKey) headers['x-api-key'] = apiKey;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.raw) headers['content-type'] = request.raw.contentType;

    let response: Response;
    try {
      response = await fetchImpl(baseUrl ? url.toString() : url.pathname + url.search, {
        method: request.method ?? (request.body === undefined && !request.raw ? 'GET' : 'POST'),
        headers,
        body: request.raw ? request.raw.body : request.body === undefined ? undefined : JSON.stringify(request.body),
      });
    } catch (error) {
      throw new HttpError(`The API cannot be reached: ${(error as Error).message}`, 0, {});
    }

    const text = await response.text();
    let json: Envelope | undefined;
    try {
      json = text ? (JSON.parse(text) as Envelope) : undefined;
    } catch {
      json = undefined;
    }
    const failed = !response.ok || !json || (typeof json.code === 'number' && json.code !== 0);
    if (failed) {
      // Field paths become the labels the user sees on the form (docs/ADMIN_PANEL.md).
      const fieldErrors: FieldError[] = Array.isArray(json?.data?.errors) ? humanizeFieldErrors(json.data.errors) : [];
      const message =
        fieldErrors.length > 0
          ? fieldErrors.map((fieldError) => fieldError.message).join('; ')
          : typeof json?.message === 'string'
            ? humanizeMessage(json.message)
            : `HTTP ${response.status} ${response.statusText}`.trim();
      const status = response.ok ? (json?.code ?? 500) : response.status;
      throw new HttpError(message, status, { code: json?.code ?? status, message, fieldErrors, errors: toFormErrors(fieldErrors) });
    }
    return (json?.data ?? json) as T;
  };
}

export const api = createApiClient();
export type Api = ReturnType<typeof createApiClient>;
