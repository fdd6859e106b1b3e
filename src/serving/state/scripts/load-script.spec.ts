import { loadScript } from './load-script';

describe('loadScript', () => {
  it('should fill in the placeholders a script shares with TypeScript', () => {
    const text = loadScript('serve-many', { USER_LOG_FIELD: '#hour', USER_CAP_WINDOW_MS: 3_600_000, BILL_LEASE: loadScript('bill-lease') });
    expect(text).not.toMatch(/\{\{\w+\}\}/);
    expect(text).toContain("redis.call('HGET', servedKey, '#hour'), now - 3600000)");
  });

  it('should put the billing step serve-many.lua and bill.lua share in both', () => {
    const step = loadScript('bill-lease');
    expect(step).toContain('local function billLease(leases, spent, daySpent, field, micros)');
    expect(loadScript('bill', { BILL_LEASE: step })).toContain(step);
    expect(loadScript('serve-many', { USER_LOG_FIELD: '#hour', USER_CAP_WINDOW_MS: 3_600_000, BILL_LEASE: step })).toContain(step);
  });

  it('should refuse a script whose placeholder has no value', () => {
    expect(() => loadScript('serve-many', { USER_LOG_FIELD: '#hour', BILL_LEASE: '' })).toThrow('script serve-many.lua: no value for {{USER_CAP_WINDOW_MS}}');
  });

  it('should read each script from its own file', () => {
    expect(loadScript('give-back')).toContain("redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1])");
    expect(loadScript('reclaim')).toContain("local holderPrefix = ARGV[1] .. '|'");
  });
});
