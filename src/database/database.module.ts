import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../app-config';
import { dataSourceOptions } from './data-source-options';

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
    };
  }
}
