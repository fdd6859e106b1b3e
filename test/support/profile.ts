/**
 * Which storage profile the e2e suite runs on: `embedded` (SQLite file, in-process state) or `mysql`
 * (MariaDB/MySQL + Redis). test/run-all.js runs the suite once per profile.
 */
export const TEST_PROFILE = process.env.TEST_PROFILE === 'mysql' ? 'mysql' : 'embedded';
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || 'mysql://root@127.0.0.1:3306/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
