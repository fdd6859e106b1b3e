import { describe, expect, it } from 'vitest';
import { adBlockBody, parseDomains } from '../dataProvider/adBlocks';
import { domainsText } from './controls';

describe('ad block controls in the form', () => {
  it('should send floors and lists, an emptied floor left out at create and removed (null) at update', () => {
    const data = { name: 'B', floorCpm: 2.5, floorCpc: '', blockedCategories: ['gambling'], blockedDomains: 'a.example, b.example\nc.example' };
    expect(adBlockBody(data)).toEqual({ name: 'B', floorCpm: 2.5, blockedCategories: ['gambling'], blockedDomains: ['a.example', 'b.example', 'c.example'] });
    expect(adBlockBody(data, true)).toEqual({
      name: 'B',
      floorCpm: 2.5,
      floorCpc: null,
      blockedCategories: ['gambling'],
      blockedDomains: ['a.example', 'b.example', 'c.example'],
    });
  });

  it('should read the domains text both ways', () => {
    expect(parseDomains(['x.example'])).toEqual(['x.example']);
    expect(parseDomains('')).toEqual([]);
    expect(parseDomains(null)).toEqual([]);
    expect(domainsText(['a.example', 'b.example'])).toBe('a.example\nb.example');
    expect(domainsText(undefined)).toBe('');
  });
});
