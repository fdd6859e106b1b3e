import type { FieldError } from '../api';

/**
 * The label of each input, by the field path the API names in its errors (`budget.amount`). A path means the same
 * thing in every resource that has it (`destination.url` of a campaign's ad and of an exchange campaign), so one
 * map serves every form.
 */
export const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  roles: 'Roles',
  'targeting.includedRegions': 'Included regions',
  'targeting.excludedRegions': 'Excluded regions',
  'targeting.includedLanguages': 'Included languages',
  'targeting.excludedLanguages': 'Excluded languages',
  'targeting.platform': 'Platform',
  'targeting.messengerPremium': 'Premium members only',
  'targeting.isHighValueUser': 'High-value users only',
  'targeting.userLinkedChainWallet': 'Linked a primary-chain wallet',
  'targeting.userLinkedWallet': 'Linked any wallet',
  'targeting.userWalletHasBalanceOnChain': 'Wallet holds a balance on chain',
  'budget.amount': 'Daily budget',
  'budget.total': 'Total budget',
  'budget.strategy': 'Strategy',
  'budget.startTime': 'Start',
  'budget.endTime': 'End',
  'bidding.billingType': 'Billing type',
  'bidding.costPer': 'Bid',
  'ad.adFormat': 'Format',
  'ad.destination.actionType': 'Action',
  'ad.destination.url': 'Destination URL',
  'ad.popupImage': 'Image URL',
  'ad.icon': 'Icon URL',
  'ad.text': 'Text',
  'ad.brandName': 'Brand name',
  'ad.buttonText': 'Button text',
  'frequencyCap.impressions': 'Impressions per user',
  'frequencyCap.hours': 'Window (hours)',
  verificationUrl: 'Verification URL',
  icon: 'Icon URL',
  image: 'Image URL',
  text: 'Text',
  'destination.actionType': 'Action',
  'destination.url': 'Destination URL',
  requireSignedViewer: 'Require signed viewer',
  label: 'Label',
  scope: 'Scope',
  allowedOrigins: 'Allowed origins',
  header: 'Header row',
  file: 'File',
};

/** Longest first, so `ad.destination.url` is replaced before a shorter path inside it could be. */
const PATHS = Object.keys(FIELD_LABELS).sort((left, right) => right.length - left.length);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path as a word of its own: not a piece of a longer path (`url` in `ad.destination.url`) or of a word. */
const PATH_PATTERN = new RegExp(`(?<![\\w.])(${PATHS.map(escape).join('|')})(?![\\w.])(\\s*\\((\\w+)\\))?`, 'g');
/** A CSV row's field: `line.3.walletClassify`. */
const LINE_PATTERN = /(?<![\w.])line\.(\d+)(?:\.([\w.]+))?(?![\w.])/g;

/** A label in the middle of a sentence: lower-cased, unless it starts with an acronym (`URL`). */
const inSentence = (label: string) => (/^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1));

/**
 * The API's message with each field path replaced by its form label: "budget.amount (daily) must not exceed
 * budget.total" reads "Daily budget must not exceed total budget". A parenthesis after a path that only repeats
 * what the label says ("(daily)") goes; a CSV row's `line.3.walletClassify` reads "Line 3, walletClassify".
 */
export function humanizeMessage(message: string): string {
  return message
    .replace(PATH_PATTERN, (match: string, path: string, parenthesis: string | undefined, word: string | undefined, offset: number) => {
      // A plain word (`name`, `text`) is a field only where the API puts one: at the start.
      if (offset > 0 && !path.includes('.')) return match;
      const label = FIELD_LABELS[path];
      const repeats = word !== undefined && label.toLowerCase().includes(word.toLowerCase());
      return (offset === 0 ? label : inSentence(label)) + (parenthesis && !repeats ? parenthesis : '');
    })
    .replace(LINE_PATTERN, (_match, line: string, column: string | undefined) => (column ? `Line ${line}, ${column}` : `Line ${line}`));
}

/** The field errors of a 400 with human messages; their `field` stays the path, which places them under their input. */
export const humanizeFieldErrors = (errors: FieldError[]): FieldError[] => errors.map(({ field, message }) => ({ field, message: humanizeMessage(message) }));
