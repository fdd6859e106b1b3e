/**
 * The shapes the panel sends and reads. Where the API documents a shape, the type is taken from the SDK's types,
 * generated from the service's own OpenAPI document (`npm run sdk:types`), so a changed route shows up here as a type
 * error; the rest are the panel's own (form values, chart points shared by several resources).
 */
import type { RaRecord } from 'react-admin';
import type { components } from '../../../sdk/src/generated/openapi';

/** The API's documented schemas, by their DTO names. */
export type Schemas = components['schemas'];

/** A form's values, or an API record: named fields of any shape, read field by field. */
export type FormData = Record<string, unknown>;

export type StatusAction = Schemas['CampaignStatusDto']['status'];
export type Granularity = 'hour' | 'day';
export interface SeriesRange {
  from?: number;
  to?: number;
  granularity?: Granularity;
}

/**
 * One bucket of a stats series: its start (ms) and its counters. Campaigns, blocks and exchange campaigns count
 * different things, and the charts draw any of them by name.
 */
export interface SeriesPoint {
  time: number;
  [counter: string]: number;
}

/** What the Reports page asks for (GET /report). */
export interface ReportQuery {
  groupBy?: string;
  from?: number;
  to?: number;
  timeZone?: string;
}

/** A report as the page reads it: its rows looked up by the dimension and figure names it was asked for. */
export type ReportAnswer = Omit<Schemas['ReportDto'], 'rows' | 'totals'> & {
  rows: Record<string, string | number>[];
  totals: Record<string, number>;
};

/** One call to an advertiser's verification endpoint (GET ad/campaign/verification). */
export type VerificationCall = Schemas['VerificationCallDto'];
/** A campaign's verification health: the endpoint, its clicks by outcome and the latest calls. */
export type VerificationHealth = Schemas['VerificationHealthDto'];
/** One reward callback of a rewarded block (GET ad/block/rewards). */
export type RewardDelivery = Schemas['RewardDto'];
/** What a test call to a block's rewardUrl answered (POST ad/block/rewards/test). */
export type RewardTestResult = Schemas['RewardTestResultDto'];
/**
 * One batch of a profile import as the import page shows it (GET user/profile/batch/status): a batch just sent is
 * shown as queued before its first status arrives, so only the fields it shows are required.
 */
export type ProfileBatchStatus = Pick<Schemas['ProfileBatchStatusDto'], 'batchId' | 'status' | 'total' | 'processed'> &
  Partial<Pick<Schemas['ProfileBatchStatusDto'], 'attempts' | 'error'>>;
/** What ad/campaign/forecast answers. */
export type CampaignForecast = Schemas['ForecastDto'];

export type KeyScope = Schemas['KeyResponseDto']['scope'];
/** An API key as the key lists answer it (no secret). */
export type ApiKey = Schemas['KeyResponseDto'];
/** A key as the panel lists it: with its react-admin `id` (the key id). */
export type ApiKeyRecord = ApiKey & RaRecord;
