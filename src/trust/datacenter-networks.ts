import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * Known data-centre, cloud and hosting networks, by autonomous system. The address ranges come from the IP -> ASN
 * database shipped in the npm package @ip-location-db/asn (RouteViews, the five RIRs and DB-IP; CC BY 4.0): they
 * are refreshed by updating that package, never written here. What is written here is which autonomous systems are
 * hosting: the large clouds and hosters by number (their numbers stay while their ranges move), and any network whose
 * registered organisation calls itself hosting, a data centre, colocation or VPS. CDNs and privacy relays
 * (Cloudflare, Akamai's CDN) are left out on purpose: real users reach the web through them (iCloud Private Relay,
 * WARP). See docs/TRUST_AND_SAFETY.md.
 */
export const HOSTING_ASNS: ReadonlySet<number> = new Set([
  16509,
  14618,
  8987, // Amazon (AWS)
  15169,
  396982,
  19527, // Google, Google Cloud
  8075, // Microsoft (Azure)
  31898, // Oracle Cloud
  36351, // IBM Cloud
  45102,
  37963, // Alibaba Cloud
  132203,
  45090, // Tencent Cloud
  136907,
  55990, // Huawei Cloud
  135377, // UCloud
  14061, // DigitalOcean
  63949, // Linode (Akamai cloud compute)
  20473, // Vultr (The Constant Company)
  16276, // OVHcloud
  24940, // Hetzner
  51167,
  40021, // Contabo
  12876, // Scaleway
  197540, // netcup
  6724, // Strato
  8560, // IONOS
  47583, // Hostinger
  22612, // Namecheap
  26496, // GoDaddy
  46606, // Unified Layer (Bluehost)
  36352,
  54290, // HostPapa (ColoCrossing)
  60781,
  28753,
  16265,
  30633,
  7203, // Leaseweb
  19318, // Interserver
  13213, // UK-2
  23470, // ReliableSite
  200019, // AlexHost
  9009, // M247
  60068, // Datacamp (CDN77)
  40676, // Psychz
  53667, // FranTech (BuyVM)
  8100, // QuadraNet
  29802, // Hivelocity
  32613, // Leaseweb Canada (iWeb)
  396356, // Latitude.sh
]);

/** Organisation names that say hosting outright ("… Hosting Ltd", "… Datacenter", "… VPS"). */
const HOSTING_ORGANISATION = /hosting|data ?cent(?:er|re)s?\b|colocation|\bvps\b|dedicated server/i;

export function isHostingNetwork(asn: number, organisation: string): boolean {
  return HOSTING_ASNS.has(asn) || HOSTING_ORGANISATION.test(organisation);
}

const PACKAGE = '@ip-location-db/asn';
const CACHE_MAX = 100_000;
const IPV4_MAPPED_PREFIX = 0xffffn << 32n;

/** Sorted, non-overlapping inclusive ranges: binary search answers membership in O(log n). */
interface RangeTable<T extends number | bigint> {
  starts: T[] | Uint32Array;
  ends: T[] | Uint32Array;
}

/** Data-centre address ranges in memory (IPv4 and IPv6), with a bounded cache of recent answers. */
export class DatacenterNetworks {
  private readonly cache = new Map<string, boolean>();

  constructor(
    private readonly v4: RangeTable<number>,
    private readonly v6: RangeTable<bigint>,
  ) {}

  /**
   * Reads the package's CSV files (32 MB, a few hundred ms) and keeps only the hosting networks' ranges. The compact
   * table they give (about 200 kB) is kept in the temporary folder, keyed by the package's version and this
   * classification, so that further processes of the same release start without parsing the CSV again.
   */
  static load(options: { cacheDir?: string | null } = {}): DatacenterNetworks {
    const cacheDir = options.cacheDir === undefined ? tmpdir() : options.cacheDir;
    const cacheFile = cacheDir === null ? null : join(cacheDir, `adnet-datacenter-${userInfo().uid}-${tableKey()}.bin`);
    const cached = cacheFile === null ? null : readTable(cacheFile);
    if (cached) return new DatacenterNetworks(cached.v4, cached.v6);
    const v4 = collect(readFileSync(require.resolve(`${PACKAGE}/asn-ipv4-num.csv`), 'latin1'), Number);
    const v6 = collect(readFileSync(require.resolve(`${PACKAGE}/asn-ipv6-num.csv`), 'latin1'), BigInt);
    const table = { v4: { starts: Uint32Array.from(v4.starts), ends: Uint32Array.from(v4.ends) }, v6 };
    if (cacheFile !== null) writeTable(cacheFile, table);
    return new DatacenterNetworks(table.v4, table.v6);
  }

  get rangeCount(): { v4: number; v6: number } {
    return { v4: this.v4.starts.length, v6: this.v6.starts.length };
  }

  /** Whether the address (IPv4, IPv6 or IPv4-mapped IPv6) is in a known data-centre network. */
  contains(ip: string | undefined): boolean {
    if (!ip) return false;
    const cached = this.cache.get(ip);
    if (cached !== undefined) return cached;
    const answer = this.lookup(ip);
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(ip, answer);
    return answer;
  }

  private lookup(ip: string): boolean {
    if (isIPv4(ip)) return inRanges(this.v4, ipv4ToNumber(ip));
    if (!isIPv6(ip)) return false;
    const value = ipv6ToBigInt(ip);
    if (value >> 32n === 0xffffn) return inRanges(this.v4, Number(value - IPV4_MAPPED_PREFIX));
    return inRanges(this.v6, value);
  }
}

