import { billedAtOf, clickIdOf, dayOf, leaseField, pendingClickField } from './lease-fields';
import type { ClickRequest } from './serving-state';
import { utcDay } from '../../common/day';

const DAY = utcDay(Date.UTC(2031, 4, 6));

const click = (fields: Partial<ClickRequest> = {}) =>
  ({ userId: 'u1', adBlockId: 'b1', adId: 'ad_c1', now: 1_700_000_000_000, day: DAY, clickId: 'k1', ...fields }) as ClickRequest;

describe('lease fields', () => {
  it("should read a lease's day and no click from its field", () => {
    const field = leaseField('h1', DAY);
    expect(field).toBe(`h1|${DAY}`);
    expect([dayOf(field), billedAtOf(field), clickIdOf(field)]).toEqual([DAY, null, null]);
  });

  it("should read back a pending click's day, billing time and row id", () => {
    const field = pendingClickField('h1', click(), 1_700_000_000_123);
    expect(field.startsWith(`${leaseField('h1', click().day)}|`)).toBe(true);
    expect([dayOf(field), billedAtOf(field), clickIdOf(field)]).toEqual([click().day, 1_700_000_000_123, 'k1']);
  });

  it('should answer no row id for a billed click that has none yet', () => {
    const field = pendingClickField('h1', click({ clickId: undefined }), 5);
    expect([billedAtOf(field), clickIdOf(field)]).toEqual([5, null]);
  });
});
