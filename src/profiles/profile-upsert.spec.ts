import { fieldMask, toProfileRow } from './profile-upsert';
import { upsertStatement } from './profiles.repository';
import { decodeFacts, encodeFacts, factsOf } from './store/profile-store';
import { ProfileRecordDto } from './dto/profile.dto';

const record = (value: Partial<ProfileRecordDto>) => Object.assign(new ProfileRecordDto(), value);

describe('profile upsert', () => {
  it('should keep absent fields absent, nulls as nulls, clear the class with the wallet and lower-case the language', () => {
    expect(toProfileRow(record({ messengerUserId: 'u', isPremium: true }))).toEqual({ messengerUserId: 'u', isPremium: true });
    expect(toProfileRow(record({ messengerUserId: 'u', walletAddress: null, ipAddress: null, language: 'DE' }))).toEqual({
      messengerUserId: 'u',
      walletAddress: null,
      walletClassify: null,
      ipAddress: null,
      language: 'de',
    });
    expect(toProfileRow(record({ messengerUserId: 'u', walletAddress: 'EQ', walletClassify: 'alt' }))).toEqual({
      messengerUserId: 'u',
      walletAddress: 'EQ',
      walletClassify: 'alt',
    });
  });

  it('should mark the carried fields, null ones included', () => {
    expect(fieldMask({ messengerUserId: 'u' })).toBe(0);
    expect(fieldMask({ messengerUserId: 'u', ipAddress: null })).toBe(1);
    expect(fieldMask({ messengerUserId: 'u', walletAddress: 'w', walletClassify: 'evm', language: 'en' })).toBe(2 | 4 | 64);
  });

  it('should build one multi-row statement per chunk for each database, every row keyed by the publisher', () => {
    const rows = [
      { messengerUserId: 'a', isPremium: true },
      { messengerUserId: 'b', ipAddress: '8.8.8.8', isHighValue: false },
    ];
    const mysql = upsertStatement('mysql', 'pub1', rows, 1000);
    expect(mysql.sql.match(/\(\?(, \?){10}\)/g)).toHaveLength(2);
    expect(mysql.sql).toContain(
      'ON DUPLICATE KEY UPDATE `ipAddress` = CASE WHEN (VALUES(`lastFields`) & 1) <> 0 THEN VALUES(`ipAddress`) ELSE `ipAddress` END',
    );
    expect(mysql.params).toEqual([
      'pub1',
      'a',
      null,
      null,
      null,
      1,
      null,
      null,
      null,
      8,
      1000,
      'pub1',
      'b',
      '8.8.8.8',
      null,
      null,
      null,
      0,
      null,
      null,
      17,
      1000,
    ]);
    const sqlite = upsertStatement('sqlite', 'pub1', rows, 1000);
    expect(sqlite.sql).toContain('ON CONFLICT("accountId", "messengerUserId") DO UPDATE SET "ipAddress" = CASE WHEN (excluded."lastFields" & 1) <> 0');
    expect(sqlite.params).toEqual(mysql.params);
  });
});

describe('profile facts', () => {
  it('should derive the targeting flags of docs/CONTRACT.md §8 from a stored profile', () => {
    const base = { ipAddress: null, walletAddress: null, walletClassify: null, isPremium: null, isHighValue: null, walletHasBalance: null, language: null };
    expect(factsOf(base)).toEqual({
      premium: false,
      highValue: false,
      linkedWallet: false,
      linkedChainWallet: false,
      walletHasBalance: false,
      language: null,
      ipAddress: null,
    });
    expect(factsOf({ ...base, walletAddress: 'EQ', walletClassify: 'primary', isPremium: 1, isHighValue: 0, walletHasBalance: true })).toEqual(
      expect.objectContaining({ premium: true, highValue: false, linkedWallet: true, linkedChainWallet: true, walletHasBalance: true }),
    );
    expect(factsOf({ ...base, walletAddress: '0x1', walletClassify: 'evm' })).toEqual(
      expect.objectContaining({ linkedWallet: true, linkedChainWallet: false }),
    );
  });

  it('should read back what it encodes for Redis', () => {
    const facts = {
      premium: true,
      highValue: false,
      linkedWallet: true,
      linkedChainWallet: false,
      walletHasBalance: true,
      language: 'de',
      ipAddress: '2001:db8::1',
    };
    expect(encodeFacts(facts)).toBe('21|de|2001:db8::1');
    expect(decodeFacts(encodeFacts(facts))).toEqual(facts);
    const empty = { ...facts, premium: false, linkedWallet: false, walletHasBalance: false, language: null, ipAddress: null };
    expect(decodeFacts(encodeFacts(empty))).toEqual(empty);
    expect(decodeFacts('garbage')).toBeNull();
  });
});
