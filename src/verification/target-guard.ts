import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why a verification URL may not be called; the message is stored with the attempt. */
export class RefusedTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedTargetError';
  }
}

/**
 * True only for globally routable unicast addresses: loopback, private (RFC 1918, fc00::/7), link-local (which
 * holds the cloud metadata address 169.254.169.254), carrier-grade NAT, unspecified, broadcast, multicast and
 * reserved ranges are refused. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

export interface ResolvedTarget {
  url: URL;
  /** The address to connect to: resolved once and checked, so a DNS answer cannot change between check and call. */
  address: string;
  family: 4 | 6;
}

/** Parses and resolves a verification URL; refuses non-http(s) schemes and, unless allowed, non-public addresses. */
export async function resolveTarget(rawUrl: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new RefusedTargetError('verificationUrl is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedTargetError('verificationUrl must be http(s)');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let candidates: { address: string; family: number }[];
  if (isIP(host)) {
    candidates = [{ address: host, family: isIP(host) }];
  } else {
    try {
      candidates = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new RefusedTargetError(`cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  if (candidates.length === 0) throw new RefusedTargetError(`cannot resolve ${host}`);
  // Every address must pass: a name answering one public and one private address is refused.
  const refused = candidates.find((candidate) => !isPublicAddress(candidate.address));
  if (refused && !allowPrivate) {
    throw new RefusedTargetError(`refused: ${host} resolves to the non-public address ${refused.address}`);
  }
  const chosen = candidates[0];
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
