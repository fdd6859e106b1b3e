import type { ClickInvalidReason } from '../serving/state/serving-state';
import type { InvalidTrafficReason } from '../trust/traffic-classifier';

/**
 * Every `msg` a click report answers, so that an integrator can branch on it instead of parsing English: the values
 * are listed in the DTO's Swagger enum and in the SDK's types. Invalid clicks keep one prefix and name their reason.
 */
export const CLICK_MESSAGES = {
  counted: 'click counted',
  duplicate: 'duplicate click: not counted again',
  testAd: 'test ad: not counted',
  unbilled: 'click recorded, not billed: the campaign is not billable now',
  tooSoon: 'click recorded as invalid traffic: too soon after the impression',
  invalidImpression: 'click recorded as invalid traffic: its impression was invalid traffic',
  emptyUserAgent: 'click recorded as invalid traffic: no User-Agent',
  bot: 'click recorded as invalid traffic: a bot or HTTP library agent',
  datacenter: 'click recorded as invalid traffic: a data-centre network',
} as const;

export type ClickMessage = (typeof CLICK_MESSAGES)[keyof typeof CLICK_MESSAGES];

export const CLICK_MESSAGE_VALUES: ClickMessage[] = Object.values(CLICK_MESSAGES);

/** Every `msg` a completion report (`eventType: complete`, docs/REWARDED_ADS.md) answers; each is a success. */
export const COMPLETION_MESSAGES = {
  counted: 'completion counted',
  duplicate: 'duplicate completion: not counted again',
  tooSoon: "completion not counted: sooner than the block's minViewMs after the ad was served",
  noImpression: 'completion not counted: no matching impression',
  invalid: 'completion recorded as invalid traffic: not counted',
  testAd: 'test ad: not counted',
} as const;

export type CompletionMessage = (typeof COMPLETION_MESSAGES)[keyof typeof COMPLETION_MESSAGES];

export const COMPLETION_MESSAGE_VALUES: CompletionMessage[] = [...new Set(Object.values(COMPLETION_MESSAGES))].filter(
  (message) => !(CLICK_MESSAGE_VALUES as string[]).includes(message),
);

/** The answer's words for an invalid click: the request's own verdict when the request was the reason. */
export function invalidClickMessage(reason: ClickInvalidReason | null, requestReason: InvalidTrafficReason | null): ClickMessage {
  if (reason === 'tooSoon') return CLICK_MESSAGES.tooSoon;
  if (reason === 'invalidImpression') return CLICK_MESSAGES.invalidImpression;
  return CLICK_MESSAGES[requestReason ?? 'bot'];
}
