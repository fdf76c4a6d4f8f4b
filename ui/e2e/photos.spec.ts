import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiCall,
  createSession,
  dataDir,
  expect,
  FIXTURE_JPEG,
  fixtureJpegBytes,
  openSession,
  rowFor,
  showSessionTab,
  test,
  unique,
} from './fixtures';

test('upload a real JPEG with the file picker: thumbnail, then full image with EXIF time in the overlay', async ({ page, request }) => {
  const complaint = unique('Burnt 12V connector');
  const s = await createSession(request, { complaint });
  await openSession(page, complaint);
  await showSessionTab(page, 'photos');

  await page.getByTestId('photo-caption').fill('burnt connector');
  await page.getByTestId('photo-input').setInputFiles(FIXTURE_JPEG);

  const item = page.getByTestId('upload-item').filter({ hasText: 'photo_exif.jpg' });
  await expect(item).toHaveAttribute('data-status', 'done');

  const tile = page.getByTestId('photo-tile');
  await expect(tile).toHaveCount(1);
  const thumb = tile.getByTestId('photo-thumb');
  await expect(thumb).toBeVisible();
  await expect(thumb).toHaveAttribute('src', /^data:image\/jpeg;base64,/);
  // The thumbnail really decoded (it is turned upright: EXIF orientation 6 → portrait).
  const dims = await thumb.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
  expect(dims[0]).toBeGreaterThan(0);
  expect(dims[1]).toBeGreaterThan(dims[0]);
  await expect(tile).toContainText('burnt connector');
  await expect(rowFor(page, complaint).getByTestId('row-photos')).toHaveText('1 photo');

  await tile.click();
  const overlay = page.getByTestId('photo-overlay');
  await expect(overlay).toBeVisible();
  await expect(overlay.getByTestId('overlay-caption')).toHaveText('burnt connector');
  await expect(overlay.getByTestId('overlay-file-name')).toHaveText('photo_exif.jpg');
  await expect(overlay.getByTestId('overlay-taken-at')).toHaveText('2026-11-20 09:41:07 (UTC−07:00)');
  await expect(overlay.getByTestId('overlay-size')).toHaveText(/^16\.9 KiB · 640×480$/);
  const full = overlay.getByTestId('overlay-image');
  await expect(full).toHaveAttribute('src', /^data:image\/jpeg;base64,/);
  await expect.poll(() => full.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  // The full image is the original bytes, byte for byte.
  const src = await full.getAttribute('src');
  expect(Buffer.from(src!.split(',')[1], 'base64').equals(fixtureJpegBytes())).toBe(true);

  await page.keyboard.press('Escape');
  await expect(overlay).toHaveCount(0);

  const { artifacts } = await apiCall(request, 'artifact_list', { session_id: s.id });
  expect(artifacts).toHaveLength(1);
  expect(artifacts[0]).toMatchObject({ file_name: 'photo_exif.jpg', caption: 'burnt connector', taken_at: '2026-11-20T09:41:07-07:00' });
});

test('unsupported and empty files show the backend error per file, and nothing is stored', async ({ page, request }) => {
  const complaint = unique('Slide seal torn');
  const s = await createSession(request, { complaint });
  await openSession(page, complaint);
  await showSessionTab(page, 'photos');

  await page.getByTestId('photo-input').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('the customer says it smells like gas\n') },
    { name: 'empty.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(0) },
  ]);

  const txt = page.getByTestId('upload-item').filter({ hasText: 'notes.txt' });
  await expect(txt).toHaveAttribute('data-status', 'error');
  await expect(txt.getByTestId('upload-error')).toHaveAttribute('data-code', 'unsupported_type');
  await expect(txt.getByTestId('upload-error')).toContainText('notes.txt is not a supported file type');

  const empty = page.getByTestId('upload-item').filter({ hasText: 'empty.jpg' });
  await expect(empty).toHaveAttribute('data-status', 'error');
  await expect(empty.getByTestId('upload-error')).toHaveAttribute('data-code', 'empty_file');
  await expect(empty.getByTestId('upload-error')).toContainText('empty');

  await expect(page.getByTestId('photos-empty')).toBeVisible();
  const { artifacts } = await apiCall(request, 'artifact_list', { session_id: s.id });
  expect(artifacts).toHaveLength(0);

  await page.getByTestId('uploads-clear').click();
  await expect(page.getByTestId('upload-item')).toHaveCount(0);
});

test('"Verify photos" reports every file ok', async ({ page, request }) => {
  const complaint = unique('Roof AC not cooling');
  const s = await createSession(request, { complaint });
  await apiCall(request, 'artifact_upload', {
    session_id: s.id,
    file_name: 'compressor.jpg',
    content_base64: fixtureJpegBytes().toString('base64'),
  });
  await openSession(page, complaint);
  await showSessionTab(page, 'photos');
  await expect(page.getByTestId('photo-thumb')).toBeVisible();

  await page.getByTestId('verify-button').click();
  const results = page.getByTestId('verify-results');
  await expect(results.getByTestId('verify-summary')).toHaveText('All 1 file OK');
  const row = results.getByTestId('verify-result');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-status', 'ok');
  await expect(row).toContainText('compressor.jpg');
  await expect(page.getByTestId('photo-verified')).toHaveCount(1);
  await expect(page.getByTestId('photo-badge')).toHaveCount(0);
});

