import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { RefusedTargetError, resolveTarget } from './target-guard';

export const TIMESTAMP_HEADER = 'x-adnet-timestamp';
export const SIGNATURE_HEADER = 'x-adnet-signature';
/** Answers longer than this are not `true`/`false` anyway; reading stops there. */
const MAX_BODY_BYTES = 1024;

/** Hex HMAC-SHA256 of `<timestamp>.<messenger_id>` with the advertiser's webhook secret (docs/CONTRACT.md §7). */
export function signVerification(secret: string, timestamp: number, messengerId: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${messengerId}`).digest('hex');
}

export interface VerificationAttempt {
  outcome: 'verified' | 'unverified' | 'failed';
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}

export interface VerificationCallOptions {
  url: string;
  messengerId: string;
  secret: string;
  timestamp: number;
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * One GET of the advertiser's verification endpoint. `true`/`false` (trimmed, any case) in a 2xx answer decide;
 * everything else (refused target, timeout, redirect, non-2xx, another body) is a failed attempt to retry.
 * Redirects are never followed: a 3xx could point anywhere, including inside our network.
 */
export async function callVerification(options: VerificationCallOptions): Promise<VerificationAttempt> {
  const started = Date.now();
  const failed = (error: string, httpStatus: number | null = null): VerificationAttempt => ({
    outcome: 'failed',
    httpStatus,
    latencyMs: Date.now() - started,
    error: error.slice(0, 500),
  });
  let target;
  try {
    target = await resolveTarget(options.url, options.allowPrivate);
  } catch (error) {
    if (error instanceof RefusedTargetError) return failed(error.message);
    throw error;
  }
  const url = new URL(target.url);
  url.searchParams.set('messenger_id', options.messengerId);
  // TON AI's name of the same parameter (docs/CONTRACT.md §14): endpoints written for its Open API read this one.
  url.searchParams.set('telegram_id', options.messengerId);
  const client = url.protocol === 'https:' ? https : http;

  return new Promise<VerificationAttempt>((resolve) => {
    const request = client.request(
      url,
      {
        method: 'GET',
        headers: {
          [TIMESTAMP_HEADER]: String(options.timestamp),
          [SIGNATURE_HEADER]: signVerification(options.secret, options.timestamp, options.messengerId),
          'user-agent': 'adnet-verification/1',
          accept: 'text/plain, application/json',
        },
        // Connect to the address that was checked, whatever the name resolves to by now (DNS rebinding).
        lookup: (_hostname, lookupOptions, callback) => {
          if ((lookupOptions as { all?: boolean }).all) {
            (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
          } else {
            callback(null, target.address, target.family);
          }
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
          else response.destroy();
        });
        response.on('close', () => {
          const latencyMs = Date.now() - started;
          if (status >= 300 && status < 400) return resolve(failed(`redirect ${status} not followed`, status));
          if (status < 200 || status >= 300) return resolve(failed(`HTTP ${status}`, status));
          if (size > MAX_BODY_BYTES) return resolve(failed('answer is not true or false (too long)', status));
          const body = Buffer.concat(chunks).toString('utf8').trim().toLowerCase();
          if (body === 'true') return resolve({ outcome: 'verified', httpStatus: status, latencyMs, error: null });
          if (body === 'false') return resolve({ outcome: 'unverified', httpStatus: status, latencyMs, error: null });
          resolve(failed(`answer is not true or false: ${JSON.stringify(body.slice(0, 40))}`, status));
        });
      },
    );
    // A whole-call deadline, not an idle timeout: a server dripping one byte a second must not hold the worker.
    const deadline = setTimeout(() => {
      resolve(failed(`timeout after ${options.timeoutMs} ms`));
      request.destroy();
    }, options.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('error', (error) => resolve(failed(error.message)));
    request.end();
  });
}
