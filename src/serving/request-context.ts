import { UAParser } from 'ua-parser-js';
import type { Platform } from './campaign-matcher';

/**
 * The language of highest weight in an Accept-Language header, by its primary subtag (`zu-ZA` -> `zu`);
 * `*`, malformed or missing means unknown (null).
 */
const languageCache = new Map<string, string | null>();
const LANGUAGE_CACHE_MAX = 10_000;

export function languageFromAcceptLanguage(header: string | undefined): string | null {
  if (!header) return null;
  // Browsers send a handful of distinct headers over and over.
  const cached = languageCache.get(header);
  if (cached !== undefined) return cached;
  const language = parseAcceptLanguage(header);
  if (languageCache.size >= LANGUAGE_CACHE_MAX) languageCache.clear();
  languageCache.set(header, language);
  return language;
}

function parseAcceptLanguage(header: string): string | null {
  let best: string | null = null;
  let bestWeight = 0;
  for (const part of header.slice(0, 512).split(',')) {
    const [tag, ...params] = part.trim().split(';');
    let weight = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (match) weight = Number(match[1]);
    }
    if (!Number.isFinite(weight) || weight <= 0 || weight > 1) continue;
    const primary = tag.trim().split('-')[0].toLowerCase();
    if (primary === '*' || !/^[a-z]{2,3}$/.test(primary)) continue;
    if (weight > bestWeight) {
      best = primary;
      bestWeight = weight;
    }
  }
  return best;
}

const DESKTOP_SYSTEMS = new Set(['Windows', 'Mac OS', 'macOS', 'Linux', 'Ubuntu', 'Chromium OS', 'Debian', 'Fedora', 'FreeBSD']);
const platformCache = new Map<string, Platform | null>();
const PLATFORM_CACHE_MAX = 10_000;

/** iOS, Android or Desktop from a User-Agent (a real parser, cached: the same few UAs repeat endlessly). */
export function platformFromUserAgent(userAgent: string | undefined): Platform | null {
  if (!userAgent) return null;
  const cached = platformCache.get(userAgent);
  if (cached !== undefined) return cached;
  const os = new UAParser(userAgent.slice(0, 512)).getOS().name ?? '';
  let platform: Platform | null = null;
  if (os === 'iOS' || os === 'iPadOS') platform = 'iOS';
  else if (os === 'Android' || os === 'HarmonyOS') platform = 'Android';
  else if (DESKTOP_SYSTEMS.has(os)) platform = 'Desktop';
  if (platformCache.size >= PLATFORM_CACHE_MAX) platformCache.clear();
  platformCache.set(userAgent, platform);
  return platform;
}
