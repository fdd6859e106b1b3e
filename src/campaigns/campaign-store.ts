import type { Campaign } from './entities/campaign.entity';

/** What the serving index refreshes often: the columns a served ad's ranking and budget read. */
export interface CampaignCounters {
  id: string;
  version: number | string;
  spentMicros: number | string;
  daySpentMicros: number | string;
  spentDay: string;
  clicks: number | string;
  impressions: number | string;
}

/** What decides whether a click on the campaign bills now (docs/CONTRACT.md §6), and the version it was read at. */
export type CampaignBillingFacts = Pick<
  Campaign,
  | 'id'
  | 'version'
  | 'status'
  | 'approved'
  | 'billingType'
  | 'startTime'
  | 'endTime'
  | 'totalBudgetMicros'
  | 'dailyBudgetMicros'
  | 'spentMicros'
  | 'daySpentMicros'
  | 'spentDay'
  | 'timeZone'
  | 'nextTimeZone'
  | 'timeZoneChangesAt'
>;

/** The campaign rows' port for the serving index (the campaigns feature owns the `campaigns` table). */
export interface CampaignStore {
  /** Campaigns `onGoing`, approved and not ended at `now` (budget not checked). */
  servable(now: number): Promise<Campaign[]>;
  /**
   * The counters of the campaigns `servable` would return, one page in id order after `afterId` (null: the first):
   * a refresh of 100,000 campaigns reads them in pages, so a synchronous driver (SQLite) never holds the event loop
   * for the whole table.
   */
  servableCountersPage(now: number, afterId: string | null, limit: number): Promise<CampaignCounters[]>;
  findByIds(ids: string[]): Promise<Campaign[]>;
  findById(id: string): Promise<Campaign | null>;
  /** The billing facts of these campaigns, in one query (absent: no such campaign). */
  billingFacts(ids: string[]): Promise<Map<string, CampaignBillingFacts>>;
}

export const CAMPAIGN_STORE = Symbol('CAMPAIGN_STORE');
