// A PDF service manual against the real backend: dropped on the Knowledge
// workspace, imported page by page, a question answered from its second
// page cites "p. 2", and "Open at p. 2" shows the very file the shop
// imported, opened at that page.
import { expect, test, unique } from './fixtures';

/** PDF string escapes for a literal `( … )`. */
function pdfString(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

/**
 * A PDF whose pages hold these lines as a text layer (Helvetica, WinAnsi),
 * with an Info Title: the same shape tests/knowledge_pdf.rs writes with lopdf.
 */
function textPdf(title: string, pages: string[][]): Buffer {
  const n = pages.length;
  const objects: string[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ');
  objects[2] = `<< /Type /Pages /Kids [${kids}] /Count ${n} /MediaBox [0 0 612 792] >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((lines, i) => {
    const ops = ['BT', '/F1 11 Tf', '14 TL', '60 760 Td', ...lines.map((l) => `(${pdfString(l)}) Tj T*`), 'ET'].join('\n');
    objects[4 + 2 * i] = `<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`;
    objects[5 + 2 * i] = `<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`;
  });
  const info = 4 + 2 * n;
  objects[info] = `<< /Title (${pdfString(title)}) >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

test('a PDF manual dropped on Knowledge is cited at its page, and "Open at p. 2" opens that file at page 2', async ({ page }) => {
  const tag = unique('x').split(' ')[1];
  const word = `quokkavalve${tag}`;
  const title = `Furnace service manual ${tag}`;
  const pdf = textPdf(title, [
    ['Introduction', 'This manual covers the ducted furnace of the coach.', 'Read the safety notes before any service.'],
    ['Gas valve', `The ${word} outlet pressure is 10.5 inches water column.`, `Tighten the ${word} fitting to 35 inch-pounds.`],
  ]);
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');

  await page.goto('/');
  await page.keyboard.press('Alt+2');
  await expect(page.getByTestId('knowledge-workspace')).toBeVisible();

  // Drop the file on the drop zone, as a technician drags it from the desktop.
  const zone = page.getByTestId('knowledge-dropzone');
  const dataTransfer = await page.evaluateHandle(
    ({ name, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'application/pdf' }));
      return dt;
    },
    { name: `furnace-manual-${tag}.pdf`, base64: pdf.toString('base64') },
  );
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
  const report = page.getByTestId('ingest-report');
  await expect(report.getByTestId('ingest-summary')).toHaveText(/^1 imported \(\d+ chunks?\), 0 unchanged, 0 skipped$/);

  // A question answered on page 2: the answer cites the manual at p. 2.
  const ask = page.getByTestId('knowledge-ask');
  await ask.getByTestId('ask-input').fill(`what is the ${word} outlet pressure?`);
  await ask.getByTestId('ask-button').click();
  const answer = ask.getByTestId('ask-answer');
  await expect(answer).toHaveAttribute('data-found', 'true');
  const citation = answer.getByTestId('ask-citation').filter({ hasText: title }).first();
  await expect(citation).toBeVisible();
  await expect(citation.getByTestId('citation-page')).toHaveText('· p. 2');
  await expect(citation.getByTestId('citation-source')).toHaveText(/shop/i);
  const open = citation.getByTestId('citation-open');
  await expect(open).toHaveText('Open at p. 2');

  // Open it: a dialog with the PDF in a frame, at page 2.
  await open.click();
  const dialog = page.getByTestId('source-file-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`${title}, p. 2`);
  const frame = dialog.getByTestId('source-file-frame');
  await expect(frame).toHaveAttribute('src', /^blob:.+#page=2$/);
  const src = (await frame.getAttribute('src'))!;

  // The frame shows the file that was imported: a PDF, byte for byte.
  const shown = await page.evaluate(async (url) => {
    const r = await fetch(url.split('#')[0]);
    const bytes = new Uint8Array(await r.arrayBuffer());
    let base64 = '';
    for (const b of bytes) base64 += String.fromCharCode(b);
    return { type: r.headers.get('content-type'), head: base64.slice(0, 4), base64: btoa(base64) };
  }, src);
  expect(shown.head).toBe('%PDF');
  expect(shown.type).toBe('application/pdf');
  expect(Buffer.from(shown.base64, 'base64').equals(pdf)).toBe(true);

  // Escape closes it.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});
