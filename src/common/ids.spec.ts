import { newId } from './ids';

describe('newId', () => {
  it('should make 26-character ids that sort in creation order, also within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newId(1_700_000_000_000));
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^[0-9a-z]{26}$/);
    expect(newId(1_800_000_000_000) > ids[999]).toBe(true);
  });
});
