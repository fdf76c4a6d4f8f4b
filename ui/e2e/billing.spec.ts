// The billing workspace against the real billing store (global-setup.ts loads
// the demo data with `billing seed-demo`: 5 rules in SH, 22 orders), and billing answers in
// the chat with a rule citation chip that opens the rule.
import { apiCall, createSession, expect, openSession, test, unique } from './fixtures';

test('arrears by plate, with and without a city; Verify from an arrears row', async ({ page }, testInfo) => {
  await page.goto('/');
  await page.keyboard.press('Alt+3');
  await expect(page.getByTestId('nav-billing')).toHaveAttribute('aria-current', 'page');
  await expect(page).toHaveURL(/#billing$/);
  await expect(page.getByTestId('billing-workspace')).toBeVisible();
  await expect(page.getByTestId('sessions-workspace')).toBeHidden();

  const arrears = page.getByTestId('arrears');
  await arrears.getByTestId('arrears-plate').fill('沪B20009');
  await arrears.getByTestId('arrears-check').click();
  const result = arrears.getByTestId('arrears-result');
  await expect(result.getByTestId('arrears-status')).toHaveText('HAS_ARREARS');
  await expect(result.getByTestId('arrears-total')).toHaveText('19.00');
  await expect(result.getByTestId('arrears-order')).toHaveCount(3);
  await expect(result.locator('[data-testid="arrears-order"][data-order-no="ORD-014"]')).toContainText('HZ');

  await arrears.getByTestId('arrears-city').fill('sh');
  await arrears.getByTestId('arrears-check').click();
  await expect(result.getByTestId('arrears-total')).toHaveText('13.00');
  await expect(result.getByTestId('arrears-order')).toHaveCount(2);
  await expect(result.getByTestId('arrears-order').nth(0)).toHaveAttribute('data-order-no', 'ORD-012');
  await expect(result.getByTestId('arrears-order').nth(1)).toHaveAttribute('data-order-no', 'ORD-013');
  await expect(result.getByTestId('arrears-amount')).toHaveText(['4.00', '9.00']);

  // Verify from the row: the verification card runs it.
  await result.locator('[data-testid="arrears-order"][data-order-no="ORD-013"]').getByTestId('order-verify').click();
  const verify = page.getByTestId('verify-result');
  await expect(verify).toHaveAttribute('data-order-no', 'ORD-013');
  await expect(verify.getByTestId('verify-verdict')).toHaveText('Consistent');
  await expect(page.getByTestId('verify-order')).toHaveValue('ORD-013');

  // A plate without arrears.
  await arrears.getByTestId('arrears-plate').fill('沪A10001');
  await arrears.getByTestId('arrears-city').fill('');
  await arrears.getByTestId('arrears-check').click();
  await expect(result.getByTestId('arrears-status')).toHaveText('NONE');
  await expect(result.getByTestId('arrears-total')).toHaveText('0.00');

  // An empty plate is caught before the backend.
  await arrears.getByTestId('arrears-plate').fill('  ');
  await arrears.getByTestId('arrears-check').click();
  await expect(arrears.getByTestId('arrears-field-error')).toHaveText('Enter a plate number.');
  await page.getByTestId('billing-orders').screenshot({ path: testInfo.outputPath('billing-arrears.png') });
});

test('fee verification: ORD-022 is a mismatch for manual review, ORD-001 (Verify from the orders list) is consistent', async ({ page }, testInfo) => {
  await page.goto('/#billing');
  const card = page.getByTestId('billing-verify');
  await card.getByTestId('verify-order').fill('ORD-022');
  await card.getByTestId('verify-run').click();
  const r = card.getByTestId('verify-result');
  await expect(r).toHaveAttribute('data-result', 'mismatch');
  await expect(r.getByTestId('verify-verdict')).toHaveText('Mismatch');
  await expect(r.getByTestId('verify-action')).toHaveAttribute('data-action', 'manual_review');
  await expect(r.getByTestId('verify-action')).toContainText('Manual review');
  await expect(r.getByTestId('verify-order-total')).toHaveText('15.00');
  await expect(r.getByTestId('verify-simulated-total')).toHaveText('12.50');
  await expect(r.getByTestId('verify-difference')).toHaveText('+2.50');
  await expect(r.getByTestId('verify-rule')).toHaveText('SH-DAYNIGHT-STD v2');
  // The breakdown: one day piece, 130 min, 5 units at 2.50, on the timeline 09:00–11:10.
  await expect(r.getByTestId('piece-row')).toHaveCount(1);
  await expect(r.getByTestId('piece-row')).toContainText('5 × 2.50 = 12.50');
  await expect(r.getByTestId('piece-bar')).toHaveAttribute('data-from', '09:00');
  await expect(r.getByTestId('piece-bar')).toHaveAttribute('data-to', '11:10');
  await expect(r.getByTestId('piece-total')).toHaveText('12.50');
  await card.screenshot({ path: testInfo.outputPath('billing-verify-mismatch.png') });

  // The rule link selects that version in the rules card.
  await r.getByTestId('verify-rule').click();
  await expect(page.getByTestId('version-detail')).toHaveAttribute('data-rule-code', 'SH-DAYNIGHT-STD');
  await expect(page.getByTestId('version-detail')).toHaveAttribute('data-version', '2');

  // From the orders list, filtered by plate.
  const orders = page.getByTestId('orders-list');
  await orders.getByTestId('orders-plate').fill('沪A10001');
  await expect(orders.getByTestId('order-row')).toHaveCount(1);
  await orders.locator('[data-testid="order-row"][data-order-no="ORD-001"]').getByTestId('order-verify').click();
  await expect(r).toHaveAttribute('data-order-no', 'ORD-001');
  await expect(r).toHaveAttribute('data-result', 'consistent');
  await expect(r.getByTestId('verify-verdict')).toHaveText('Consistent');
  await expect(r.getByTestId('verify-action')).toContainText('Auto-approve');
  await expect(r.getByTestId('verify-difference')).toHaveText('0.00');

  // An unknown order: the backend's message next to the form.
  await card.getByTestId('verify-order').fill('ORD-999');
  await card.getByTestId('verify-run').click();
  await expect(card.getByTestId('verify-error')).toHaveAttribute('data-code', 'not_found');
  await expect(card.getByTestId('verify-error')).toContainText('ORD-999');
});

test('simulator: SH-DAYNIGHT-STD from 2026-02-10 10:00 to 2026-02-13 09:10 is 66.00 with three capped days, drawn over four days', async ({ page }, testInfo) => {
  await page.goto('/#billing');
  const sim = page.getByTestId('billing-simulator');
  await sim.getByTestId('sim-rule').selectOption('SH-DAYNIGHT-STD');
  await sim.getByTestId('sim-entry').fill('2026-02-10T10:00');
  await sim.getByTestId('sim-exit').fill('2026-02-13T09:10');
  await sim.getByTestId('sim-run').click();
  const r = sim.getByTestId('sim-result');
  await expect(r.getByTestId('sim-total')).toHaveText('66.00');
  await expect(r.getByTestId('sim-rule-link')).toHaveText('SH-DAYNIGHT-STD v1');
  await expect(r.getByTestId('sim-capped-count')).toContainText('3 capped');
  // The table: day pieces capped at 20.00, the last day 6.00, nights free.
  await expect(r.locator('[data-testid="piece-row"][data-segment="day"]')).toHaveCount(4);
  await expect(r.locator('[data-testid="piece-row"][data-capped="true"]')).toHaveCount(3);
  await expect(r.locator('[data-testid="piece-row"][data-segment="day"]').getByTestId('piece-amount')).toHaveText([
    /^20\.00capped$/,
    /^20\.00capped$/,
    /^20\.00capped$/,
    '6.00',
  ]);
  await expect(r.getByTestId('piece-total')).toHaveText('66.00');
  // The timeline: one row per day, capped bars marked, night pieces split at midnight.
  const rows = r.getByTestId('timeline-row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toHaveAttribute('data-date', '2026-02-10');
  await expect(rows.nth(3)).toHaveAttribute('data-date', '2026-02-13');
  const firstDay = rows.nth(0).locator('[data-testid="piece-bar"][data-capped="true"]');
  await expect(firstDay).toHaveAttribute('data-from', '10:00');
  await expect(firstDay).toHaveAttribute('data-to', '20:00');
  await expect(firstDay).toContainText('20.00 · cap');
  await expect(r.locator('[data-testid="piece-bar"][data-capped="true"]')).toHaveCount(3);
  const lastDay = rows.nth(3).getByTestId('piece-bar');
  await expect(lastDay).toHaveCount(2); // the night from the 12th (00:00–08:00) and the day 08:00–09:10
  await expect(lastDay.nth(1)).toHaveAttribute('data-to', '09:10');
  await expect(lastDay.nth(1)).toContainText('6.00');
  // The bar really sits where its time is: 10:00–20:00 is 5/12 of the track, from 10/24.
  const track = await rows.nth(0).locator('.timeline-track').boundingBox();
  const bar = await firstDay.boundingBox();
  expect(track && bar).toBeTruthy();
  expect(Math.abs(bar!.x - track!.x - (track!.width * 10) / 24)).toBeLessThan(2);
  expect(Math.abs(bar!.width - (track!.width * 10) / 24)).toBeLessThan(2);
  await sim.screenshot({ path: testInfo.outputPath('billing-simulator.png') });

  // By city and lot: the same rule covers SH LOT-A.
  await sim.getByTestId('sim-by-scope').check();
  await sim.getByTestId('sim-city').fill('SH');
  await sim.getByTestId('sim-lot').fill('LOT-A');
  await sim.getByTestId('sim-run').click();
  await expect(r.getByTestId('sim-total')).toHaveText('66.00');
});

test('simulator errors are shown next to the form: exit before entry, a 500-day stay, an unknown lot, a missing field', async ({ page }) => {
  await page.goto('/#billing');
  const sim = page.getByTestId('billing-simulator');
  const error = sim.getByTestId('sim-error');
  await sim.getByTestId('sim-rule').selectOption('SH-HOURLY-B');
  await sim.getByTestId('sim-entry').fill('2026-02-10T10:00');
  await sim.getByTestId('sim-exit').fill('2026-02-09T10:00');
  await sim.getByTestId('sim-run').click();
  await expect(error).toHaveAttribute('data-code', 'exit_before_entry');
  // In words, saying what to do; the raw code only under Details.
  await expect(error).toContainText('The exit is before the entry. Set the exit after the entry.');
  await expect(error.locator('.error-code')).toBeHidden();
  await expect(error).toContainText('is before entry');
  await expect(sim.getByTestId('sim-result')).toHaveCount(0);

  await sim.getByTestId('sim-exit').fill('2027-06-25T10:00');
  await sim.getByTestId('sim-run').click();
  await expect(error).toHaveAttribute('data-code', 'stay_too_long');
  await expect(error).toContainText('400-day limit');

  await sim.getByTestId('sim-by-scope').check();
  await sim.getByTestId('sim-city').fill('SH');
  await sim.getByTestId('sim-lot').fill('LOT-Z');
  await sim.getByTestId('sim-exit').fill('2026-02-10T12:00');
  await sim.getByTestId('sim-run').click();
  await expect(error).toHaveAttribute('data-code', 'not_found');
  await expect(error).toContainText('no active rule covers city SH lot LOT-Z');

  // A missing field never reaches the backend.
  await sim.getByTestId('sim-lot').fill('');
  await sim.getByTestId('sim-run').click();
  await expect(sim.getByTestId('sim-field-error')).toHaveText('Enter a lot code.');
  await expect(sim.getByTestId('sim-lot')).toHaveAttribute('aria-invalid', 'true');
});

test('rules: scope, status, time zone and a validity timeline; SH-DAYNIGHT-STD has two versions, v2 in force; import a rules file with its report', async ({
  page,
  request,
}, testInfo) => {
  await page.goto('/#billing');
  const row = page.locator('[data-testid="rule-row"][data-rule-code="SH-DAYNIGHT-STD"]');
  await expect(row).toHaveAttribute('data-versions', '2');
  await expect(row.getByTestId('rule-scope')).toHaveText('SH · LOT-A');
  await expect(row.getByTestId('rule-status')).toHaveText('active');
  await expect(row).toContainText('Asia/Shanghai');
  const bars = row.getByTestId('version-bar');
  await expect(bars).toHaveCount(2);
  await expect(bars.nth(0)).toHaveAttribute('data-state', 'past');
  await expect(bars.nth(1)).toHaveAttribute('data-state', 'current');
  // v1 ends where v2 starts: the bars touch.
  const b1 = (await bars.nth(0).boundingBox())!;
  const b2 = (await bars.nth(1).boundingBox())!;
  expect(Math.abs(b1.x + b1.width - b2.x)).toBeLessThan(2);
  expect(b2.x).toBeGreaterThan(b1.x);

  await bars.nth(0).click();
  const detail = page.getByTestId('version-detail');
  await expect(detail).toHaveAttribute('data-version', '1');
  await expect(detail.getByTestId('version-state')).toHaveText('Ended');
  await expect(detail.getByTestId('payload-summary')).toContainText('day 08:00–20:00: 2.00 per 30 min, at most 20.00 per day');
  await expect(detail.getByTestId('payload-summary')).toContainText('night 20:00–08:00: free');
  await expect(detail.getByTestId('version-span')).toContainText('v1 2026-01-01 00:00 → 2026-03-01 00:00');
  await bars.nth(1).click();
  await expect(detail).toHaveAttribute('data-version', '2');
  await expect(detail.getByTestId('payload-summary')).toContainText('2.50 per 30 min, at most 25.00 per day');
  await expect(detail.getByTestId('version-state')).toHaveText('In force now');
  await page.getByTestId('billing-rules').screenshot({ path: testInfo.outputPath('billing-rules.png') });

  // "Simulate with this rule" fills the simulator.
  await detail.getByTestId('simulate-with-rule').click();
  await expect(page.getByTestId('sim-rule')).toHaveValue('SH-DAYNIGHT-STD');

  // Import a file: one good rule, one with a bad window (skipped with its line and field).
  const tag = unique('x').split(' ')[1].toUpperCase().replace(/[^A-Z0-9]/g, '');
  const code = `E2E-${tag}`;
  const rules = [
    {
      rule_code: code,
      name: 'E2E hourly',
      city_code: `E${tag.slice(0, 6)}`,
      lot_codes: ['L1'],
      status: 'active',
      time_zone: 'UTC',
      versions: [
        { version_no: 1, effective_from: '2026-01-01T00:00', effective_to: '2026-06-01T00:00', payload: { segments: [{ name: 'all', window: '00:00-24:00', type: 'periodic', unit_minutes: 60, unit_price: '1.00' }] } },
        { version_no: 2, effective_from: '2026-06-01T00:00', payload: { free_minutes: 15, segments: [{ name: 'all', window: '00:00-24:00', type: 'periodic', unit_minutes: 60, unit_price: '1.50', cap: '20.00' }] } },
      ],
    },
    {
      rule_code: `${code}-BAD`,
      name: 'broken',
      city_code: `F${tag.slice(0, 6)}`,
      lot_codes: ['L1'],
      status: 'active',
      versions: [{ version_no: 1, effective_from: '2026-01-01T00:00', payload: { segments: [{ name: 'day', window: '25:00-20:00', type: 'free' }] } }],
    },
  ];
  const text = JSON.stringify(rules, null, 2);
  await page.getByTestId('billing-file-input').setInputFiles([
    { name: `rules-${tag}.json`, mimeType: 'application/json', buffer: Buffer.from(text) },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') },
  ]);
  const report = page.locator(`[data-testid="billing-import-report"][data-file="rules-${tag}.json"]`);
  await expect(report.getByTestId('billing-import-summary')).toHaveText('2 imported, 0 unchanged, 1 skipped');
  await expect(report.getByTestId('billing-imported')).toHaveCount(2);
  await expect(report.getByTestId('billing-imported').first()).toContainText(`${code} v1`);
  const skipped = report.getByTestId('billing-skipped');
  await expect(skipped).toHaveAttribute('data-field', 'versions[0].payload');
  await expect(skipped).toContainText(`${code}-BAD`);
  await expect(skipped).toContainText('"25:00-20:00" is not HH:MM-HH:MM');
  await expect(page.locator('[data-testid="billing-import-report"][data-file="notes.txt"]')).toContainText('Not sent');
  const newRow = page.locator(`[data-testid="rule-row"][data-rule-code="${code}"]`);
  await expect(newRow).toHaveAttribute('data-versions', '2');
  await expect(newRow).toHaveClass(/is-new/);
  await page.getByTestId('billing-import').screenshot({ path: testInfo.outputPath('billing-import.png') });

  // The same file again changes nothing.
  await page.getByTestId('billing-file-input').setInputFiles([{ name: `rules-${tag}.json`, mimeType: 'application/json', buffer: Buffer.from(text) }]);
  await expect(report.getByTestId('billing-import-summary')).toHaveText('0 imported, 2 unchanged, 1 skipped');
  const { rules: stored } = await apiCall(request, 'billing_rules');
  expect(stored.map((r: { rule_code: string }) => r.rule_code)).toContain(code);
  expect(stored.map((r: { rule_code: string }) => r.rule_code)).not.toContain(`${code}-BAD`);
});

test('load demo data: idempotent, with its report', async ({ page }) => {
  await page.goto('/#billing');
  await page.getByTestId('billing-demo').click();
  await expect(page.getByTestId('billing-demo-result')).toHaveText(
    'Rules: 0 imported, 6 unchanged, 0 skipped · Orders: 0 imported, 22 unchanged, 0 skipped',
  );
  await expect(page.getByTestId('billing-demo')).toHaveText('Load demo data');
});

test('chat: arrears for 沪B20009 in SH, then "verify the second one" answers ORD-013 with a rule chip that opens the rule', async ({ page, request }, testInfo) => {
  const complaint = unique('Customer asks about parking fees');
  await createSession(request, { complaint });
  await openSession(page, complaint);
  const input = page.getByTestId('chat-input');
  const turns = page.getByTestId('chat-turn');

  await input.fill('does plate 沪B20009 owe anything in SH?');
  await input.press('Enter');
  await expect(turns).toHaveCount(1);
  await expect(turns.nth(0).getByTestId('chat-reply')).toContainText('HAS_ARREARS');
  await expect(turns.nth(0).getByTestId('chat-reply')).toContainText('13.00');
  await expect(turns.nth(0).getByTestId('chat-reply')).toContainText('ORD-013');

  await input.fill('verify the second one');
  await input.press('Enter');
  await expect(turns).toHaveCount(2);
  const reply = turns.nth(1);
  await expect(reply.getByTestId('chat-reply')).toContainText('ORD-013');
  await expect(reply.getByTestId('chat-reply')).toContainText('Consistent');
  const chip = reply.locator('[data-testid="citation-chip"][data-kind="rule"]');
  await expect(chip).toHaveAttribute('data-citation', 'rule.SH-HOURLY-B@v1#0');
  await expect(chip).toHaveText('¤SH-HOURLY-B v1');
  await page.getByTestId('diagnosis').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('chat-billing-citation.png') });

  await chip.click();
  await expect(page.getByTestId('nav-billing')).toHaveAttribute('aria-current', 'page');
  await expect(page).toHaveURL(/#billing$/);
  await expect(page.locator('[data-testid="rule-row"][data-rule-code="SH-HOURLY-B"]')).toHaveClass(/is-selected/);
  const detail = page.getByTestId('version-detail');
  await expect(detail).toHaveAttribute('data-rule-code', 'SH-HOURLY-B');
  await expect(detail).toHaveAttribute('data-version', '1');
  await expect(detail).toBeInViewport();
});

async function fillWorkspace(page: import('@playwright/test').Page) {
  await page.goto('/#billing');
  await page.locator('[data-testid="rule-row"][data-rule-code="SH-DAYNIGHT-STD"]').getByTestId('version-bar').nth(1).click();
  const sim = page.getByTestId('billing-simulator');
  await sim.getByTestId('sim-rule').selectOption('SH-TIERED-C');
  await sim.getByTestId('sim-entry').fill('2026-02-10T18:00');
  await sim.getByTestId('sim-exit').fill('2026-02-12T10:01');
  await sim.getByTestId('sim-run').click();
  await expect(sim.getByTestId('sim-total')).toBeVisible();
  await page.getByTestId('arrears-plate').fill('沪B20009');
  await page.getByTestId('arrears-check').click();
  await expect(page.getByTestId('arrears-total')).toHaveText('19.00');
  await page.getByTestId('verify-order').fill('ORD-022');
  await page.getByTestId('verify-run').click();
  await expect(page.getByTestId('verify-verdict')).toHaveText('Mismatch');
  await page.getByTestId('billing-workspace').evaluate((el) => el.scrollIntoView({ block: 'start' }));
}

test('the billing workspace, light', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1366, height: 2700 });
  await fillWorkspace(page);
  await page.screenshot({ path: testInfo.outputPath('billing-workspace.png'), fullPage: true });
});

test.describe('dark theme', () => {
  test.use({ colorScheme: 'dark' });

  test('the billing workspace follows the system dark theme', async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1366, height: 2700 });
    await fillWorkspace(page);
    const bg = await page.getByTestId('billing-rules').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(bg).toBe('rgb(23, 29, 38)');
    await page.screenshot({ path: testInfo.outputPath('billing-workspace-dark.png'), fullPage: true });
  });
});
