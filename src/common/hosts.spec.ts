import { blockingDomain, hostOf, isHostName } from './hosts';

describe('hosts', () => {
  it.each(['example.com', 'Shop.Example.COM', 'a-b.c0.io', 'xn--80ak6aa92e.com', `${'a'.repeat(63)}.com`])('should take %s as a host name', (value) => {
    expect(isHostName(value)).toBe(true);
  });

  it.each([
    '',
    'com',
    'example..com',
    '-a.com',
    'a-.com',
    'a_b.com',
    'https://example.com',
    'example.com/',
    '1.2.3.4',
    'exa mple.com',
    `${'a'.repeat(64)}.com`,
    5,
    null,
  ])('should refuse %p', (value) => {
    expect(isHostName(value)).toBe(false);
  });

  it('should block a listed name and its subdomains, never a look-alike', () => {
    const blocked = ['example.com', 'bet.io'];
    expect(blockingDomain('example.com', blocked)).toBe('example.com');
    expect(blockingDomain('shop.example.com', blocked)).toBe('example.com');
    expect(blockingDomain('a.b.bet.io', blocked)).toBe('bet.io');
    expect(blockingDomain('badexample.com', blocked)).toBeNull();
    expect(blockingDomain('example.com.evil.net', blocked)).toBeNull();
    expect(blockingDomain('com', blocked)).toBeNull();
  });

  it('should read the lower-case host of a URL', () => {
    expect(hostOf('https://Shop.Example.com:8443/x?y=1')).toBe('shop.example.com');
    expect(hostOf('not a url')).toBe('');
  });
});
