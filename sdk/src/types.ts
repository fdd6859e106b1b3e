/**
 * The shapes the SDK sends and answers, named after what they are. Every one comes from the service's OpenAPI
 * document (generated/openapi.ts, `npm run sdk:types`), so a change of the API shows up here as a type error.
 */
import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];
type QueryOf<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>;

// Publisher side
export type ServedAd = Schemas['ServedAdDto'];
export type ClickResult = Schemas['ClickResultDto'];
/** What reportComplete answers: the click route's answer shape, with a `completion …` message. */
export type CompletionResult = Schemas['ClickResultDto'];
/** Every `msg` a click report can answer: branch on it (`'click counted'`, an invalid click's reason, …). */
export type ClickMessage = Schemas['ClickMessage'];
export type ExchangeEntry = Schemas['ExchangeEntryDto'];
export type ExchangeClickResult = Schemas['ExchangeClickResultDto'];

// Campaigns
export type CampaignCreate = Schemas['CampaignCreateDto'];
export type CampaignUpdate = Omit<Schemas['CampaignUpdateDto'], 'campaignId'>;
export type CampaignStatusAction = Schemas['CampaignStatusDto']['status'];
export type Campaign = Schemas['CampaignResponseDto'];
export type CampaignListItem = Schemas['CampaignListItemDto'];
export type CampaignPage = Schemas['CampaignListDto'];
export type CampaignSeries = Schemas['CampaignSeriesDto'];
export type CampaignSeriesQuery = QueryOf<'StatsController_campaignSeries'>;

// Ad blocks
export type AdBlockCreate = Schemas['AdBlockCreateDto'];
export type AdBlockUpdate = Omit<Schemas['AdBlockUpdateDto'], 'adBlockId'>;
export type AdBlock = Schemas['AdBlockResponseDto'];
export type AdBlockPage = Schemas['AdBlockListDto'];
export type AdBlockSeries = Schemas['AdBlockSeriesDto'];
export type AdBlockSeriesQuery = QueryOf<'StatsController_adBlockSeries'>;

// Accounts, conversions, profiles
export type AccountMe = Schemas['AccountMeDto'];
export type ApiKeyCreate = Schemas['KeyCreateDto'];
export type ApiKeyCreated = Schemas['KeyCreatedDto'];
export type ApiKey = Schemas['KeyResponseDto'];
export type ConversionResult = Schemas['ConversionResultDto'];
/**
 * Who converted: the user, or the `{click_id}` your landing URL received (docs/CONTRACT.md §20); `transactionId`
 * makes a repeat of the same event answer `duplicate` and count nothing.
 */
export type ConversionSubject = Schemas['ConversionEventDataDto'];
export type Report = Schemas['ReportDto'];
export type ReportQuery = QueryOf<'ReportsController_report'>;
/** Whether a conversion or custom event was credited to a click. */
export type ConversionMessage = Schemas['ConversionMessage'];
export type ProfileRecord = Schemas['ProfileRecordDto'];
export type ProfileBatchStatus = Schemas['ProfileBatchStatusDto'];
export type ProfileCsvImported = Schemas['ProfileCsvImportedDto'];

/** The custom events of docs/CONTRACT.md §13, reported with `sendEvent`. */
export const CUSTOM_EVENT_TYPES = ['onboard', 'register', 'play', 'payment', 'withdraw'] as const;
export type CustomEventType = (typeof CUSTOM_EVENT_TYPES)[number];
/** `sendEvent` answers like a conversion: `{status: "success"}`. */
export type CustomEventResult = ConversionResult;
