import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DayPartitionedTable } from '../database/day-partitions';
import { OwnsEventTables, type EventTablesOwner } from '../retention/event-tables';
import { VerificationCall } from './entities/verification-call.entity';

/** Every statement on the `verification_calls` table. */
@Injectable()
@OwnsEventTables()
export class VerificationCallRepository implements EventTablesOwner {
  private readonly days: DayPartitionedTable;

  constructor(@InjectRepository(VerificationCall) private readonly calls: Repository<VerificationCall>) {
    this.days = new DayPartitionedTable(calls.manager.connection, { table: 'verification_calls', partitionColumn: 'calledAt', timeColumn: 'calledAt' });
  }

  eventTables(): DayPartitionedTable[] {
    return [this.days];
  }

  async insert(call: VerificationCall): Promise<void> {
    await this.calls.insert(call);
  }

  /** A campaign's latest calls, newest first. */
  latest(campaignId: string, limit: number): Promise<VerificationCall[]> {
    return this.calls.find({ where: { campaignId }, order: { calledAt: 'DESC', id: 'DESC' }, take: limit });
  }
}
