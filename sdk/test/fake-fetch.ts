/** A scripted `fetch` for the SDK's unit specs: each call takes the next answer and is recorded. */
export interface RecordedCall {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

type Answer = Response | Error | ((call: RecordedCall, signal: AbortSignal | undefined) => Promise<Response>);

export function envelope(data: unknown, init: ResponseInit = {}): Response {
  return json({ code: 0, message: 'success', data }, init);
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), { status: 200, ...init, headers: { 'content-type': 'application/json', ...init.headers } });
}

export function failure(status: number, message: string, errors?: { field: string; message: string }[], headers: Record<string, string> = {}): Response {
  return json({ code: status, message, data: errors ? { errors } : {} }, { status, headers: { 'x-request-id': `req-${status}`, ...headers } });
}

/** Never answers; rejects with the abort reason when its signal aborts (as fetch does). */
export const hang: Answer = (_call, signal) =>
  new Promise((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason ?? new DOMException('aborted', 'AbortError')), { once: true });
  });

export class FakeFetch {
  readonly calls: RecordedCall[] = [];
  private readonly answers: Answer[] = [];
  /** Answer for calls beyond the scripted ones. */
  fallback: Answer | undefined;

  answer(...answers: Answer[]): this {
    this.answers.push(...answers);
    return this;
  }

  readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) headers[name.toLowerCase()] = value;
    const call: RecordedCall = {
      url: new URL(String(input)),
      method: init.method ?? 'GET',
      headers,
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    this.calls.push(call);
    const answer = this.answers.shift() ?? this.fallback;
    if (answer === undefined) throw new Error(`unexpected call ${call.method} ${call.url}`);
    if (answer instanceof Error) throw answer;
    if (answer instanceof Response) return answer.clone();
    return answer(call, init.signal ?? undefined);
  };

  bodies(): unknown[] {
    return this.calls.map((call) => (call.body === undefined ? undefined : JSON.parse(call.body)));
  }
}
