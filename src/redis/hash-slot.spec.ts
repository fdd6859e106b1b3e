import { groupBySlot, hashSlot } from './hash-slot';
import { utcDay } from '../common/day';

describe(hashSlot.name, () => {
  it('should compute the slots Redis Cluster gives (CLUSTER KEYSLOT)', () => {
    // values from `redis-cli CLUSTER KEYSLOT <key>` on Redis 7
    expect(hashSlot('foo')).toBe(12182);
    expect(hashSlot('bar')).toBe(5061);
    expect(hashSlot('123456789')).toBe(12739);
    expect(hashSlot('')).toBe(0);
  });

  it('should hash only the first non-empty {tag}, wherever the prefix puts it', () => {
    expect(hashSlot('adnet:spend:{c:42}')).toBe(hashSlot('c:42'));
    expect(hashSlot(`adnet:dspend:{c:42}:${utcDay(Date.UTC(2026, 10, 25))}`)).toBe(hashSlot('adnet:spend:{c:42}'));
    expect(hashSlot('x:{u:7}:{c:42}')).toBe(hashSlot('u:7'));
    // an empty first tag does not count: the whole key is hashed (a later tag neither)
    expect(hashSlot('a{}b')).toBe(13694);
    expect(hashSlot('a{}{b}')).toBe(15033);
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('{user1000}.followers'));
  });

  it('should hash multi-byte keys by their UTF-8 bytes', () => {
    expect(hashSlot('ключ')).toBe(10303);
    expect(hashSlot('{ключ}')).toBe(10303);
  });
});

describe(groupBySlot.name, () => {
  it('should keep items of one slot together, slots in first-seen order and items in their order', () => {
    const keys = ['imps:{u:1}:b', 'spend:{c:9}', 'excls:{u:1}', 'fcaps:{u:2}', 'dspend:{c:9}:d', 'clk:{u:1}:b:a'];
    const groups = groupBySlot(keys, (key) => key);
    expect(groups).toEqual([['imps:{u:1}:b', 'excls:{u:1}', 'clk:{u:1}:b:a'], ['spend:{c:9}', 'dspend:{c:9}:d'], ['fcaps:{u:2}']]);
  });

  it('should answer no group for no items', () => {
    expect(groupBySlot([], (key: string) => key)).toEqual([]);
  });
});
