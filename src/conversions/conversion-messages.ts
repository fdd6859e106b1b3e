/** Every `msg` of a conversion or custom-event answer: a fixed list, in Swagger's enum and the SDK's types. */
export const CONVERSION_MESSAGES = {
  attributed: 'attributed to a click',
  unattributed: 'stored, not attributed: no click to credit within the attribution window',
  /** The advertiser sent this transactionId for this event type before: nothing stored or counted (§20). */
  duplicate: 'duplicate',
} as const;

export type ConversionMessage = (typeof CONVERSION_MESSAGES)[keyof typeof CONVERSION_MESSAGES];

export const CONVERSION_MESSAGE_VALUES: ConversionMessage[] = Object.values(CONVERSION_MESSAGES);

export function conversionMessage(outcome: { attributed: boolean; duplicate?: boolean }): ConversionMessage {
  if (outcome.duplicate) return CONVERSION_MESSAGES.duplicate;
  return outcome.attributed ? CONVERSION_MESSAGES.attributed : CONVERSION_MESSAGES.unattributed;
}
