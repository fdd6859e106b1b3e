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
    ['not an ip', false],
  ])('isPublicAddress(%s) is %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses non-http schemes, bad URLs and private literal hosts unless private targets are allowed', async () => {
    await expect(resolveTarget('ftp://example.com/v', false)).rejects.toBeInstanceOf(RefusedTargetError);
    await expect(resolveTarget('not a url', false)).rejects.toThrow('not a valid URL');
    await expect(resolveTarget('http://127.0.0.1:8080/v', false)).rejects.toThrow('non-public address 127.0.0.1');
    await expect(resolveTarget('http://[::1]/v', false)).rejects.toThrow('non-public address ::1');
    await expect(resolveTarget('http://169.254.169.254/latest/meta-data', false)).rejects.toThrow('169.254.169.254');
    await expect(resolveTarget('http://localhost:9/v', false)).rejects.toThrow(/non-public address (127\.0\.0\.1|::1)/);
    await expect(resolveTarget('http://127.0.0.1:8080/v', true)).resolves.toMatchObject({ address: '127.0.0.1', family: 4 });
    await expect(resolveTarget('https://8.8.8.8/v', false)).resolves.toMatchObject({ address: '8.8.8.8' });
  });
});
