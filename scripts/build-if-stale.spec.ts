import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildState, newestSourceTime, writeStamp } from './build-if-stale';

const layout = { sources: ['src', 'package.json'], outputs: ['dist/src/main.js', 'admin-ui/dist/index.html'], stamp: 'dist/.build-stamp' };
const T0 = Date.UTC(2026, 0, 10, 12) / 1000;

describe('build-if-stale', () => {
  let root: string;

  /** Writes a file whose modification time is `seconds` (since the epoch). */
  const file = (relative: string, seconds: number) => {
    const target = join(root, relative);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, relative);
    utimesSync(target, seconds, seconds);
  };
  const built = () => {
    file('dist/src/main.js', T0 + 20);
    file('admin-ui/dist/index.html', T0 + 20);
    writeStamp(root, newestSourceTime(root, layout.sources), layout.stamp);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
    file('src/main.ts', T0);
    file('src/feature/deep/thing.ts', T0 + 5);
    file('package.json', T0 + 1);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('should find the newest source file in nested folders, and 0 without any', () => {
    expect(newestSourceTime(root, layout.sources)).toBe((T0 + 5) * 1000);
    expect(newestSourceTime(root, ['nothing-here'])).toBe(0);
  });

  it('should build when nothing was built yet', () => {
    expect(buildState(root, layout)).toEqual({ fresh: false, reason: 'dist/src/main.js is missing' });
  });

  it('should skip the build once built, for as long as no source changes', () => {
    built();
    expect(buildState(root, layout)).toEqual({ fresh: true, reason: 'dist/ is newer than the sources' });
  });

  it('should build again after a source changed, however deep', () => {
    built();
    file('src/feature/deep/thing.ts', T0 + 30);
    expect(buildState(root, layout)).toEqual({ fresh: false, reason: 'sources changed since the last build' });
  });

  it('should build again when a source was saved during the last build (newer than what the stamp saw)', () => {
    const beforeBuild = newestSourceTime(root, layout.sources);
    file('src/main.ts', T0 + 10);
    file('dist/src/main.js', T0 + 20);
    file('admin-ui/dist/index.html', T0 + 20);
    writeStamp(root, beforeBuild, layout.stamp);
    expect(buildState(root, layout).fresh).toBe(false);
  });

  it('should not count a test beside the code as a source', () => {
    built();
    file('src/feature/deep/thing.spec.ts', T0 + 40);
    expect(buildState(root, layout).fresh).toBe(true);
  });

  it('should build when an output is gone (the panel deleted) or the stamp is unreadable', () => {
    built();
    rmSync(join(root, 'admin-ui/dist/index.html'));
    expect(buildState(root, layout)).toEqual({ fresh: false, reason: 'admin-ui/dist/index.html is missing' });
    built();
    writeFileSync(join(root, layout.stamp), 'not json');
    expect(buildState(root, layout)).toEqual({ fresh: false, reason: 'no stamp of a build made by npm start' });
  });
});
