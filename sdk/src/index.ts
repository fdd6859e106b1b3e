/**
 * `@adnet/sdk`: a typed client of the ad network's Open API, for browsers and Node 20+, without dependencies.
 * - AdnetPublisher: the end user's frontend with a `serve` key (ads, exchange entries, clicks).
 * - AdnetServerClient: your server with a `full` key (campaigns, ad blocks, conversions, events, profiles).
 * Signature checks and viewer tokens need your webhook secret, so they are in `@adnet/sdk/server`.
 */
export { AdnetPublisher, type AdRequest, type ExchangeRequest, type PublisherOptions } from './publisher.js';
export {
  AdBlocksApi,
  AdnetServerClient,
  CampaignsApi,
  PROFILE_BATCH_MAX,
  type PageQuery,
  type ProfileUploadOptions,
  type ProfileUploadProgress,
  type ProfileUploadResult,
} from './server-client.js';
export { AdnetBatchFailedError, AdnetError, AdnetNetworkError, type FieldError } from './errors.js';
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, type CallOptions, type ClientOptions, type RetryPolicy } from './transport.js';
export * from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
