import { ValidationError } from '../../common/errors';
import { validateWithDecorators } from '../../common/validation.pipe';
import { ProfileBatchDto, ProfileRecordDto } from './profile.dto';

// Deterministic generator so a failure can be reproduced.
let state = 11;
const random = () => {
  state = (state * 1103515245 + 12345) & 0x7fffffff;
  return state / 0x7fffffff;
};
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
const mostly = <T>(values: readonly T[]): T => (random() < 0.7 ? values[0] : pick(values));

const userIds = ['5012345678', 'u'.repeat(128), 'u'.repeat(129), '', ' ', 42, null, ['x'], '😀'.repeat(65)];
const ips = ['8.8.8.8', '2001:db8::1', '10.0.1', '256.1.1.1', '', 'fe80::1%eth0', 8, null, '01.2.3.4'];
const wallets = ['EQD4FPq', 'w'.repeat(128), 'w'.repeat(129), '', 5, null];
const classes = ['primary', 'evm', 'alt', 'PRIMARY', 'sol', '', null, 1];
const flags = [true, false, null, 'true', 1, 0];
const languages = ['en', 'DE', 'xx', 'en-US', '', null, 5];

describe('ProfileRecordDto.acceptFast agrees with its decorators', () => {
  it('should accept only what the decorators accept, building the same record, on 5,000 generated records', () => {
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const value: Record<string, unknown> = { messengerUserId: mostly(userIds) };
      const optional: [string, readonly unknown[]][] = [
        ['ipAddress', ips],
        ['walletAddress', wallets],
        ['walletClassify', classes],
        ['isPremium', flags],
        ['isHighValue', flags],
        ['walletHasBalance', flags],
        ['language', languages],
      ];
      for (const [key, values] of optional) if (random() < 0.5) value[key] = mostly(values);
      if (random() < 0.1) value.extra = 'dropped';
      const fast = ProfileRecordDto.acceptFast(value);
      if (fast === null) continue;
      accepted += 1;
      const slow = validateWithDecorators(ProfileRecordDto, value);
      expect(fast).toBeInstanceOf(ProfileRecordDto);
      expect(fast).toEqual(slow);
    }
    expect(accepted).toBeGreaterThan(300);
  });

  it('should leave a batch with one bad record to the decorators, which name it', () => {
    const list = Array.from({ length: 100 }, (_, i) => ({ messengerUserId: `u${i}` }));
    expect(ProfileBatchDto.acceptFast({ list })?.list).toHaveLength(100);
    const bad = { list: [...list.slice(0, 50), { messengerUserId: 'x', ipAddress: 'nope' }] };
    expect(ProfileBatchDto.acceptFast(bad)).toBeNull();
    expect(() => validateWithDecorators(ProfileBatchDto, bad)).toThrow(ValidationError);
    try {
      validateWithDecorators(ProfileBatchDto, bad);
    } catch (error) {
      expect((error as ValidationError).errors).toEqual([{ field: 'list.50.ipAddress', message: 'list.50.ipAddress must be a valid IPv4 or IPv6 address' }]);
    }
  });
});
