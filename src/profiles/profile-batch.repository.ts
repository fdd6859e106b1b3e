import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, LessThan, Repository } from 'typeorm';
import { WriteDeadline } from '../common/write-deadline';
import { ProfileBatch } from './entities/profile-batch.entity';

type BatchChange = Partial<Pick<ProfileBatch, 'status' | 'attempts' | 'processed' | 'records' | 'error' | 'updatedAt' | 'finishedAt'>>;

/** The `profile_batches` table: accepted uploads from staging to done. */
@Injectable()
export class ProfileBatchRepository {
  private readonly batches: Repository<ProfileBatch>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.batches = dataSource.getRepository(ProfileBatch);
  }

  async insert(batch: ProfileBatch): Promise<void> {
    await this.batches.insert(batch);
  }

  /** The insert in a transaction held to `deadline`: past it, rolled back, never committed after the answer. */
  async insertWithin(batch: ProfileBatch, deadline: WriteDeadline): Promise<void> {
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.getRepository(ProfileBatch).insert(batch);
        deadline.beforeCommit();
      });
    } catch (error) {
      deadline.rolledBack();
      throw error;
    }
  }

  findById(id: string): Promise<ProfileBatch | null> {
    return this.batches.findOne({ where: { id } });
  }

  /** What the status route shows (the records left out). */
  statusOf(id: string): Promise<ProfileBatch | null> {
    return this.batches.findOne({
      select: { id: true, accountId: true, status: true, total: true, processed: true, attempts: true, error: true, createdAt: true, finishedAt: true },
      where: { id },
    });
  }

  /** The batches still to apply, oldest first. */
  async unfinishedIds(): Promise<string[]> {
    const rows = await this.batches.find({ select: { id: true }, where: { status: In(['queued', 'processing']) }, order: { createdAt: 'ASC' } });
    return rows.map((row) => row.id);
  }

  async update(id: string, change: BatchChange): Promise<void> {
    await this.batches.update({ id }, change);
  }

  async delete(id: string): Promise<void> {
    await this.batches.delete({ id });
  }

  /** Staged CSV chunks become queued. */
  async releaseStaged(ids: string[], now: number): Promise<void> {
    await this.batches.update({ id: In(ids), status: 'staged' }, { status: 'queued', updatedAt: now });
  }

  async deleteStaged(ids: string[]): Promise<void> {
    await this.batches.delete({ id: In(ids), status: 'staged' });
  }

  /** Staged chunks of imports abandoned before `before`. */
  async deleteStagedBefore(before: number): Promise<void> {
    await this.batches.delete({ status: 'staged', createdAt: LessThan(before) });
  }
}
