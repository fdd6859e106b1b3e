import { loadScript } from './load-script';

describe('loadScript', () => {
  it('should fill in the placeholders a script shares with TypeScript', () => {
    const text = loadScript('serve-many', { USER_LOG_FIELD: '#hour', USER_CAP_WINDOW_MS: 3_600_000 });
    expect(text).not.toMatch(/\{\{\w+\}\}/);
    expect(text).toContain("redis.call('HGET', servedKey, '#hour'), now - 3600000)");
  });

  it('should refuse a script whose placeholder has no value', () => {
    expect(() => loadScript('serve-many', { USER_LOG_FIELD: '#hour' })).toThrow('script serve-many.lua: no value for {{USER_CAP_WINDOW_MS}}');
  });

  it('should read each script from its own file', () => {
    expect(loadScript('give-back')).toContain("redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1])");
    expect(loadScript('reclaim')).toContain("local holderPrefix = ARGV[1] .. '|'");
  });
});
