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

/** IPv6 global unicast (RFC 4291 2.4): every address outside it is unassigned or special. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291): ipaddr.js names no range for it, so it reads as unicast. */
const IPV4_COMPATIBLE_V6 = ipaddr.parseCIDR('::/96');
/** The NAT64 well-known prefix (RFC 6052): its last 32 bits are the IPv4 address a NAT64 gateway connects to. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * True only for globally routable unicast addresses. IPv4: loopback, private (RFC 1918), link-local (which holds
 * the cloud metadata address 169.254.169.254), carrier-grade NAT, unspecified, broadcast, multicast and the reserved
 * and documentation ranges are refused (every ipaddr.js range but `unicast`). IPv6: only global unicast (2000::/3)
 * outside every special range ipaddr.js names (Teredo, 6to4, benchmarking, ORCHID, AMT, AS112, documentation and
 * IETF protocol assignments) is allowed; IPv4-mapped (`::ffff:a.b.c.d`) and NAT64 well-known prefix
 * (`64:ff9b::a.b.c.d`) addresses are judged as the IPv4 address they carry; IPv4-compatible (`::a.b.c.d`),
 * IPv4-translated, local-use NAT64 (64:ff9b:1::/48), unique local, link-local, site-local, multicast, loopback and
 * unspecified addresses are refused. See docs/TRUST_AND_SAFETY.md.
 */
export function isPublicAddress(address: string): boolean {
  const canonical = isIP(address) === 6 ? canonicalIPv6(address) : address;
  if (canonical === null || !ipaddr.isValid(canonical)) return false;
  const parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  if (v6.match(NAT64_WELL_KNOWN)) return embeddedIPv4(v6).range() === 'unicast';
  if (v6.match(IPV4_COMPATIBLE_V6)) return false;
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
}

/**
 * The address as the socket layer reads it. ipaddr.js reads the dotted form `::a.b.c.d` as IPv4-mapped
 * (`::ffff:a.b.c.d`), but the connection goes to the IPv4-compatible `::a.b.c.d`: WHATWG URL parsing writes it
 * in hex (`::7f00:1`) as every resolver does. Null for what it cannot parse (a zone id).
 */
function canonicalIPv6(address: string): string | null {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12, 16));
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
