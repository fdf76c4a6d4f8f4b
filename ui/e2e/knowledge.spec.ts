// The knowledge workspace against the real knowledge store (the shipped
// default set is ingested when the server starts on its fresh data dir), and
// knowledge answers in the chat: the clarification loop, citation chips, and
// the escalation after a document that requires a hand-off.
import { apiCall, createSession, expect, openSession, test, unique } from './fixtures';

/** A Markdown document with a word no shipped document has. */
function zebraDoc(sourceId: string, word: string): string {
  return [
    '---',
    `source_id: ${sourceId}`,
    'doc_type: sop',
    `title: Awning roller tube ${word} check`,
    'version: 1',
    'language: en',
    'city_code: SEA',
    'lot_codes: [A, B]',
    'effective_from: 2026-01-01',
    '---',
    '## Roller tube sag',
    '',
    `${word[0].toUpperCase()}${word.slice(1)} stripes on the awning fabric mean the roller tube sags. Measure the sag at the centre of the tube with a straightedge.`,
    '',
    '## Repair',
    '',
    'Replace the centre support bracket and re-tension the spring by four turns.',
    '',
  ].join('\n');
}

test('ingest a Markdown document by drag and drop, see the import report and the sources table, and find it with a highlighted snippet', async ({
  page,
}, testInfo) => {
  const tag = unique('x').split(' ')[1];
  const sourceId = `sop-awning-${tag}`;
  const word = `zebrafold${tag}`;
  await page.goto('/');
  await expect(page.getByTestId('nav-sessions')).toHaveAttribute('aria-current', 'page');

  // Alt+2 opens the Knowledge workspace; the shipped default set is there.
  await page.keyboard.press('Alt+2');
  await expect(page.getByTestId('nav-knowledge')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('knowledge-workspace')).toBeVisible();
  await expect(page.getByTestId('sessions-workspace')).toBeHidden();
  await expect(page).toHaveURL(/#knowledge$/);
  await expect(page.locator('[data-testid="source-row"][data-source-id="sop-lp-leak-test"]')).toBeVisible();
  await expect(page.locator('[data-testid="source-row"][data-source-id="policy-storage-fees"][data-version="1"]')).toHaveAttribute(
    'data-state',
    'superseded',
  );
  await expect(page.locator('[data-testid="source-row"][data-source-id="procedure-customer-damage-claim"]').getByTestId('source-handoff')).toBeVisible();

  // Drop the document on the drop zone (a DataTransfer built in the page).
  const zone = page.getByTestId('knowledge-dropzone');
  const dataTransfer = await page.evaluateHandle(
    ({ name, text }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type: 'text/markdown' }));
      return dt;
    },
    { name: `${sourceId}.md`, text: zebraDoc(sourceId, word) },
  );
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await expect(zone).toHaveAttribute('data-dragging', 'true');
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
  await expect(zone).toHaveAttribute('data-dragging', 'false');

  const report = page.getByTestId('ingest-report');
  await expect(report.getByTestId('ingest-summary')).toHaveText(/^1 imported \(\d+ chunks?\), 0 unchanged, 0 skipped$/);
  await expect(report.getByTestId('ingest-imported')).toHaveAttribute('data-source-id', sourceId);
  await expect(report.getByTestId('ingest-imported')).toContainText(`${sourceId} v1`);

  // It is in the sources table, marked new, with its scope and validity.
  const row = page.locator(`[data-testid="source-row"][data-source-id="${sourceId}"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-state', 'active');
  await expect(row).toHaveClass(/is-new/);
  await expect(row.getByTestId('source-scope')).toHaveText('SEA · lots A, B');
  await expect(row.getByTestId('source-validity')).toHaveText('from 2026-01-01');
  await page.getByTestId('sources-doc-type').selectOption('sop');
  await expect(row).toBeVisible();
  await expect(page.locator('[data-testid="source-row"][data-source-id="faq-tire-age"]')).toHaveCount(0);
  await page.getByTestId('sources-doc-type').selectOption('');

  // Search for its distinctive word: the snippet has it marked (the document writes it capitalized).
  await page.getByTestId('knowledge-query').fill(word);
  await page.getByTestId('knowledge-query').press('Enter');
  const hit = page.getByTestId('search-result').first();
  await expect(hit).toHaveAttribute('data-source-id', sourceId);
  await expect(hit.getByTestId('result-title')).toHaveText(`Awning roller tube ${word} check`);
  await expect(hit.getByTestId('result-chunk-id')).toHaveText(new RegExp(`^${sourceId}@v1#\\d+$`));
  await expect(hit.getByTestId('result-snippet').locator('mark').first()).toHaveText(`${word[0].toUpperCase()}${word.slice(1)}`);

  await page.getByTestId('knowledge-workspace').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('knowledge-workspace.png') });
  await page.getByTestId('knowledge-ingest').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('knowledge-ingest-sources.png') });

  // Dropping it again changes nothing.
  await zone.dispatchEvent('drop', { dataTransfer });
  await expect(report.getByTestId('ingest-summary')).toHaveText('0 imported, 1 unchanged, 0 skipped');
  await expect(report.getByTestId('ingest-unchanged')).toHaveAttribute('data-source-id', sourceId);

  // Alt+1 goes back to the sessions.
  await page.keyboard.press('Alt+1');
  await expect(page.getByTestId('sessions-workspace')).toBeVisible();
  await expect(page.getByTestId('knowledge-workspace')).toBeHidden();
});

