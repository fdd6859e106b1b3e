import { defaultI18nProvider, type I18nProvider } from 'react-admin';

/** A count with its noun: "1 campaign", "3 campaigns", "12,000 profiles". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}

/** Each resource's name, singular and plural, and its menu entry where that is shorter than the plural. */
export const RESOURCE_NAMES: Record<string, { one: string; many: string; menu?: string }> = {
  campaigns: { one: 'Campaign', many: 'Campaigns' },
  adBlocks: { one: 'Ad block', many: 'Ad blocks' },
  exchangeCampaigns: { one: 'Exchange campaign', many: 'Exchange campaigns', menu: 'Exchange' },
  accounts: { one: 'Account', many: 'Accounts' },
  keys: { one: 'API key', many: 'API keys' },
};

/** The panel's own words where react-admin's English says "Element" or speaks in general terms. */
export const MESSAGES: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(RESOURCE_NAMES).flatMap(([resource, { one, many, menu }]) => [
      // react-admin reads the plural for the menu, the singular for page titles ("Create Campaign").
      [`resources.${resource}.name`, `${one} |||| ${menu ?? many}`],
      [`resources.${resource}.notifications.created`, `${one} created`],
      [`resources.${resource}.notifications.updated`, `${one} saved |||| %{smart_count} ${many.toLowerCase()} saved`],
    ]),
  ),
  'ra.notification.created': 'Created',
  'ra.notification.updated': 'Saved |||| %{smart_count} saved',
  'ra.message.invalid_form': 'Some fields need attention: see the messages under them',
  'ra.notification.item_doesnt_exist': 'Not found: it does not exist, or it is not yours',
};

/** Polyglot's `one |||| many` choice and `%{name}` values, for the messages above. */
function interpolate(message: string, options: Record<string, unknown> = {}): string {
  const forms = message.split(' |||| ');
  const count = typeof options.smart_count === 'number' ? options.smart_count : 1;
  const chosen = forms.length > 1 && count !== 1 ? forms[1] : forms[0];
  return chosen.replace(/%\{(\w+)\}/g, (whole, name: string) => (options[name] === undefined ? whole : String(options[name])));
}

/** react-admin's English, with the panel's messages first. */
export const i18nProvider: I18nProvider = {
  ...defaultI18nProvider,
  translate: (key, options) => (key in MESSAGES ? interpolate(MESSAGES[key], options) : defaultI18nProvider.translate(key, options)),
};
