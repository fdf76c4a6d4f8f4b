// The report's lifecycle in the app against the real backend: "Write report"
// makes a draft (nothing for the portal yet); its cause edited and saved into
// the draft; Finalize makes revision 1 and the repair order read-only (a chat
// note is answered with how to reopen, and changes nothing); Reopen, with who
// did it, lands in the audit trail; the next write-up and finalize are
// revision 2.
import { apiCall, createSession, diagnoseToReport, expect, fixtureJpegBytes, openSession, showSessionTab, test, unique } from './fixtures';

test('draft, edit, finalize, read-only note, reopen, revision 2', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const complaint = unique('Roof vent fan dead (lifecycle)');
  const s = await createSession(request, { complaint, customer: 'Jane Doe', technician: 'Sam' });
  await diagnoseToReport(request, s.id);
  await openSession(page, complaint);
  await showSessionTab(page, 'progress');

  // The write-up is a draft: no export, no portal item.
  const box = page.getByTestId('report-box');
  await expect(box.getByTestId('report-stage')).toHaveAttribute('data-stage', 'draft');
  await expect(box.getByTestId('report-stage')).toHaveText('Draft');
  await expect(box.getByTestId('report-draft-revision')).toHaveAttribute('data-revision', '1');
  await expect(box.getByTestId('export-pdf')).toHaveCount(0);
  expect((await apiCall(request, 'report_list', { session_id: s.id })).reports).toEqual([]);

  // Edit the cause and save the draft: the preview has it, still a draft.
  const cause = 'Fan branch fuse open at the 12 V panel; lead chafed at the fan housing.';
  await box.getByTestId('report-edit').click();
  await box.getByTestId('finalize-cause').fill(cause);
  await box.getByTestId('report-save-draft').click();
  await expect(box.getByTestId('report-export-note')).toHaveText('Draft of revision 1 saved.');
  await expect(box.getByTestId('report-preview')).toContainText(cause);
  await expect(box.getByTestId('report-stage')).toHaveAttribute('data-stage', 'draft');
  await page.screenshot({ path: testInfo.outputPath('lifecycle-draft.png') });

  // Finalize: revision 1, queued, the RO read-only.
  await box.getByTestId('report-finalize-now').click();
  await expect(box.getByTestId('report-stage')).toHaveAttribute('data-stage', 'finalized');
  await expect(box.getByTestId('report-revision')).toHaveAttribute('data-revision', '1');
  await expect(box.getByTestId('report-export-note')).toHaveText('Revision 1 finalized and queued for the portal.');
  await expect(box.getByTestId('report-read-only')).toBeVisible();
  await expect(box.getByTestId('write-report')).toHaveCount(0);
  await expect(page.getByTestId('status-badge').first()).toHaveText('Finalized');
  await page.screenshot({ path: testInfo.outputPath('lifecycle-finalized.png') });

  // A note after finalizing (the chat is beside the panel on a wide window):
  // the reply says so, the labor stays as it was.
  const turns = page.getByTestId('chat-turn');
  const before = await turns.count();
  await page.getByTestId('chat-input').fill('make it 3');
  await page.getByTestId('chat-send').click();
  await expect(turns).toHaveCount(before + 1);
  await expect(turns.last()).toContainText('is finalized');
  await expect(turns.last()).toContainText('Reopen');
  const ctx = await apiCall(request, 'session_context', { session_id: s.id });
  expect(ctx.labor.hours).toBe('1.5');

  // Reopen, naming who: in the audit trail; the next finalize is revision 2.
  await box.getByTestId('report-reopen').click();
  await expect(box.getByTestId('reopen-form')).toContainText('the next finalize makes revision 2');
  await box.getByTestId('report-reopen-by').fill('Marta');
  await box.getByTestId('report-reopen-confirm').click();
  await expect(box.getByTestId('report-stage')).toHaveAttribute('data-stage', 'reopened');
  await expect(box.getByTestId('report-reopened')).toContainText('by Marta');
  const shown = await apiCall(request, 'session_show', { session_id: s.id });
  expect(shown.edits.find((e: { field: string }) => e.field === 'status')).toMatchObject({
    old_value: 'finalized',
    new_value: 'open',
    edited_by: 'Marta',
  });

  await box.getByTestId('write-report').click();
  await expect(box.getByTestId('report-draft-revision')).toHaveAttribute('data-revision', '2');
  await box.getByTestId('report-finalize-now').click();
  await expect(box.getByTestId('report-revision')).toHaveAttribute('data-revision', '2');
  await expect(box.getByTestId('report-revisions')).toContainText('2 revisions');
  const reports = (await apiCall(request, 'report_list', { session_id: s.id })).reports;
  expect(reports.map((r: { revision: number }) => r.revision)).toEqual([1, 2]);
  expect(reports[1].body).toContain(cause);
});

