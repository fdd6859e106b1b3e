import { DynamicModule, Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../app-config';
import { guardConnectionGetter } from './connect-breaker';
import { dataSourceOptions } from './data-source-options';
import { SqliteCheckpointer } from './sqlite-checkpointer';

/**
 * After a refused connection attempt, the next attempt waits this long; requests meanwhile get the refusal at once.
 * Once a connection request has waited `stalledMs` (twice the read deadline, DATABASE_READ_DEADLINE_MS: its caller
 * has given up), new requests fail at once until the database hands out connections again.
 */
const CONNECTION_GUARD = { retryMs: 250, stalledMs: 1000 };

/** Installs the guard of connect-breaker.ts on the MySQL pool (SQLite has no connections to wait for). */
@Injectable()
export class DatabaseConnectBreaker {
  constructor(@InjectDataSource() dataSource: DataSource) {
    const driver = dataSource.driver as unknown as {
      pool?: Parameters<typeof guardConnectionGetter>[0];
      poolCluster?: Parameters<typeof guardConnectionGetter>[0];
    };
    const pool = driver.poolCluster ?? driver.pool;
    if (dataSource.options.type === 'mysql' && pool !== undefined) guardConnectionGetter(pool, CONNECTION_GUARD);
  }
}

/** Moves an embedded database's WAL checkpoints off the event loop (sqlite-checkpointer.ts); MySQL has none to move. */
@Injectable()
export class DatabaseWalCheckpoints implements OnModuleDestroy {
  private readonly checkpointer: SqliteCheckpointer | undefined;

  constructor(@InjectDataSource() dataSource: DataSource) {
    if (dataSource.options.type !== 'better-sqlite3') return;
    const driver = dataSource.driver as unknown as { databaseConnection: Parameters<typeof SqliteCheckpointer.start>[0] };
    this.checkpointer = SqliteCheckpointer.start(driver.databaseConnection);
  }

  /** Before the ORM closes its connection (on application shutdown), so the connection takes its checkpoints back. */
  async onModuleDestroy(): Promise<void> {
    await this.checkpointer?.stop();
  }
}

@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig, extra: { dropSchema?: boolean } = {}): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.database, config.runMigrations, config.databaseReplicas),
          // Tests start from an empty schema and build it with the real migrations.
          dropSchema: extra.dropSchema ?? false,
          retryAttempts: 3,
          retryDelay: 1000,
        }),
      ],
      providers: [DatabaseConnectBreaker, DatabaseWalCheckpoints],
    };
  }
}
