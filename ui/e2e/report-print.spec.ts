// Printing the final report from the app against the real backend: Print
// lays the finalized revision out as a sheet (the shop's letterhead, the RO
// number, the unit and customer, the report with its approved estimate) and
// opens the print dialog. window.print is stubbed to record what the page
// holds at that moment; print media then shows the sheet and nothing else.
import { apiCall, createSession, diagnoseToReport, expect, openSession, showSessionTab, test, unique } from './fixtures';

test('Print lays out the final report and prints only it', async ({ page, request }) => {
  test.setTimeout(90_000);
  const before = await apiCall(request, 'shop_settings', {});
  await apiCall(request, 'shop_settings', { name: 'Sunbelt RV Service', address: '1200 Frontage Rd\nMesa, AZ 85201' });
  try {
    const complaint = unique('Roof vent fan dead (print)');
    const s = await createSession(request, { complaint, customer: 'Jane Doe', vin: '1FDXE4FN1MDC12345', technician: 'Sam' });
    await diagnoseToReport(request, s.id);
    const order = await apiCall(request, 'ro_show', { session_id: s.id });
    const lineId = order.lines[0].id;
    await apiCall(request, 'ro_line_save', {
      session_id: s.id,
      line: { line_id: lineId, complaint, pay_type: 'customer', labor: [{ description: 'Replace fan fuse', hours: '0.5' }] },
    });
    await apiCall(request, 'ro_line_authorize', {
      session_id: s.id,
      authorization: { line_id: lineId, decision: 'approved', by: 'Jane Doe', method: 'phone' },
    });
    await apiCall(request, 'chat_turn', { session_id: s.id, text: 'write the report' });
    await apiCall(request, 'report_finalize', { session_id: s.id });

    await page.addInitScript(() => {
      const w = window as unknown as { __printed: { sheet: string; printing: boolean }[] };
      w.__printed = [];
      window.print = () => {
        const sheet = document.querySelector('[data-testid="print-sheet"]') as HTMLElement | null;
        w.__printed.push({ sheet: sheet?.textContent ?? '', printing: document.body.classList.contains('printing') });
      };
    });
    await openSession(page, complaint);
    await showSessionTab(page, 'progress');
    const box = page.getByTestId('report-box');
    await expect(box.getByTestId('report-stage')).toHaveAttribute('data-stage', 'finalized');
    // On screen the sheet is not shown.
    await expect(page.getByTestId('print-sheet')).toHaveCount(0);
    await box.getByTestId('report-print').click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { __printed: unknown[] }).__printed.length)).toBe(1);
    const [printed] = await page.evaluate(() => (window as unknown as { __printed: { sheet: string; printing: boolean }[] }).__printed);
    expect(printed.printing).toBe(true);
    for (const text of [
      'Sunbelt RV Service',
      'Mesa, AZ 85201',
      'Service report',
      'Revision 1, finalized',
      order.ro_number,
      'Jane Doe',
      '1FDXE4FN1MDC12345',
      'Complaint',
      'Cause',
      'Estimate approved: Jane Doe, by phone,',
    ]) {
      expect(printed.sheet, text).toContain(text);
    }
    // The printed time is local, never the stored UTC instant.
    expect(printed.sheet).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    await expect(page.getByTestId('print-sheet')).toBeHidden();

    // As printed: the sheet alone.
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByTestId('print-sheet')).toBeVisible();
    await expect(page.locator('#root')).toBeHidden();
    await expect(page.getByTestId('print-report').getByTestId('report-section').first()).toBeVisible();
    await page.emulateMedia({ media: 'screen' });
    // Printing done: the sheet goes away and the app is as it was.
    await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
    await expect(page.getByTestId('print-sheet')).toHaveCount(0);
    await expect(page.locator('#root')).toBeVisible();
    await expect(box.getByTestId('report-print')).toBeEnabled();
  } finally {
    await apiCall(request, 'shop_settings', { name: before.name ?? '', address: before.address ?? '' });
  }
});
