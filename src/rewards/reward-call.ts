import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { RefusedTargetError, resolveTarget } from '../verification/target-guard';

export const TIMESTAMP_HEADER = 'x-adnet-timestamp';
export const SIGNATURE_HEADER = 'x-adnet-signature';
export const PREVIOUS_SIGNATURE_HEADER = 'x-adnet-signature-previous';
/** The publisher's answer is not read beyond this. */
const MAX_BODY_BYTES = 4096;

/** Hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the publisher's webhook secret (docs/REWARDED_ADS.md). */
export function signReward(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

export interface RewardCallOptions {
  url: string;
  rawBody: string;
  secret: string;
  /** The secret before a rotation less than 24 h ago: signs `x-adnet-signature-previous` too. */
  previousSecret: string | null;
  timestamp: number;
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface RewardCallResult {
  delivered: boolean;
  statusCode: number | null;
  ms: number;
  error: string | null;
}

/**
 * One POST of a reward callback. A 2xx within the timeout is delivered; anything else (a refused target, a timeout,
 * a redirect, which is never followed, a non-2xx, a connection error) is a failed try, its reason in `error`.
 */
export async function callReward(options: RewardCallOptions): Promise<RewardCallResult> {
  const started = Date.now();
  const failed = (error: string, statusCode: number | null = null): RewardCallResult => ({
    delivered: false,
    statusCode,
    ms: Date.now() - started,
    error: error.slice(0, 500),
  });
  let target;
  try {
    target = await resolveTarget(options.url, options.allowPrivate);
  } catch (error) {
    if (error instanceof RefusedTargetError) return failed(error.message.replace('verificationUrl', 'rewardUrl'));
    throw error;
  }
  const client = target.url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(options.rawBody)),
    'user-agent': 'adnet-reward/1',
    [TIMESTAMP_HEADER]: String(options.timestamp),
    [SIGNATURE_HEADER]: signReward(options.secret, options.timestamp, options.rawBody),
  };
  if (options.previousSecret) headers[PREVIOUS_SIGNATURE_HEADER] = signReward(options.previousSecret, options.timestamp, options.rawBody);

  return new Promise<RewardCallResult>((resolve) => {
    const request = client.request(
      target.url,
      {
        method: 'POST',
        headers,
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
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) response.destroy();
        });
        response.on('close', () => {
          if (status >= 300 && status < 400) return resolve(failed(`redirect ${status} not followed`, status));
          if (status < 200 || status >= 300) return resolve(failed(`HTTP ${status}`, status));
          resolve({ delivered: true, statusCode: status, ms: Date.now() - started, error: null });
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
    request.end(options.rawBody);
  });
}
