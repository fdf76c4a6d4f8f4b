// The guided diagnostic chat against the real context engine: a roof vent
// fan with a blown panel fuse, from the first message to the exported report.
import { readFileSync } from 'node:fs';
import { apiCall, createSession, expect, FIXTURE_JPEG, openSession, test, unique } from './fixtures';

test('diagnose a dead roof vent fan in the chat: question, locate subflow, isolation, labor, report, Markdown export', async ({
  page,
  request,
}, testInfo) => {
  const complaint = unique('Roof vent fan dead');
  const s = await createSession(request, { complaint, customer: 'Jane Doe' });
  await openSession(page, complaint);

  const input = page.getByTestId('chat-input');
  const turns = page.getByTestId('chat-turn');
  await expect(page.getByTestId('turns-empty')).toBeVisible();
  await expect(page.getByTestId('context-system')).toHaveText('No procedure yet');

  // 1. The complaint: the engine picks the 12 V procedure and asks its first step.
  await input.click();
  await input.fill("roof vent fan doesn't work");
  await input.press('Enter');
  await expect(turns).toHaveCount(1);
  await expect(turns.nth(0).getByTestId('reply-kind')).toHaveText('Question');
  await expect(turns.nth(0).getByTestId('chat-reply')).toContainText('fuse');
  await expect(input).toHaveValue('');
  await expect(input).toBeFocused();
  await expect(page.getByTestId('context-system')).toContainText('12 V DC circuits');
  await expect(page.getByTestId('context-step').first()).toHaveAttribute('data-status', 'active');
  await expect(page.getByTestId('step-progress')).toHaveText(/^0 of \d+ checks done$/);
  await expect(page.getByTestId('quick-answer').first()).toBeVisible();

  // Shift+Enter is a new line, not a send.
  await input.pressSequentially('where is');
  await input.press('Shift+Enter');
  await expect(input).toHaveValue('where is\n');
  await expect(turns).toHaveCount(1);

  // 2. A "where is it?" detour: an answer, the breadcrumb, and back to the step.
  await input.fill('where is the fan fuse?');
  await page.getByTestId('chat-send').click();
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(1).getByTestId('reply-kind')).toHaveText('Answer');
  // The locate answer cites the component note derived from the procedure: a knowledge chunk, shown as a chip.
  await expect(turns.nth(1).getByTestId('citation-chip')).toHaveAttribute('data-citation', /^component\.dc_12v\.fan_fuse@v\d+#\d+$/);
  const crumb = page.getByTestId('breadcrumb');
  await expect(crumb).toHaveText(/Step\s*Locate: fan fuse/);
  await expect(crumb.locator('li')).toHaveText(['Step', 'Locate: fan fuse']);
  await page.getByTestId('diagnosis').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('chat-locate-breadcrumb.png') });
  await page.getByTestId('back-to-step').click();
  await expect(turns).toHaveCount(3);
  await expect(turns.nth(2).getByTestId('chat-turn-input')).toHaveText('back to the step');
  await expect(turns.nth(2).getByTestId('reply-kind')).toHaveText('Question');
  await expect(crumb).toHaveCount(0);
  await expect(input).toBeFocused();

  // 3. The finding, with a photo: isolation and the labor draft.
  await page.getByTestId('chat-photo-input').setInputFiles(FIXTURE_JPEG);
  await expect(page.getByTestId('chat-pick')).toHaveAttribute('data-name', 'photo_exif.jpg');
  await input.fill('panel fuse blown');
  await input.press('Enter');
  await expect(turns).toHaveCount(4);
  await expect(page.getByTestId('chat-pick')).toHaveCount(0);
  const photo = turns.nth(3).getByTestId('turn-photo-img');
  await expect(photo).toBeVisible();
  await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  const isolation = page.getByTestId('isolation');
  await expect(isolation).toHaveAttribute('data-complete', 'true');
  await expect(isolation).toContainText('Isolated');
  await expect(isolation).toContainText('fuse');
  await expect(page.getByTestId('context-step').first()).toHaveAttribute('data-status', 'completed');
  const fact = page.getByTestId('context-fact').filter({ hasText: 'panel fuse blown' });
  await expect(fact).toHaveAttribute('data-source', 'technician');
  const labor = page.getByTestId('labor-box');
  await expect(labor).toHaveAttribute('data-mode', 'draft');
  await expect(page.getByTestId('labor-line').first()).toBeVisible();
  // The engine's transition id is for whoever asks: hidden until Details is opened.
  await expect(page.getByTestId('last-transition')).toBeHidden();
  await page.getByTestId('ctx-details').locator('summary').click();
  await expect(page.getByTestId('last-transition')).toBeVisible();
  await expect(page.getByTestId('last-transition')).toContainText('D4_terminal');
  await expect(page.getByTestId('context-panel').getByTestId('isolation')).not.toContainText('panel_fuse_open');

  // 4. Adjust the labor to 1.5 hours.
  await page.getByTestId('labor-hours-input').fill('1.5');
  await page.getByTestId('labor-adjust').click();
  await expect(turns).toHaveCount(5);
  await expect(turns.nth(4).getByTestId('chat-turn-input')).toHaveText('make it 1.5');
  await expect(labor).toHaveAttribute('data-mode', 'confirmed');
  await expect(page.getByTestId('labor-hours')).toHaveText('1.5 hr');

  // 5. The report: a report reply in the chat, a draft of revision 1, finalized.
  await page.getByTestId('write-report').click();
  await expect(turns).toHaveCount(6);
  await expect(turns.nth(5).getByTestId('reply-kind')).toHaveText('Report');
  await expect(turns.nth(5).getByTestId('report-section').first()).toHaveAttribute('data-title', 'Complaint');
  const preview = page.getByTestId('report-preview');
  await expect(preview).toContainText('Total labor: 1.5 hr');
  await expect(preview.getByTestId('report-section').filter({ hasText: 'Cause' })).toContainText('fuse');
  await expect(page.getByTestId('report-draft-revision')).toHaveAttribute('data-revision', '1');
  await page.getByTestId('report-finalize-now').click();
  await expect(page.getByTestId('report-revision')).toHaveAttribute('data-revision', '1');
  await expect(page.getByTestId('status-badge').first()).toHaveText('Finalized');

  // The chat screen: the conversation on the left, the context (labor, report) on the right.
  await page.getByTestId('diagnosis').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.getByTestId('report-box').evaluate((el) => el.scrollIntoView({ block: 'nearest' }));
  await page.screenshot({ path: testInfo.outputPath('chat-screen.png') });

  // 6. Export Markdown: a real download with the backend's file name and content.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const expected = await apiCall(request, 'report_export', { session_id: s.id });
  expect(download.suggestedFilename()).toBe(expected.file_name);
  expect(download.suggestedFilename()).toMatch(/\.md$/);
  const saved = testInfo.outputPath(expected.file_name);
  await download.saveAs(saved);
  const md = readFileSync(saved, 'utf8');
  expect(md).toBe(expected.content);
  expect(md).toContain('1.5 hr');
  await expect(page.getByTestId('report-export-note')).toContainText(expected.file_name);

  // The backend stored what the UI showed.
  const shown = await apiCall(request, 'session_show', { session_id: s.id });
  expect(shown.turns.map((t: { input: string }) => t.input)).toEqual([
    "roof vent fan doesn't work",
    'where is the fan fuse?',
    'back to the step',
    'panel fuse blown',
    'make it 1.5',
    'write the report',
    // Finalizing is a turn of its own, so the transcript says when it went out.
    'Finalize the report',
  ]);
  expect(shown.artifacts).toHaveLength(1);
  expect(shown.artifacts[0].turn_id).toBe(shown.turns[3].id);
});

