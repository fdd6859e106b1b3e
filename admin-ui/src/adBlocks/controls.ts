/** A block's blocked domains as the form's text shows them: one per line. */
export const domainsText = (value: unknown) => (Array.isArray(value) ? value.join('\n') : (value ?? ''));
