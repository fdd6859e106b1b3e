import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQLITE_MIGRATIONS } from './migrations/sqlite';
import { compareWithKnown, schemaDrift } from './schema-drift';

describe(schemaDrift.name, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'adnet-schema-drift-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('should find nothing beyond the known differences in a database the migrations built', async () => {
    const drift = await schemaDrift({ type: 'sqlite', location: join(folder, 'all.sqlite') });
    expect(compareWithKnown('sqlite', drift)).toEqual({ unexpected: [], resolved: [] });
  });

  it('should report what an entity declares and no migration made', async () => {
    // the last migration makes the (status, id) index the campaign entity declares
    const migrations = SQLITE_MIGRATIONS.filter((migration) => migration.name !== 'CampaignStatusIdIndex1763902800000');
    const drift = await schemaDrift({ type: 'sqlite', location: join(folder, 'missing.sqlite') }, { migrations });
    expect(compareWithKnown('sqlite', drift).unexpected).toContain('CREATE INDEX "idx_campaigns_status_id" ON "campaigns" ("status", "id")');
  });

  it('should report a known difference that is gone, so the list only shrinks', () => {
    expect(compareWithKnown('sqlite', []).resolved).toContain('DROP INDEX "idx_clicks_retention"');
  });
});