test('a damaged or missing original is flagged by Verify and in the photo view', async ({ page, request }) => {
  const complaint = unique('Inverter fault code');
  const s = await createSession(request, { complaint });
  // Unique bytes (a trailer after the JPEG's end marker) so no other test shares these blobs.
  const upload = async (name: string) => {
    const bytes = Buffer.concat([fixtureJpegBytes(), Buffer.from(`${name}-${Date.now()}-${Math.random()}`)]);
    const a = await apiCall(request, 'artifact_upload', {
      session_id: s.id,
      file_name: name,
      content_base64: bytes.toString('base64'),
    });
    expect(a.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    return a;
  };
  const damaged = await upload('damaged.jpg');
  const gone = await upload('gone.jpg');
  const blob = (sha: string) => join(dataDir(), 'artifacts', 'sha256', sha.slice(0, 2), sha.slice(2));

  const p = blob(damaged.sha256);
  chmodSync(p, 0o644);
  const bytes = readFileSync(p);
  bytes[200] ^= 0xff;
  writeFileSync(p, bytes);
  rmSync(blob(gone.sha256));

  await openSession(page, complaint);
  await showSessionTab(page, 'photos');
  await expect(page.getByTestId('photo-tile')).toHaveCount(2);
  await page.getByTestId('verify-button').click();
  await expect(page.getByTestId('verify-summary')).toHaveText('2 of 2 damaged');
  await expect(page.getByTestId('verify-result').filter({ hasText: 'damaged.jpg' })).toHaveAttribute('data-status', 'corrupt');
  await expect(page.getByTestId('verify-result').filter({ hasText: 'gone.jpg' })).toHaveAttribute('data-status', 'missing');

  const damagedTile = page.locator('[data-testid="photo-tile"][data-file-name="damaged.jpg"]');
  const goneTile = page.locator('[data-testid="photo-tile"][data-file-name="gone.jpg"]');
  await expect(damagedTile.getByTestId('photo-badge')).toHaveText('Corrupt');
  await expect(goneTile.getByTestId('photo-badge')).toHaveText('Missing');

  await damagedTile.click();
  const err = page.getByTestId('photo-overlay').getByTestId('overlay-error');
  await expect(err).toHaveAttribute('data-code', 'artifact_corrupt');
  await expect(err).toContainText('Corrupt');
  await expect(page.getByTestId('overlay-image')).toHaveCount(0);
  await page.getByTestId('overlay-close').click();

  await goneTile.click();
  await expect(page.getByTestId('photo-overlay').getByTestId('overlay-error')).toHaveAttribute('data-code', 'artifact_missing');
});

test('drag and drop a photo onto the photos area uploads it', async ({ page, request }) => {
  const complaint = unique('Leveling jack leaks');
  const s = await createSession(request, { complaint });
  await openSession(page, complaint);
  await showSessionTab(page, 'photos');

  const zone = page.getByTestId('photo-dropzone');
  const dataTransfer = await page.evaluateHandle((b64) => {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'dropped_jack.jpg', { type: 'image/jpeg' }));
    return dt;
  }, fixtureJpegBytes().toString('base64'));

  await zone.dispatchEvent('dragenter', { dataTransfer });
  await expect(zone).toHaveAttribute('data-dragging', 'true');
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
  await expect(zone).toHaveAttribute('data-dragging', 'false');

  await expect(page.getByTestId('upload-item').filter({ hasText: 'dropped_jack.jpg' })).toHaveAttribute('data-status', 'done');
  const tile = page.locator('[data-testid="photo-tile"][data-file-name="dropped_jack.jpg"]');
  await expect(tile.getByTestId('photo-thumb')).toHaveAttribute('src', /^data:image\/jpeg;base64,/);

  const { artifacts } = await apiCall(request, 'artifact_list', { session_id: s.id });
  expect(artifacts.map((a: { file_name: string }) => a.file_name)).toEqual(['dropped_jack.jpg']);
});

test('Export downloads the session_export JSON', async ({ page, request }) => {
  const complaint = unique('Black tank sensor reads full');
  const s = await createSession(request, { complaint, customer: 'Exporter' });
  await openSession(page, complaint);
  await showSessionTab(page, 'photos');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-button').click()]);
  expect(download.suggestedFilename()).toMatch(/^servicedesk-session-black-tank-sensor-reads-full.*\.json$/);
  const saved = await download.path();
  const exported = JSON.parse(readFileSync(saved!, 'utf8'));
  expect(exported.format).toBe('servicedesk.session.v1');
  expect(exported.session).toMatchObject({ id: s.id, complaint, customer: 'Exporter' });
  expect(exported.turns).toEqual([]);
  expect(exported.artifacts).toEqual([]);
  await expect(page.getByTestId('export-note')).toContainText(download.suggestedFilename());
});