test('a finalized RO: header, lines and photo controls disabled with the reason, until it is reopened', async ({ page, request }) => {
  test.setTimeout(90_000);
  const complaint = unique('Roof vent fan dead (read-only)');
  const s = await createSession(request, { complaint, customer: 'Jane Doe' });
  await apiCall(request, 'artifact_upload', {
    session_id: s.id,
    file_name: 'fuse.jpg',
    content_base64: fixtureJpegBytes().toString('base64'),
  });
  await diagnoseToReport(request, s.id);
  await apiCall(request, 'report_finalize', { session_id: s.id });
  await openSession(page, complaint);
  const reason = 'Finalized: the repair order is read-only until it is reopened (Progress tab, Reopen…).';

  // Each locked control says why (aria-describedby names the note beside it).
  const locked = async (control: ReturnType<typeof page.getByTestId>, note: ReturnType<typeof page.getByTestId>) => {
    await expect(control).toBeDisabled();
    await expect(note).toHaveText(reason);
    const described = await control.getAttribute('aria-describedby');
    expect(described).toBe(await note.getAttribute('id'));
  };
  await showSessionTab(page, 'unit');
  await locked(page.getByTestId('edit-header'), page.getByTestId('header-read-only'));
  await locked(page.getByTestId('add-line'), page.getByTestId('lines-read-only'));
  await locked(page.getByTestId('edit-line'), page.getByTestId('lines-read-only'));

  await showSessionTab(page, 'photos');
  await locked(page.getByTestId('add-photos'), page.getByTestId('photos-read-only'));
  await expect(page.getByTestId('take-photo')).toBeDisabled();
  await expect(page.getByTestId('photo-caption')).toBeDisabled();
  await page.getByTestId('photo-tile').first().click();
  const overlay = page.getByTestId('photo-overlay');
  await locked(overlay.getByTestId('annotate-caption'), overlay.getByTestId('overlay-read-only'));
  await expect(overlay.getByTestId('condition-urgent')).toBeDisabled();
  await expect(overlay.getByTestId('overlay-markup')).toBeDisabled();
  await overlay.getByTestId('overlay-close').click();

  // Reopened: everything can be changed again.
  await showSessionTab(page, 'progress');
  const box = page.getByTestId('report-box');
  await box.getByTestId('report-reopen').click();
  await box.getByTestId('report-reopen-by').fill('Marta');
  await box.getByTestId('report-reopen-confirm').click();
  await expect(box.getByTestId('report-stage')).toHaveAttribute('data-stage', 'reopened');
  await showSessionTab(page, 'unit');
  await expect(page.getByTestId('edit-header')).toBeEnabled();
  await expect(page.getByTestId('header-read-only')).toHaveCount(0);
  await expect(page.getByTestId('add-line')).toBeEnabled();
  await page.getByTestId('edit-header').click();
  await expect(page.getByTestId('header-form')).toBeVisible();
  await showSessionTab(page, 'photos');
  await expect(page.getByTestId('add-photos')).toBeEnabled();
  await expect(page.getByTestId('photos-read-only')).toHaveCount(0);
});