test('a chat error is shown next to the input and the typed text is kept', async ({ page, request }) => {
  const complaint = unique('Water heater no hot water');
  await createSession(request, { complaint });
  await openSession(page, complaint);

  // A text file is refused by the backend (unsupported_type): nothing is recorded.
  await page.getByTestId('chat-photo-input').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('not a photo\n'),
  });
  const input = page.getByTestId('chat-input');
  await input.fill('water heater pilot will not light');
  await input.press('Enter');
  const err = page.getByTestId('chat-error');
  await expect(err).toHaveAttribute('data-code', 'unsupported_type');
  await expect(err).toContainText('notes.txt');
  await expect(input).toHaveValue('water heater pilot will not light');
  await expect(input).toBeFocused();
  await expect(page.getByTestId('chat-turn')).toHaveCount(0);

  // Remove the file and send again: the error goes, the turn is recorded.
  await page.getByRole('button', { name: 'Remove notes.txt' }).click();
  await input.press('Enter');
  await expect(page.getByTestId('chat-turn')).toHaveCount(1);
  await expect(err).toHaveCount(0);
  await expect(input).toHaveValue('');
});

test.describe('dark theme', () => {
  test.use({ colorScheme: 'dark' });

  test('the chat screen follows the system dark theme', async ({ page, request }, testInfo) => {
    const complaint = unique('Dark shop roof vent fan');
    const s = await createSession(request, { complaint });
    for (const text of ["roof vent fan doesn't work", 'where is the fan fuse?']) {
      await apiCall(request, 'chat_turn', { session_id: s.id, text, attachments: [] });
    }
    await openSession(page, complaint);
    await expect(page.getByTestId('chat-turn')).toHaveCount(2);
    await expect(page.getByTestId('breadcrumb')).toBeVisible();
    const colors = await page.evaluate(() => ({
      bg: getComputedStyle(document.documentElement).backgroundColor,
      panel: getComputedStyle(document.querySelector('.card')!).backgroundColor,
      input: getComputedStyle(document.querySelector('[data-testid="chat-input"]')!).backgroundColor,
      text: getComputedStyle(document.body).color,
    }));
    expect(colors).toEqual({ bg: 'rgb(15, 20, 27)', panel: 'rgb(23, 29, 38)', input: 'rgb(23, 29, 38)', text: 'rgb(227, 232, 239)' });
    await page.getByTestId('diagnosis').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: testInfo.outputPath('chat-screen-dark.png') });
  });
});