interface Table {
  v4: { starts: Uint32Array; ends: Uint32Array };
  v6: { starts: bigint[]; ends: bigint[] };
}

/** Names the dataset's version and the classification: a cached table of another of either is never read. */
function tableKey(): string {
  const version = (JSON.parse(readFileSync(require.resolve(`${PACKAGE}/package.json`), 'utf8')) as { version: string }).version;
  return createHash('sha256')
    .update(`${version}|${[...HOSTING_ASNS].join(',')}|${HOSTING_ORGANISATION.source}`)
    .digest('hex')
    .slice(0, 16);
}

const TABLE_MAGIC = 0x44434e31; // "DCN1"

/** Layout: magic, v4 count, v6 count (uint32 LE), then v4 starts and ends (uint32), then v6 starts and ends (2 x uint64 each). */
function writeTable(file: string, table: Table): void {
  const v4Count = table.v4.starts.length;
  const v6Count = table.v6.starts.length;
  const buffer = Buffer.alloc(12 + v4Count * 8 + v6Count * 32);
  buffer.writeUInt32LE(TABLE_MAGIC, 0);
  buffer.writeUInt32LE(v4Count, 4);
  buffer.writeUInt32LE(v6Count, 8);
  let offset = 12;
  for (const list of [table.v4.starts, table.v4.ends]) {
    for (const value of list) offset = buffer.writeUInt32LE(value, offset);
  }
  for (const list of [table.v6.starts, table.v6.ends]) {
    for (const value of list) {
      offset = buffer.writeBigUInt64BE(value >> 64n, offset);
      offset = buffer.writeBigUInt64BE(value & 0xffffffffffffffffn, offset);
    }
  }
  // written aside and renamed: a process reading meanwhile sees the whole file or none
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, buffer, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // no writable temporary folder: every start parses the CSV
  }
}

function readTable(file: string): Table | null {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch {
    return null;
  }
  if (buffer.length < 12 || buffer.readUInt32LE(0) !== TABLE_MAGIC) return null;
  const v4Count = buffer.readUInt32LE(4);
  const v6Count = buffer.readUInt32LE(8);
  if (buffer.length !== 12 + v4Count * 8 + v6Count * 32) return null;
  const v4 = { starts: new Uint32Array(v4Count), ends: new Uint32Array(v4Count) };
  let offset = 12;
  for (const list of [v4.starts, v4.ends]) {
    for (let i = 0; i < v4Count; i++, offset += 4) list[i] = buffer.readUInt32LE(offset);
  }
  const v6 = { starts: new Array<bigint>(v6Count), ends: new Array<bigint>(v6Count) };
  for (const list of [v6.starts, v6.ends]) {
    for (let i = 0; i < v6Count; i++, offset += 16) list[i] = (buffer.readBigUInt64BE(offset) << 64n) | buffer.readBigUInt64BE(offset + 8);
  }
  return { v4, v6 };
}

function inRanges<T extends number | bigint>(table: RangeTable<T>, value: T): boolean {
  let low = 0;
  let high = table.starts.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (table.starts[mid] > value) high = mid - 1;
    else if (table.ends[mid] < value) low = mid + 1;
    else return true;
  }
  return false;
}

/**
 * The ranges of hosting networks in one `start,end,asn,organisation` CSV (numeric addresses), sorted and merged.
 * Each autonomous system is classified once, not once per range.
 */
function collect<T extends number | bigint>(csv: string, toNumber: (text: string) => T): { starts: T[]; ends: T[] } {
  const hosting = new Map<number, boolean>();
  const ranges: [T, T][] = [];
  let position = 0;
  while (position < csv.length) {
    let lineEnd = csv.indexOf('\n', position);
    if (lineEnd < 0) lineEnd = csv.length;
    const first = csv.indexOf(',', position);
    const second = first < 0 ? -1 : csv.indexOf(',', first + 1);
    const third = second < 0 ? -1 : csv.indexOf(',', second + 1);
    if (third > 0 && third < lineEnd) {
      const asn = Number(csv.slice(second + 1, third));
      let isHosting = hosting.get(asn);
      if (isHosting === undefined) {
        isHosting = isHostingNetwork(asn, csv.slice(third + 1, lineEnd));
        hosting.set(asn, isHosting);
      }
      if (isHosting) ranges.push([toNumber(csv.slice(position, first)), toNumber(csv.slice(first + 1, second))]);
    }
    position = lineEnd + 1;
  }
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const starts: T[] = [];
  const ends: T[] = [];
  for (const [start, end] of ranges) {
    const last = ends.length - 1;
    // adjacent or overlapping: one range
    if (last >= 0 && start <= (typeof end === 'bigint' ? (ends[last] as bigint) + 1n : (ends[last] as number) + 1)) {
      if (end > ends[last]) ends[last] = end;
    } else {
      starts.push(start);
      ends.push(end);
    }
  }
  return { starts, ends };
}

function ipv4ToNumber(ip: string): number {
  const [a, b, c, d] = ip.split('.').map(Number);
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

/** A valid IPv6 address (zone ids dropped) as a 128-bit integer; an embedded dotted IPv4 tail is allowed. */
function ipv6ToBigInt(ip: string): bigint {
  let text = ip.split('%')[0];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = ipv4ToNumber(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...new Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  let value = 0n;
  for (const group of groups) value = (value << 16n) + BigInt(parseInt(group, 16));
  return value;
}
