import { loadConfig } from './app-config';
import { startupSummary } from './startup-summary';

describe(startupSummary.name, () => {
  it('should say, in a few lines, the profile, the URLs and where the admin key comes from', () => {
    const config = loadConfig({});
    expect(startupSummary(config, 3000, { kind: 'file', file: './data/admin-key', created: true }).lines).toEqual([
      'listening on http://localhost:3000 (embedded profile: SQLite ./data/adnet.sqlite, in-process queues and serving state)',
      'API docs:    http://localhost:3000/docs',
      'Admin panel: http://localhost:3000/admin/ — admin key in ./data/admin-key (created now)',
      'Metrics:     http://localhost:3000/metrics (an admin key)',
    ]);
  });

  it('should name the MySQL + Redis profile without the database password, and who runs the queue jobs', () => {
    const config = loadConfig({
      DATABASE_URL: 'mysql://adnet:s3cret@db.internal:3306/adnet',
      REDIS_URL: 'redis://cache:6379',
      QUEUE_WORKERS: 'false',
      HOST: '10.1.2.3',
      METRICS_TOKEN: 'metrics-token-0123456789abcdef',
    });
    const summary = startupSummary(config, 8080, { kind: 'environment' });
    expect(summary.headline).toBe(
      'listening on http://10.1.2.3:8080 (MySQL + Redis profile: MySQL mysql://adnet:***@db.internal:3306/adnet, BullMQ queues on Redis, jobs run by `npm run start:worker` (QUEUE_WORKERS=false))',
    );
    expect(summary.lines.slice(2)).toEqual([
      'Admin panel: http://10.1.2.3:8080/admin/ — admin key from ADMIN_API_KEY',
      'Metrics:     http://10.1.2.3:8080/metrics (an admin key, or METRICS_TOKEN as a bearer token)',
    ]);
    expect(summary.fields).toEqual(expect.objectContaining({ profile: 'MySQL + Redis profile', adminKey: 'ADMIN_API_KEY', adminKeyWorks: true }));
  });

  it('should say when the admin key it was given no longer logs in', () => {
    const config = loadConfig({});
    expect(startupSummary(config, 3000, { kind: 'environment' }, false).lines[2]).toBe(
      'Admin panel: http://localhost:3000/admin/ — the ADMIN_API_KEY given was revoked: start with another value',
    );
  });
});
