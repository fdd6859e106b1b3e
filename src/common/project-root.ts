import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder holding package.json, found from this file whether it runs from src/ or dist/src/. */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
