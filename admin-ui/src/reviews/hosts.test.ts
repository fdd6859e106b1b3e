import { describe, expect, it } from 'vitest';
import { hostChange, hostOf } from './hosts';

describe('review hosts', () => {
  it('should read the lower-case host of a URL', () => {
    expect(hostOf('https://Shop.Example.com/x?y')).toBe('shop.example.com');
    expect(hostOf('not a url')).toBe('not a url');
  });

  it('should name a landing host change only when the host moves', () => {
    expect(hostChange('https://a.example/one', 'https://a.example/two')).toBeNull();
    expect(hostChange('https://a.example/one', 'https://b.example/one')).toEqual({ from: 'a.example', to: 'b.example' });
    expect(hostChange(undefined, 'https://b.example/')).toBeNull();
  });
});
