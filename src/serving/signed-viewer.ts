import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { ServingBlock } from '../ad-blocks/ad-blocks.service';
import { Clock, DAY_MS } from '../common/clock';
import { UnauthorizedError } from '../common/errors';
import type { RequestFacts } from '../common/request-facts';

/**
 * Signed viewers (docs/SIGNED_VIEWERS.md): on a block with requireSignedViewer, an ad request must carry a token
 * that the publisher's own server made for this user, so a publisher key copied from a frontend cannot fetch (and
 * bill) ads for made-up users:
 *   x-adnet-viewer: <openId>.<expiresAtMs>.<lower-case hex HMAC-SHA256(webhookSecret, "<openId>.<expiresAtMs>")>
 */
export const VIEWER_HEADER = 'x-adnet-viewer';
/** A token may live at most this long: a leaked one is of little use for long. */
export const MAX_VIEWER_TOKEN_LIFE_MS = DAY_MS;

const EXPIRY = /^[0-9]{1,15}$/;
const SIGNATURE = /^[0-9a-fA-F]{64}$/;

/** The signature of a viewer token, as the publisher's server computes it. */
export function viewerSignature(webhookSecret: string, openId: string, expiresAtMs: number | string): string {
  return createHmac('sha256', webhookSecret).update(`${openId}.${expiresAtMs}`).digest('hex');
}

/**
 * What is wrong with a viewer token for this openId, or null when it is good. The openId may itself hold dots:
 * the token is split at its last two.
 */
export function viewerTokenProblem(token: string | undefined, openId: string, webhookSecret: string, now: number): string | null {
  if (token === undefined || token === '') return 'is required on this ad block (a viewer token made by your server)';
  const last = token.lastIndexOf('.');
  const middle = last > 0 ? token.lastIndexOf('.', last - 1) : -1;
  if (middle < 0) return 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>';
  const tokenOpenId = token.slice(0, middle);
  const expiry = token.slice(middle + 1, last);
  const signature = token.slice(last + 1);
  if (tokenOpenId === '' || !EXPIRY.test(expiry) || !SIGNATURE.test(signature)) {
    return 'must be <openId>.<expiresAtMs>.<hex HMAC-SHA256 signature>';
  }
  const expected = Buffer.from(viewerSignature(webhookSecret, tokenOpenId, expiry), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'has a signature that does not match';
  if (tokenOpenId !== openId) return 'was signed for another openId';
  const expiresAtMs = Number(expiry);
  if (expiresAtMs <= now) return 'has expired';
  if (expiresAtMs - now > MAX_VIEWER_TOKEN_LIFE_MS) return 'expires more than 24 hours ahead';
  return null;
}

/** The check both paths of endpoint 5 (controller and fast lane) run through ServingService. */
@Injectable()
export class SignedViewers {
  constructor(
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
  ) {}

  /** Throws the 401 when the block requires a signed viewer and the request's token is not good for this openId. */
  async assertSigned(block: ServingBlock, openId: string, facts: RequestFacts): Promise<void> {
    const problem = await this.problemOf(block, openId, facts);
    if (problem !== null) {
      throw new UnauthorizedError(`${VIEWER_HEADER} header ${problem}`, { errors: [{ field: VIEWER_HEADER, message: `${VIEWER_HEADER} header ${problem}` }] });
    }
  }

  /** What is wrong with the request's viewer token for this openId on the block (null: good, or not required). */
  async problemOf(block: ServingBlock, openId: string, facts: RequestFacts): Promise<string | null> {
    if (!block.requireSignedViewer) return null;
    const secret = await this.accounts.webhookSecretOf(block.accountId);
    return secret === null ? 'cannot be checked' : viewerTokenProblem(facts.header(VIEWER_HEADER), openId, secret, this.clock.now());
  }
}
