import { readFileSync } from 'node:fs';
import { GENERATED_TYPES_FILE, renderOpenApiTypes } from '../../sdk/scripts/openapi-types';
import { startTestApp, TestApp } from '../support/test-app';

/** Where two texts first differ, as a sentence, or null when they are equal. */
function firstDifference(committed: string, live: string): string | null {
  if (committed === live) return null;
  const committedLines = committed.split('\n');
  const liveLines = live.split('\n');
  let line = 0;
  while (committedLines[line] === liveLines[line]) line++;
  return (
    `sdk/src/generated/openapi.ts differs from the live OpenAPI document from line ${line + 1}: ` +
    `committed ${JSON.stringify(committedLines[line] ?? '<end of file>')}, live ${JSON.stringify(liveLines[line] ?? '<end of file>')}. ` +
    'Run `npm run sdk:types` and commit the result.'
  );
}

describe('SDK types: the committed types are those of the live OpenAPI document', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('generates, from GET /docs-json, exactly sdk/src/generated/openapi.ts', async () => {
    const response = await t.http().get('/docs-json').expect(200);
    const live = await renderOpenApiTypes(response.body as object);
    expect(firstDifference(readFileSync(GENERATED_TYPES_FILE, 'utf8'), live)).toBeNull();
  });

  it('notices a change of the document (a field renamed)', async () => {
    const response = await t.http().get('/docs-json').expect(200);
    const document = response.body as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const served = document.components.schemas.ServedAdDto.properties;
    served.creativeUrl = served.image;
    delete served.image;
    expect(firstDifference(readFileSync(GENERATED_TYPES_FILE, 'utf8'), await renderOpenApiTypes(document))).toMatch(
      /^sdk\/src\/generated\/openapi\.ts differs from the live OpenAPI document from line \d+: .*Run `npm run sdk:types`/,
    );
  });
});
