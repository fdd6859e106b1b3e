import type { DiscoveryService, Reflector } from '@nestjs/core';
import { Clock } from '../common/clock';
import type { AppConfig } from '../app-config';
import type { DayPartitionedTable, MaintenanceOutcome } from '../database/day-partitions';
import { RetentionService } from './retention.service';

/** A table whose maintenance runs finish when the test says so; it records when each one started. */
function controlledTable() {
  const started: number[] = [];
  const finishers: (() => void)[] = [];
  const table = {
    table: 'clicks',
    maintain: (now: number) =>
      new Promise<MaintenanceOutcome>((resolve) => {
        started.push(now);
        finishers.push(() => resolve({ table: 'clicks', addedPartitions: [], droppedPartitions: [], deletedRows: 0 }));
      }),
  } as unknown as DayPartitionedTable;
  return { table, started, finishNext: () => finishers.shift()?.() };
}

function serviceWith(table: DayPartitionedTable): RetentionService {
  const config = { eventRetentionDays: 90, eventPartitionDaysAhead: 7 } as AppConfig;
  const service = new RetentionService(config, new Clock(), {} as DiscoveryService, {} as Reflector);
  (service as unknown as { tables: DayPartitionedTable[] }).tables = [table];
  return service;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe(RetentionService.name, () => {
  it('gives a caller a run that begins after its call, shared with the callers that arrive meanwhile', async () => {
    const { table, started, finishNext } = controlledTable();
    const service = serviceWith(table);

    const first = service.run();
    await turn();
    expect(started).toHaveLength(1);
    // asked for while the first run is under way: one more run, after it, for both callers
    const second = service.run();
    const third = service.run();
    expect(third).toBe(second);
    await turn();
    expect(started).toHaveLength(1);

    finishNext();
    await expect(first).resolves.toHaveLength(1);
    await turn();
    expect(started).toHaveLength(2);
    finishNext();
    await expect(second).resolves.toHaveLength(1);
    expect(started).toHaveLength(2);
  });

  it('waits at shutdown for a run under way, so the database is not closed under it', async () => {
    const { table, finishNext } = controlledTable();
    const service = serviceWith(table);
    void service.run();
    await turn();

    let destroyed = false;
    const destroying = service.onModuleDestroy().then(() => (destroyed = true));
    await turn();
    expect(destroyed).toBe(false);
    finishNext();
    await destroying;
    expect(destroyed).toBe(true);
  });
});
