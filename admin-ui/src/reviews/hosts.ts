/** The host of a landing URL, or the URL itself when it has none. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
}

/** The landing host a revision moves to, when it moves (the known abuse: an approved ad swapping its click URL). */
export function hostChange(approvedUrl: string | undefined, pendingUrl: string): { from: string; to: string } | null {
  if (approvedUrl === undefined) return null;
  const from = hostOf(approvedUrl);
  const to = hostOf(pendingUrl);
  return from === to ? null : { from, to };
}
