import { isPublicAddress, RefusedTargetError, resolveTarget } from './target-guard';

describe('verification target guard', () => {
  it.each([
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['127.8.8.8', false],
    ['10.0.0.5', false],
    ['172.16.3.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['2a00:1450:4001:80b::200e', true],
    ['64:ff9b::808:808', true],
    // IPv4-compatible (::/96) carrying any IPv4, public or not
    ['::127.0.0.1', false],
    ['::8.8.8.8', false],
    ['::a00:1', false],
    // IPv4-mapped private and NAT64 to private IPv4
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['::ffff:0:0', false],
    ['64:ff9b::127.0.0.1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::10.1.2.3', false],
    // local-use NAT64, IPv4-translated
    ['64:ff9b:1::808:808', false],
    ['::ffff:0:8.8.8.8', false],
    // 6to4 and Teredo (embedding private or public IPv4)
    ['2002:7f00:1::1', false],
    ['2002:a00:1::1', false],
    ['2002:c0a8:101::1', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    // documentation, benchmarking, ORCHID, AMT, AS112, discard, site-local, multicast, unassigned
    ['2001:db8::1', false],
    ['3fff::1', false],
    ['2001:2::1', false],
    ['2001:20::1', false],
    ['2001:3::1', false],
    ['2001:4:112::1', false],
    ['100::1', false],
    ['fec0::1', false],
    ['ff02::1', false],
    ['ff0e::1', false],
    ['4000::1', false],
    ['5f00::1', false],
    ['fe80::1%eth0', false],
    ['not an ip', false],
  ])('isPublicAddress(%s) is %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses non-http schemes, bad URLs and private literal hosts unless private targets are allowed', async () => {
    await expect(resolveTarget('ftp://example.com/v', false)).rejects.toBeInstanceOf(RefusedTargetError);
    await expect(resolveTarget('not a url', false)).rejects.toThrow('not a valid URL');
    await expect(resolveTarget('http://127.0.0.1:8080/v', false)).rejects.toThrow('non-public address 127.0.0.1');
    await expect(resolveTarget('http://[::1]/v', false)).rejects.toThrow('non-public address ::1');
    await expect(resolveTarget('http://[::127.0.0.1]/v', false)).rejects.toThrow('non-public address');
    await expect(resolveTarget('http://[::ffff:192.168.0.1]/v', false)).rejects.toThrow('non-public address');
    await expect(resolveTarget('http://[64:ff9b::169.254.169.254]/v', false)).rejects.toThrow('non-public address');
    await expect(resolveTarget('http://169.254.169.254/latest/meta-data', false)).rejects.toThrow('169.254.169.254');
    await expect(resolveTarget('http://localhost:9/v', false)).rejects.toThrow(/non-public address (127\.0\.0\.1|::1)/);
    await expect(resolveTarget('http://127.0.0.1:8080/v', true)).resolves.toMatchObject({ address: '127.0.0.1', family: 4 });
    await expect(resolveTarget('https://8.8.8.8/v', false)).resolves.toMatchObject({ address: '8.8.8.8' });
  });
});
