import { DynamicModule, Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../app-config';
import { refuseAtOnceAfterRefusal } from './connect-breaker';
import { dataSourceOptions } from './data-source-options';
import { SqliteCheckpointer } from './sqlite-checkpointer';

/** After a refused connection attempt, the next attempt waits this long; requests meanwhile get the refusal at once. */
const CONNECT_RETRY_MS = 250;

/** Installs the breaker of connect-breaker.ts on the MySQL pool (SQLite has no connections to refuse). */
@Injectable()
export class DatabaseConnectBreaker {
  constructor(@InjectDataSource() dataSource: DataSource) {
    const driver = dataSource.driver as unknown as {
      pool?: Parameters<typeof refuseAtOnceAfterRefusal>[0];
      poolCluster?: Parameters<typeof refuseAtOnceAfterRefusal>[0];
    };
    const pool = driver.poolCluster ?? driver.pool;
    if (dataSource.options.type === 'mysql' && pool !== undefined) refuseAtOnceAfterRefusal(pool, CONNECT_RETRY_MS);
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
