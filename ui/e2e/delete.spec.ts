import { API_HEADERS } from './server';
import { apiCall, createSession, expect, fixtureJpegBytes, openSession, rowFor, test, unique } from './fixtures';

test('delete asks for confirmation, refuses a session with photos, then purge removes it', async ({ page, request }) => {
  const complaint = unique('Propane detector chirps');
  const s = await createSession(request, { complaint });
  await apiCall(request, 'artifact_upload', {
    session_id: s.id,
    file_name: 'detector.jpg',
    content_base64: fixtureJpegBytes().toString('base64'),
  });
  await openSession(page, complaint);

  // Cancel keeps it.
  await page.getByTestId('delete-button').click();
  await expect(page.getByTestId('delete-confirm')).toBeVisible();
  await page.getByTestId('delete-confirm').getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('delete-confirm')).toHaveCount(0);

  // Without purge the backend refuses; its message is shown with the purge option.
  await page.getByTestId('delete-button').click();
  await page.getByTestId('delete-confirm-button').click();
  const err = page.getByTestId('delete-error');
  await expect(err).toHaveAttribute('data-code', 'has_artifacts');
  await expect(err).toContainText('has 1 photo(s)/file(s)');
  await expect(page.getByTestId('detail-complaint')).toHaveText(complaint);
  expect((await apiCall(request, 'session_list', { query: complaint })).sessions).toHaveLength(1);

  await page.getByTestId('delete-purge-button').click();
  await expect(page.getByTestId('notice')).toContainText('Session deleted with its photos');
  await expect(page.getByTestId('no-selection')).toBeVisible();
  await expect(rowFor(page, complaint)).toHaveCount(0);
  expect((await apiCall(request, 'session_list', { query: complaint })).sessions).toHaveLength(0);
  const r = await request.post('/api/artifact_list', { headers: API_HEADERS, data: { session_id: s.id } });
  expect(r.status()).toBe(404);
});

test('a session without photos is deleted after confirmation', async ({ page, request }) => {
  const complaint = unique('Step motor squeals');
  await createSession(request, { complaint });
  await openSession(page, complaint);
  await page.getByTestId('delete-button').click();
  await page.getByTestId('delete-confirm-button').click();
  await expect(page.getByTestId('notice')).toHaveText('Session deleted.');
  await expect(rowFor(page, complaint)).toHaveCount(0);
  expect((await apiCall(request, 'session_list', { query: complaint })).sessions).toHaveLength(0);
});
