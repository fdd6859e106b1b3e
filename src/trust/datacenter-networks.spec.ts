import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatacenterNetworks, isHostingNetwork } from './datacenter-networks';
import { TrafficClassifier } from './traffic-classifier';

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

describe('DatacenterNetworks (the @ip-location-db/asn dataset)', () => {
  let networks: DatacenterNetworks;
  beforeAll(() => {
    networks = DatacenterNetworks.load({ cacheDir: null });
  });

  it('should hold thousands of IPv4 and IPv6 ranges', () => {
    expect(networks.rangeCount.v4).toBeGreaterThan(1000);
    expect(networks.rangeCount.v6).toBeGreaterThan(100);
  });

  it.each([
    ['3.5.140.2', 'Amazon AWS'],
    ['52.94.76.1', 'Amazon AWS'],
    ['8.8.8.8', 'Google'],
    ['167.99.241.66', 'DigitalOcean'],
    ['85.10.199.76', 'Hetzner'],
    ['85.214.132.117', 'Strato'],
    ['2.26.36.10', 'UK Dedicated Servers (by its organisation name)'],
    ['2600:1f18::1', 'Amazon AWS (IPv6)'],
    ['2a01:4f8::1', 'Hetzner (IPv6)'],
    ['2001:4860:4860::8888', 'Google (IPv6)'],
    ['2001:678:10b0::1', 'UK Dedicated Servers (IPv6, by its organisation name)'],
    ['::ffff:3.5.140.2', 'Amazon AWS as IPv4-mapped IPv6'],
    ['::FFFF:167.99.241.66', 'DigitalOcean as IPv4-mapped IPv6, upper case'],
    ['0:0:0:0:0:ffff:0355:8c02', 'Amazon AWS as IPv4-mapped IPv6 in hex groups'],
  ])('should list %s (%s)', (ip) => {
    expect(networks.contains(ip)).toBe(true);
  });

  it.each([
    ['73.162.10.20', 'Comcast, a US residential ISP'],
    ['84.150.20.30', 'Deutsche Telekom, a German residential ISP'],
    ['81.2.69.142', 'Andrews & Arnold, a British ISP'],
    ['2001:558::1', 'Comcast (IPv6)'],
    ['2001:678:36c::1', 'Deutsche Telekom (IPv6)'],
    ['::ffff:73.162.10.20', 'Comcast as IPv4-mapped IPv6'],
    ['1.1.1.1', 'Cloudflare: a CDN and privacy relay real users come through'],
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['192.168.1.1', 'private'],
    ['::1', 'IPv6 loopback'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['not-an-ip', 'not an address'],
    ['', 'empty'],
  ])('should not list %s (%s)', (ip) => {
    expect(networks.contains(ip)).toBe(false);
  });

  it('should answer the same from its cache as from the table', () => {
    const first = ['3.5.140.2', '73.162.10.20'].map((ip) => networks.contains(ip));
    const again = ['3.5.140.2', '73.162.10.20'].map((ip) => networks.contains(ip));
    expect(again).toEqual(first);
    expect(first).toEqual([true, false]);
  });

  it('should start from the cached compact table as it would from the CSV, and parse again when the cache is damaged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'adnet-dc-test-'));
    try {
      const probes = ['3.5.140.2', '85.214.132.117', '73.162.10.20', '2600:1f18::1', '2001:4860:4860::8888', '2001:558::1', '::ffff:3.5.140.2'];
      const parsed = DatacenterNetworks.load({ cacheDir: null });
      const first = DatacenterNetworks.load({ cacheDir: dir });
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      const fromCache = DatacenterNetworks.load({ cacheDir: dir });
      for (const networks of [first, fromCache]) {
        expect(networks.rangeCount).toEqual(parsed.rangeCount);
        expect(probes.map((ip) => networks.contains(ip))).toEqual([true, true, false, true, true, false, true]);
      }
      writeFileSync(join(dir, files[0]), 'not a table');
      const repaired = DatacenterNetworks.load({ cacheDir: dir });
      expect(repaired.rangeCount).toEqual(parsed.rangeCount);
      expect(probes.map((ip) => repaired.contains(ip))).toEqual([true, true, false, true, true, false, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('should look up from a table of merged ranges by binary search', () => {
    const table = new DatacenterNetworks({ starts: Uint32Array.from([10, 100]), ends: Uint32Array.from([20, 200]) }, { starts: [5n], ends: [9n] });
    expect(['0.0.0.9', '0.0.0.10', '0.0.0.20', '0.0.0.21', '0.0.0.100', '0.0.0.200', '0.0.0.201'].map((ip) => table.contains(ip))).toEqual([
      false,
      true,
      true,
      false,
      true,
      true,
      false,
    ]);
    expect(['::4', '::5', '::9', '::a', '::ffff:0.0.0.15'].map((ip) => table.contains(ip))).toEqual([false, true, true, false, true]);
  });
});

describe('isHostingNetwork', () => {
  it.each([
    [16509, 'Amazon.com, Inc.', true],
    [24940, 'Hetzner Online GmbH', true],
    [64512, 'Example Hosting Ltd', true],
    [64513, 'Zeta Datacenters B.V.', true],
    [64514, 'Datum Datacentres Limited', true],
    [64515, 'Cheap VPS Inc', true],
    [64516, 'UK Dedicated Servers Limited', true],
    [7922, 'Comcast Cable Communications, LLC', false],
    [3320, 'Deutsche Telekom AG', false],
    [13335, 'Cloudflare, Inc.', false],
    [64518, 'Metadata Systems', false],
  ])('should classify AS%d %s as hosting: %s', (asn, organisation, expected) => {
    expect(isHostingNetwork(asn, organisation)).toBe(expected);
  });
});

describe('TrafficClassifier', () => {
  const classifier = new TrafficClassifier();

  it('should answer datacenter for a browser agent from a data-centre address, null from a residential one', () => {
    expect(classifier.invalidReason({ ip: '3.5.140.2', userAgent: BROWSER })).toBe('datacenter');
    expect(classifier.invalidReason({ ip: '::ffff:167.99.241.66', userAgent: BROWSER })).toBe('datacenter');
    expect(classifier.invalidReason({ ip: '73.162.10.20', userAgent: BROWSER })).toBeNull();
    expect(classifier.invalidReason({ ip: '127.0.0.1', userAgent: BROWSER })).toBeNull();
  });

  it('should name the agent first: empty, then bot, then the network', () => {
    expect(classifier.invalidReason({ ip: '3.5.140.2', userAgent: '  ' })).toBe('emptyUserAgent');
    expect(classifier.invalidReason({ ip: '3.5.140.2', userAgent: 'curl/8.4.0' })).toBe('bot');
  });
});
