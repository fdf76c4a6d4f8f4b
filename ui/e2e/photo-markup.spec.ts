// A technician at a tablet tags a photo and marks it up: a caption, the
// condition, an arrow drawn with the pointer and a short text, saved as a new
// photo linked to the original, whose bytes (and hash) stay as taken. The
// report lists the caption and the condition, and says what the copy marks up.
import { createHash } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { apiCall, createSession, diagnoseToReport, expect, FIXTURE_JPEG, fixtureJpegBytes, openSession, showSessionTab, test, unique } from './fixtures';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test.describe('tablet', () => {
  test.use({ viewport: { width: 768, height: 1024 }, hasTouch: true });

  test('caption, condition and a marked-up copy; the original unchanged; the report shows them', async ({ page, request }, testInfo) => {
    test.setTimeout(90_000);
    const complaint = unique('Roof vent fan dead (markup)');
    const s = await createSession(request, { complaint, technician: 'Sam', language: 'en' });
    await openSession(page, complaint);
    await showSessionTab(page, 'photos');
    await page.getByTestId('photo-camera-input').setInputFiles(FIXTURE_JPEG);
    await expect(page.getByTestId('upload-item').filter({ hasText: 'photo_exif.jpg' })).toHaveAttribute('data-status', 'done');
    const [taken] = (await apiCall(request, 'session_show', { session_id: s.id })).artifacts;
    expect(taken.sha256).toBe(sha256(fixtureJpegBytes()));

    // Caption and condition, from the overlay.
    await page.getByTestId('photo-tile').first().click();
    const overlay = page.getByTestId('photo-overlay');
    await overlay.getByTestId('annotate-caption').fill('fan fuse holder scorched');
    await overlay.getByTestId('annotate-caption').press('Enter');
    await expect(overlay.getByTestId('overlay-caption')).toContainText('fan fuse holder scorched');
    const urgent = overlay.getByTestId('condition-urgent');
    expect((await urgent.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await urgent.click();
    await expect(urgent).toHaveAttribute('aria-pressed', 'true');
    await expect(overlay.getByTestId('overlay-caption').getByTestId('condition-tag')).toHaveText('Urgent');

    // Mark up: an arrow dragged with the pointer, then a text placed by a tap.
    await overlay.getByTestId('overlay-markup').click();
    const editor = overlay.getByTestId('markup-editor');
    const canvas = editor.getByTestId('markup-canvas');
    await expect(canvas).toBeVisible();
    // The photo is drawn in upright: the canvas takes its size turned by its
    // EXIF orientation (640×480 stored, orientation 6), as the technician sees it.
    await expect.poll(() => canvas.evaluate((c: HTMLCanvasElement) => `${c.width}x${c.height}`)).toBe('480x640');
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 8 });
    await page.mouse.up();
    await expect(editor).toHaveAttribute('data-shapes', '1');
    await editor.getByTestId('markup-tool-text').click();
    await editor.getByTestId('markup-text-input').fill('scorched');
    await canvas.click({ position: { x: box.width * 0.55, y: box.height * 0.6 } });
    await expect(editor).toHaveAttribute('data-shapes', '2');
    await page.screenshot({ path: testInfo.outputPath('markup-editor-tablet-768x1024.png') });
    await editor.getByTestId('markup-save').click();
    await expect(overlay.getByTestId('markup-saved')).toContainText('photo_exif-markup.png');
    await expect(editor).toHaveCount(0);

    // The gallery: the copy, badged, linked to its original.
    await overlay.getByTestId('overlay-close').click();
    await expect(page.getByTestId('photo-tile')).toHaveCount(2);
    const copyTile = page.getByTestId('photo-tile').nth(1);
    await expect(copyTile).toHaveAttribute('data-file-name', 'photo_exif-markup.png');
    await expect(copyTile.getByTestId('photo-markup-badge')).toHaveText('Marked up');
    await expect(copyTile.getByTestId('condition-tag')).toHaveText('Urgent');
    const link = page.getByTestId('photo-markup-of');
    await expect(link).toHaveText('Marked up from photo_exif.jpg');
    await link.click();
    await expect(overlay.getByTestId('overlay-file-name')).toHaveText('photo_exif.jpg');
    await page.keyboard.press('Escape');

    // The store: a new PNG linked to the original, whose row and bytes are as taken.
    const shown = await apiCall(request, 'session_show', { session_id: s.id });
    expect(shown.artifacts).toHaveLength(2);
    const [original, copy] = shown.artifacts;
    expect(original.id).toBe(taken.id);
    expect(original.sha256).toBe(taken.sha256);
    expect(original.derived_from).toBeNull();
    expect(original.caption).toBe('fan fuse holder scorched');
    expect(original.condition).toBe('urgent');
    expect(copy.derived_from).toBe(original.id);
    expect(copy.mime).toBe('image/png');
    expect(copy.sha256).not.toBe(original.sha256);
    const bytes = await apiCall(request, 'artifact_content', { artifact_id: original.id, thumbnail: false });
    expect(sha256(Buffer.from(bytes.content_base64, 'base64'))).toBe(taken.sha256);
    const copyBytes = await apiCall(request, 'artifact_content', { artifact_id: copy.id, thumbnail: false });
    expect(Buffer.from(copyBytes.content_base64, 'base64').subarray(0, 4).toString('latin1')).toBe('\x89PNG');

    // The report: its preview, then the finalized revision's export.
    await diagnoseToReport(request, s.id);
    await page.reload();
    await openSession(page, complaint);
    await showSessionTab(page, 'progress');
    const preview = page.getByTestId('report-box').getByTestId('report-preview');
    await expect(preview).toContainText('photo_exif.jpg: fan fuse holder scorched — Condition: Urgent');
    await expect(preview).toContainText('photo_exif-markup.png: fan fuse holder scorched — Condition: Urgent — marked-up copy of photo_exif.jpg');
    await apiCall(request, 'report_finalize', { session_id: s.id });
    const md = await apiCall(request, 'report_export', { session_id: s.id, format: 'markdown' });
    expect(md.content).toContain('fan fuse holder scorched — Condition: Urgent');
    // Markdown escapes the file name's underscore.
    expect(md.content).toContain('marked-up copy of photo\\_exif.jpg');
  });
});

