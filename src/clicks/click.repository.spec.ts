import type { DataSource } from 'typeorm';
import type { Queryable } from '../database/queryable';
import { ClickRepository } from './click.repository';
import type { Click } from './entities/click.entity';

describe(ClickRepository.name, () => {
  it('should insert every click in one statement, with the column defaults for the fields a click leaves out', async () => {
    const statements: { sql: string; params: unknown[] }[] = [];
    const into = { query: async (sql: string, params: unknown[]) => void statements.push({ sql, params }) } as Queryable;
    const repository = new ClickRepository({} as DataSource);
    const counted = {
      id: 'k1',
      campaignId: 'c1',
      advertiserId: 'a1',
      adBlockId: 'b1',
      adId: 'ad_c1',
      messengerUserId: 'u1',
      costMicros: 90_000,
      earningsMicros: 63_000,
      createdAt: 5,
    } as Click;
    const invalid = {
      ...counted,
      id: 'k2',
      costMicros: 0,
      earningsMicros: 0,
      verificationStatus: 'pending',
      status: 'invalid',
      invalidReason: 'datacenter',
      clickToken: 'mip4x2k0aQe1Zr8VtL0pXy7BnC5dFgHjKq',
    } as Click;

    await repository.insertMany(into, [counted, invalid]);

    expect(statements).toHaveLength(1);
    expect(statements[0].sql).toBe(
      'INSERT INTO clicks (id, campaignId, advertiserId, adBlockId, adId, messengerUserId, costMicros, earningsMicros, createdAt, verificationStatus, status, invalidReason, clickToken) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    expect(statements[0].params).toEqual([
      ...['k1', 'c1', 'a1', 'b1', 'ad_c1', 'u1', 90_000, 63_000, 5, 'none', 'counted', null, null],
      ...['k2', 'c1', 'a1', 'b1', 'ad_c1', 'u1', 0, 0, 5, 'pending', 'invalid', 'datacenter', 'mip4x2k0aQe1Zr8VtL0pXy7BnC5dFgHjKq'],
    ]);
  });
});
