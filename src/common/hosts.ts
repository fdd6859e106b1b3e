/**
 * Host names as publishers name them in an ad block's `blockedDomains` (docs/CONTRACT.md §18): a listed name blocks
 * that host and every subdomain of it, never a look-alike (`example.com` blocks `shop.example.com`, not
 * `badexample.com`).
 */

/** Longest host name DNS allows. */
export const MAX_HOST_LENGTH = 253;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A DNS host name of at least two labels (`example.com`), letters, digits and inner hyphens; any case. */
export function isHostName(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_HOST_LENGTH) return false;
  const labels = value.toLowerCase().split('.');
  if (labels.length < 2) return false;
  // the last label is a top-level domain: not all digits (that would be an IP address)
  return labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels[labels.length - 1]);
}

/** The lower-case host of an http(s) URL, or '' when it has none. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** The first of `blocked` (lower-case names) that is `host` or a parent domain of it; null when none is. */
export function blockingDomain(host: string, blocked: readonly string[]): string | null {
  for (const domain of blocked) {
    if (host === domain || (host.length > domain.length && host.endsWith(domain) && host[host.length - domain.length - 1] === '.')) return domain;
  }
  return null;
}
