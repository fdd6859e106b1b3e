import { expect, test } from '@playwright/test';
import { adminKey, apiData, createAccount, login, screenshot } from './support/harness';

function csv(rows: number, prefix: string): Buffer {
  const lines = ['messengerUserId,walletAddress,walletClassify,isPremium'];
  for (let index = 0; index < rows; index++) {
    lines.push(index % 3 === 0 ? `${prefix}-${index},EQwallet${index},primary,true` : `${prefix}-${index},,,false`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

test.describe('profile import', () => {
  test('should import a CSV and follow its batches to the end', async ({ page }) => {
    const publisher = await createAccount(['publisher']);
    await login(page, publisher.apiKey);
    await page.getByRole('menuitem', { name: 'Profile import' }).click();

    await page.getByTestId('csv-file').setInputFiles({ name: 'profiles.csv', mimeType: 'text/csv', buffer: csv(12_000, `pw${Date.now()}`) });
    await page.getByRole('button', { name: 'Import' }).click();

    await expect(page.getByTestId('import-progress')).toBeVisible();
    await expect(page.getByTestId('import-summary')).toHaveText('Done: 12,000 profiles in 3 batches', { timeout: 60_000 });
    await expect(page.getByTestId('import-progress-label')).toHaveText('100 %');
    await expect(page.getByTestId('import-progress')).toHaveAttribute('aria-valuenow', '100');
    const rows = page.locator('[data-testid^="batch-"]');
    await expect(rows).toHaveCount(3);
    const batchIds = await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-testid')!.slice('batch-'.length)));
    const statuses = await Promise.all(batchIds.map((batchId) => apiData(`/api/v2/openapi/user/profile/batch/status?batchId=${batchId}`, publisher.apiKey)));
    expect(statuses.map((status) => [status.status, status.total, status.processed])).toEqual([
      ['done', 5000, 5000],
      ['done', 5000, 5000],
      ['done', 2000, 2000],
    ]);
    await expect(rows.nth(2)).toContainText('2000 / 2000');
    await screenshot(page, '60-profile-import-done');
  });

  test("should make an admin name the publisher an import is for, and write that publisher's profiles", async ({ page }) => {
    const publisher = await createAccount(['publisher'], `Import target ${Date.now()}`);
    await login(page, adminKey());
    await page.getByRole('menuitem', { name: 'Profile import' }).click();
    const user = `pwadmin${Date.now()}`;
    await page.getByTestId('csv-file').setInputFiles({
      name: 'one.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`messengerUserId,walletAddress,walletClassify,isPremium\n${user},,,true\n`),
    });
    // nothing is preselected: no import before a target is chosen
    await expect(page.getByRole('button', { name: 'Import' })).toBeDisabled();
    await page.getByLabel('Profiles of').click();
    await page.getByRole('option', { name: new RegExp(publisher.accountId) }).click();
    await page.getByRole('button', { name: 'Import' }).click();
    await expect(page.getByTestId('import-summary')).toHaveText('Done: 1 profile in 1 batch', { timeout: 30_000 });
    const batchId = (await page.locator('[data-testid^="batch-"]').first().getAttribute('data-testid'))!.slice('batch-'.length);
    // the batch is the publisher's: its own key reads it
    expect(await apiData(`/api/v2/openapi/user/profile/batch/status?batchId=${batchId}`, publisher.apiKey)).toMatchObject({ status: 'done', total: 1 });
  });

  test('should list every bad row of a file by line and column, and start no batch', async ({ page }) => {
    const publisher = await createAccount(['publisher']);
    await login(page, publisher.apiKey);
    await page.getByRole('menuitem', { name: 'Profile import' }).click();

    const bad = Buffer.from('messengerUserId,walletAddress,walletClassify\nu1,,\nu2,EQwallet,\nu3,,\nu4,,evm\n');
    await page.getByTestId('csv-file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: bad });
    await page.getByRole('button', { name: 'Import' }).click();

    await expect(page.getByTestId('import-error-summary')).toHaveText('Nothing was imported: 2 rows of the file need fixing (2 errors).');
    await expect(page.getByTestId('import-error-list').locator('li')).toHaveText([
      'Line 3, walletClassify is required',
      'Line 5, walletClassify is only allowed with a walletAddress',
    ]);
    await expect(page.locator('[data-testid^="batch-"]')).toHaveCount(0);
    // the file can be fixed and sent again
    await expect(page.getByRole('button', { name: 'Import' })).toBeEnabled();
    await screenshot(page, '61-profile-import-error');
  });
});
