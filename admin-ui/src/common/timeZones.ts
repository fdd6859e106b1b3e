/** The IANA zone names this browser knows, UTC first: the choices of the account's time zone. */
export function timeZoneChoices(): { id: string; name: string }[] {
  const names = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...names.filter((name) => name !== 'UTC')].map((name) => ({ id: name, name: name.replace(/_/g, ' ') }));
}

/** The browser's own zone, offered first when an account is made. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
