import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The database's side of the health check. */
@Injectable()
export class HealthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Resolves when the database answers a trivial query. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
