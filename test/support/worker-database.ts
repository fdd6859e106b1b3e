/**
 * Jest setupFilesAfterEnv of the e2e project: on the MySQL profile, this worker's database (TEST_DATABASE_URL,
 * `<database>_w<worker>`) exists before the file's first application starts on it.
 */
import { TEST_DATABASE_URL, TEST_PROFILE } from './profile';

if (TEST_PROFILE === 'mysql') {
  beforeAll(async () => {
    const mysql = await import('mysql2/promise');
    const url = new URL(TEST_DATABASE_URL);
    const database = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/';
    const connection = await mysql.createConnection({ uri: url.toString() });
    try {
      await connection.query(`CREATE DATABASE IF NOT EXISTS \`${database.replace(/`/g, '``')}\``);
    } finally {
      await connection.end();
    }
  });
}
