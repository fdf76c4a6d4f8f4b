// A session with 500 turns and 100 photos: the chat renders only what is in
// view, scrolls from the newest turn to the first without long frames, and
// the gallery loads thumbnails as they come into view.
import { API_HEADERS } from './server';
import { expect, fixtureJpegBytes, openSession, serverUrl, test, unique } from './fixtures';

test('500 turns and 100 photos scroll without stalls (only visible turns are rendered)', async ({ page, request }, testInfo) => {
  test.setTimeout(240_000);
  const complaint = unique('Long history');
  const s = await (await request.post(`${serverUrl()}/api/session_new`, { headers: API_HEADERS, data: { complaint } })).json();
  const photo = fixtureJpegBytes().toString('base64');
  for (let i = 1; i <= 500; i++) {
    const attachments = i % 5 === 0 ? [{ file_name: `IMG_${i}.jpg`, content_base64: photo }] : [];
    const r = await request.post(`${serverUrl()}/api/chat_turn`, { headers: API_HEADERS, data: { session_id: s.id, text: `note ${i}: checked the wiring at point ${i}`, attachments } });
    expect(r.ok(), await r.text()).toBe(true);
  }

  const started = Date.now();
  await openSession(page, complaint);
  const history = page.getByTestId('chat-history');
  await expect(history).toHaveAttribute('data-count', '500', { timeout: 30_000 });
  await expect(history).toHaveAttribute('data-virtual', 'true');
  // The newest turn is at the bottom, in view.
  await expect(page.locator('[data-testid="chat-turn"][data-seq="500"]')).toBeInViewport();
  testInfo.annotations.push({ type: 'open', description: `session with 500 turns shown in ${Date.now() - started} ms` });
  const rendered = await page.getByTestId('chat-turn').count();
  expect(rendered).toBeLessThan(60);
  await page.screenshot({ path: testInfo.outputPath('chat-long-history.png') });

  // Scroll to the very first turn, a screenful per frame, timing every frame.
  const run = await history.evaluate(async (el) => {
    const gaps: number[] = [];
    let maxRendered = 0;
    let last = performance.now();
    while (el.scrollTop > 0) {
      el.scrollTop = Math.max(0, el.scrollTop - el.clientHeight);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      maxRendered = Math.max(maxRendered, el.querySelectorAll('[data-testid="chat-turn"]').length);
    }
    // A few more frames for the last measurements to settle at the top.
    for (let i = 0; i < 5; i++) await new Promise((r) => requestAnimationFrame(() => r(null)));
    el.scrollTop = 0;
    gaps.sort((a, b) => a - b);
    return { frames: gaps.length, p95: gaps[Math.floor(gaps.length * 0.95)], max: gaps[gaps.length - 1], maxRendered };
  });
  testInfo.annotations.push({ type: 'scroll', description: JSON.stringify(run) });
  console.log(`[long-history] scroll to the top: ${JSON.stringify(run)}`);
  expect(run.frames).toBeGreaterThan(20);
  expect(run.maxRendered).toBeLessThan(80);
  // Frame gaps are reported (annotation and log), not asserted: a timing
  // assertion fails on a busy machine without the app being any worse.
  await expect(page.locator('[data-testid="chat-turn"][data-seq="1"]')).toBeInViewport({ timeout: 5000 });
  await expect(page.locator('[data-testid="chat-turn"][data-seq="1"]').getByTestId('chat-turn-input')).toHaveText('note 1: checked the wiring at point 1');

  // The gallery below: 100 tiles, thumbnails only for the ones in view so far.
  await expect(page.getByTestId('photo-tile')).toHaveCount(100);
  const thumbs = await page.getByTestId('photo-thumb').count();
  testInfo.annotations.push({ type: 'gallery', description: `${thumbs} of 100 thumbnails loaded before scrolling the gallery` });
  expect(thumbs).toBeLessThan(100);
});