test('search filters: a validity date and a city pick the superseded storage policy version', async ({ page }) => {
  await page.goto('/#knowledge');
  await page.getByTestId('knowledge-query').fill('storage fees');
  await page.getByTestId('filter-doc-type').selectOption('policy_doc');
  await page.getByTestId('filter-city').fill('sea');
  await page.getByTestId('filter-at').fill('2026-03-01');
  await page.getByTestId('knowledge-search-button').click();
  const hits = page.getByTestId('search-result');
  await expect(hits.first()).toBeVisible();
  const ids = await hits.evaluateAll((els) => els.map((e) => e.getAttribute('data-chunk-id')));
  // Documents without a city apply everywhere; of the Seattle storage policy only version 1 was in effect then.
  expect(ids[0]).toMatch(/^policy-storage-fees@v1#\d+$/);
  expect(ids.filter((id) => id!.startsWith('policy-storage-fees@v2'))).toEqual([]);
  expect(ids.filter((id) => id!.startsWith('policy-storage-fees-pdx'))).toEqual([]);
  await expect(hits.first().getByTestId('result-snippet').locator('mark').first()).toHaveText(/^(storage|Storage|fees?)$/i);

  // Without the date: the current version.
  await page.getByTestId('filter-at').fill('');
  await page.getByTestId('knowledge-search-button').click();
  await expect(hits.first()).toHaveAttribute('data-chunk-id', /^policy-storage-fees@v2#\d+$/);
});

test('ask a question from the shipped documents and see the cited answer', async ({ page }, testInfo) => {
  await page.goto('/#knowledge');
  await page.getByTestId('ask-input').fill('how do I leak test the LP system');
  await page.getByTestId('ask-button').click();
  const answer = page.getByTestId('ask-answer');
  await expect(answer).toHaveAttribute('data-found', 'true');
  await expect(answer.getByTestId('ask-conclusion')).toContainText('LP system leak-down test');
  const citations = answer.getByTestId('ask-citation');
  await expect(citations.first()).toHaveAttribute('data-chunk-id', /^sop-lp-leak-test@v1#\d+$/);
  await expect(answer.getByTestId('ask-key-point').first().getByTestId('cite-marker')).toHaveText(/^\[\d\]$/);
  await expect(answer.getByTestId('ask-clarifying')).toHaveCount(0);
  await page.getByTestId('knowledge-ask').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('knowledge-ask.png') });

  // A document with clarifying questions: shown, with the hint about the chat.
  await page.getByTestId('ask-input').fill('is this repair covered by warranty? how do I check claim eligibility');
  await page.getByTestId('ask-input').press('Enter');
  const asks = answer.getByTestId('ask-clarifying');
  await expect(asks).toContainText('This document asks first:');
  await expect(asks.getByTestId('ask-clarifying-question')).toHaveCount(3);
  await expect(asks.getByTestId('ask-clarifying-question').first()).toHaveText("What is the unit's model year?");
  await expect(asks).toContainText('one by one');
  await expect(citations.first()).toHaveAttribute('data-chunk-id', /^faq-warranty-eligibility@v1#\d+$/);
});

test('a broken document is skipped with its file, line and field; the rest of the batch imports', async ({ page, request }) => {
  const tag = unique('x').split(' ')[1];
  await page.goto('/#knowledge');
  const bad = ['---', `source_id: bad-${tag}`, 'doc_type: memo', 'title: Not a real type', 'version: 1', '---', 'Body.', ''].join('\n');
  const good = zebraDoc(`sop-good-${tag}`, `okapiword${tag}`);
  await page.getByTestId('knowledge-file-input').setInputFiles([
    { name: `bad-${tag}.md`, mimeType: 'text/markdown', buffer: Buffer.from(bad) },
    { name: `good-${tag}.markdown`, mimeType: 'text/markdown', buffer: Buffer.from(good) },
    { name: 'photo.jpg', mimeType: 'image/jpeg', buffer: Buffer.from([0xff, 0xd8, 0xff]) },
  ]);
  const report = page.getByTestId('ingest-report');
  await expect(report.getByTestId('ingest-summary')).toHaveText(/^1 imported \(\d+ chunks?\), 0 unchanged, 2 skipped$/);
  const skipped = report.getByTestId('ingest-skipped');
  await expect(skipped).toHaveCount(1);
  await expect(skipped).toHaveAttribute('data-line', '3');
  await expect(skipped).toHaveAttribute('data-field', 'doc_type');
  await expect(skipped).toHaveText(new RegExp(`^bad-${tag}\\.md:3 doc_type: unknown doc_type "memo"`));
  await expect(report.getByTestId('ingest-refused')).toContainText('photo.jpg: not sent');
  await expect(report.getByTestId('ingest-imported')).toHaveAttribute('data-source-id', `sop-good-${tag}`);
  await expect(page.locator(`[data-testid="source-row"][data-source-id="sop-good-${tag}"]`)).toBeVisible();

  // The store agrees: the good one is there, the bad one is not.
  const { sources } = await apiCall(request, 'knowledge_sources');
  const ids = sources.map((s: { source_id: string }) => s.source_id);
  expect(ids).toContain(`sop-good-${tag}`);
  expect(ids).not.toContain(`bad-${tag}`);
});

test('chat: a warranty question asks the document’s questions one by one, then answers with citation chips', async ({ page, request }, testInfo) => {
  const complaint = unique('Warranty question at the counter');
  await createSession(request, { complaint });
  await openSession(page, complaint);
  const input = page.getByTestId('chat-input');
  const turns = page.getByTestId('chat-turn');

  await input.fill('is this repair covered by warranty? how do I check claim eligibility');
  await input.press('Enter');
  await expect(turns).toHaveCount(1);
  await expect(turns.nth(0).getByTestId('reply-kind')).toHaveText('Question');
  await expect(turns.nth(0).getByTestId('chat-reply')).toContainText("(1/3): What is the unit's model year?");
  // The chip names the document and its part; the chunk id stays in its data (and its tooltip).
  await expect(turns.nth(0).getByTestId('citation-chip')).toHaveText(['❝Is this repair covered by warranty? Checking claim eligibility · part 1']);
  await expect(turns.nth(0).getByTestId('citation-chip')).toHaveAttribute('data-citation', 'faq-warranty-eligibility@v1#0');

  const answers = ['2021', '12', 'Dometic'];
  for (const [i, text] of answers.entries()) {
    await input.fill(text);
    await input.press('Enter');
    await expect(turns).toHaveCount(i + 2);
  }
  await expect(turns.nth(1).getByTestId('chat-reply')).toContainText('(2/3)');
  await expect(turns.nth(2).getByTestId('chat-reply')).toContainText('(3/3)');
  const last = turns.nth(3);
  await expect(last.getByTestId('reply-kind')).toHaveText('Answer');
  await expect(last.getByTestId('chat-reply')).toContainText('→ Dometic');
  const chips = last.getByTestId('citation-chip');
  expect(await chips.count()).toBeGreaterThan(0);
  for (const c of await chips.all()) await expect(c).toHaveAttribute('data-citation', /^faq-warranty-eligibility@v1#\d+$/);
  await expect(page.getByTestId('last-transition')).toContainText('T7_clarification_continue');
  await expect(page.getByTestId('escalation-banner')).toHaveCount(0);
  await page.getByTestId('diagnosis').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('chat-knowledge-citations.png') });

  // Reopened from the store, the chips are still there (citations kept in the trace).
  await page.reload();
  await page.getByTestId('session-search').fill(complaint);
  await page.getByTestId('session-row').filter({ hasText: complaint }).click();
  await expect(page.getByTestId('chat-turn').nth(3).getByTestId('citation-chip').first()).toHaveAttribute('data-citation', /^faq-warranty-eligibility@v1#/);

  // A chip opens its source in the Knowledge workspace.
  await page.getByTestId('chat-turn').nth(0).getByTestId('citation-chip').click();
  await expect(page.getByTestId('nav-knowledge')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('sources-filter')).toHaveValue('faq-warranty-eligibility');
  await expect(page.getByTestId('source-row')).toHaveCount(1);
  await expect(page.getByTestId('source-row').getByTestId('source-questions')).toHaveText('3');
});

test('chat: an answer from a document that requires a hand-off escalates the session and shows the banner', async ({ page, request }) => {
  const complaint = unique('Customer says we dented the unit');
  await createSession(request, { complaint });
  await openSession(page, complaint);
  const input = page.getByTestId('chat-input');
  const turns = page.getByTestId('chat-turn');
  const messages = [
    'the customer says we damaged the unit while it was in our care, how do I handle the damage claim',
    'yesterday, left rear corner',
    'yes',
    'no',
  ];
  for (const [i, text] of messages.entries()) {
    await input.fill(text);
    await input.press('Enter');
    await expect(turns).toHaveCount(i + 1);
  }
  await expect(turns.nth(3).getByTestId('reply-kind')).toHaveText('Answer');
  await expect(turns.nth(3).getByTestId('citation-chip').first()).toHaveAttribute('data-citation', /^procedure-customer-damage-claim@v1#\d+$/);
  const banner = page.getByTestId('escalation-banner');
  await expect(banner).toBeVisible();
  await expect(banner.getByTestId('escalation-reason')).toContainText('requires a hand-off to the service manager');
  await expect(page.getByTestId('status-badge').first()).toHaveText('Escalated');
});

test.describe('dark theme', () => {
  test.use({ colorScheme: 'dark' });

  test('the knowledge workspace follows the system dark theme', async ({ page }, testInfo) => {
    await page.goto('/#knowledge');
    await page.getByTestId('knowledge-query').fill('storage fees waive');
    await page.getByTestId('knowledge-search-button').click();
    await expect(page.getByTestId('search-result').first().locator('mark').first()).toBeVisible();
    await page.getByTestId('ask-input').fill('how do I leak test the LP system');
    await page.getByTestId('ask-button').click();
    await expect(page.getByTestId('ask-citation').first()).toBeVisible();
    const mark = await page.getByTestId('search-result').first().locator('mark').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(mark).toBe('rgb(122, 93, 0)');
    await page.screenshot({ path: testInfo.outputPath('knowledge-workspace-dark.png') });
  });
});