/** Serious and critical WCAG 2.2 AA violations on the page as it is now (as e2e/a11y.spec.ts counts them). */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

for (const theme of ['light', 'dark'] as const) {
  test(`the tags, the copy's badge, the overlay and the markup editor pass axe: ${theme} theme`, async ({ page, request }) => {
    test.setTimeout(120_000);
    const complaint = unique(`Water heater no flame (markup a11y ${theme})`);
    const s = await createSession(request, { complaint });
    const photo = await apiCall(request, 'artifact_upload', {
      session_id: s.id,
      file_name: 'burner.jpg',
      content_base64: fixtureJpegBytes().toString('base64'),
    });
    await apiCall(request, 'artifact_annotate', { session_id: s.id, artifact_id: photo.id, caption: 'burner tube sooted', condition: 'attention' });
    const png = (await apiCall(request, 'artifact_content', { artifact_id: photo.id, thumbnail: true })).content_base64;
    // A thumbnail is a JPEG; a marked-up copy must be a PNG, so draw one in the page.
    await page.addInitScript((th) => window.localStorage.setItem('servicedesk.theme', th), theme);
    await openSession(page, complaint);
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    const data = await page.evaluate(async (jpeg) => {
      const img = new Image();
      img.src = `data:image/jpeg;base64,${jpeg}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      c.getContext('2d')!.drawImage(img, 0, 0);
      return c.toDataURL('image/png').split(',')[1];
    }, png);
    await apiCall(request, 'artifact_markup', { session_id: s.id, original_id: photo.id, data_base64: data });
    await page.reload();
    await openSession(page, complaint);
    await showSessionTab(page, 'photos');
    await expect(page.getByTestId('photo-markup-of')).toHaveText('Marked up from burner.jpg');

    const found: Record<string, string[]> = {};
    found.gallery = await seriousViolations(page);
    await page.getByTestId('photo-tile').first().click();
    await expect(page.getByTestId('condition-attention')).toHaveAttribute('aria-pressed', 'true');
    found.overlay = await seriousViolations(page);
    await page.getByTestId('overlay-markup').click();
    await page.getByTestId('markup-tool-text').click();
    await expect(page.getByTestId('markup-text-input')).toBeFocused();
    found.editor = await seriousViolations(page);
    await page.keyboard.press('Escape');
    // Escape leaves the markup first, then the overlay.
    await expect(page.getByTestId('markup-editor')).toHaveCount(0);
    await expect(page.getByTestId('photo-overlay')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('photo-overlay')).toHaveCount(0);
    await page.getByTestId('photo-tile').nth(1).click();
    await expect(page.getByTestId('overlay-markup-of')).toBeVisible();
    found.copy = await seriousViolations(page);
    expect(found).toEqual({ gallery: [], overlay: [], editor: [], copy: [] });
  });
}
