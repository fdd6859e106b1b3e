import type { EntityManager } from 'typeorm';
import type { Queryable } from '../database/queryable';
import type { Click } from './entities/click.entity';

/** The ids among these whose click row exists: how the serving state learns which reserved clicks were committed. */
export interface CommittedClicks {
  committedIds(ids: string[]): Promise<Set<string>>;
}

/** A counted click waiting for its advertiser's verification call, with what the call needs. */
export interface ClickToVerify {
  id: string;
  campaignId: string;
  adBlockId: string;
  messengerUserId: string;
  createdAt: number | string;
  verificationStatus: string;
  verificationUrl: string | null;
  webhookSecret: string;
}

/** The click rows' port for the other features (the events feature owns the `clicks` table). */
export interface ClickStore extends CommittedClicks {
  /** One multi-row INSERT, inside the caller's transaction. */
  insertMany(into: Queryable, clicks: Click[]): Promise<void>;
  /** The user's latest counted click on this advertiser's campaigns since `since`. */
  latestCounted(
    manager: EntityManager,
    messengerUserId: string,
    advertiserId: string,
    since: number,
  ): Promise<Pick<Click, 'id' | 'campaignId' | 'adBlockId' | 'createdAt'> | null>;
  /** The counted click of this advertiser since `since` that kept this click id (minted at `servedAt`), or null. */
  countedByToken(
    manager: EntityManager,
    clickToken: string,
    servedAt: number,
    advertiserId: string,
    since: number,
  ): Promise<Pick<Click, 'id' | 'campaignId' | 'adBlockId' | 'createdAt' | 'messengerUserId'> | null>;
  findToVerify(clickId: string): Promise<ClickToVerify | undefined>;
  /** Records a failed try of a click still pending. */
  recordVerificationTry(clickId: string, attempts: number, error: string | null): Promise<void>;
  /** Settles a click still pending; false when another run settled it first. */
  settleVerification(
    manager: EntityManager,
    clickId: string,
    outcome: { status: string; attempts: number; error: string | null; verifiedAt: number },
  ): Promise<boolean>;
  /** Clicks pending since before `before`, oldest first. */
  pendingSince(before: number, limit: number): Promise<string[]>;
  /**
   * The verification status of the user's latest counted click on the campaign, made on an ad block of the
   * publisher `publisherId` (any block when null); null without such a click.
   */
  latestVerificationStatus(campaignId: string, messengerUserId: string, publisherId: string | null): Promise<string | null>;
  /** How many of a campaign's clicks are in each verification status. */
  verificationStatusCounts(campaignId: string): Promise<Map<string, number>>;
}

export const CLICK_STORE = Symbol('CLICK_STORE');
