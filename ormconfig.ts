import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/app-config';
import { dataSourceOptions } from './src/database/data-source-options';

/**
 * The DataSource of the TypeORM CLI: `npm run migration:generate -- src/database/migrations/<mysql|sqlite>/<Name>`
 * and `npm run migration:run`. DATABASE_URL picks MySQL (mysql://…) or SQLite (sqlite:<path>, the default).
 */
const config = loadConfig();
export default new DataSource(dataSourceOptions(config.database, false));
