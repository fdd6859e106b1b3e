import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Where the SDK's generated types live (committed; `npm run sdk:types` rewrites them). */
export const GENERATED_TYPES_FILE = join(__dirname, '..', 'src', 'generated', 'openapi.ts');

/** The TypeScript the SDK compiles against for this OpenAPI document (render-types.mjs); the same input gives the same text. */
export function renderOpenApiTypes(document: object): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'render-types.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(output).toString('utf8'));
      else reject(new Error(`render-types.mjs exited with ${code}: ${Buffer.concat(errors).toString('utf8')}`));
    });
    child.stdin.end(JSON.stringify(document));
  });
}
