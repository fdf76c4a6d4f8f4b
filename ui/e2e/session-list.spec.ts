// A long session list: a backend of its own with 400 sessions (the shared one
// holds the other specs' sessions, and they must not see these). The sidebar
// renders only the rows in view, scrolls to the oldest session, opens a
// session from deep in the list, and search narrows it back to a plain list.
import { rmSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { API_HEADERS, startServer, stopPid, type RunningServer } from './server';

const SESSIONS = 400;
let server: RunningServer | null = null;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  server = await startServer();
  for (let i = 1; i <= SESSIONS; i++) {
    const r = await request.post(`${server.url}/api/session_new`, {
      headers: API_HEADERS,
      data: {
        complaint: `Awning ${String(i).padStart(3, '0')} will not extend`,
        customer: `Customer ${i}`,
        make_model: 'Jayco Eagle',
        plate: `LIST${i}`,
      },
    });
    expect(r.ok(), await r.text()).toBe(true);
  }
});

test.afterAll(async () => {
  if (server?.child.pid) await stopPid(server.child.pid);
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

test('400 sessions: only the rows in view are rendered, and the oldest is a scroll away', async ({ page }, testInfo) => {
  const started = Date.now();
  await page.goto(`${server!.url}/`);
  const list = page.getByTestId('session-list');
  await expect(page.getByTestId('sessions-count')).toContainText(String(SESSIONS));
  await expect(list).toHaveClass(/virtual/);
  // Most recently touched first.
  await expect(page.getByTestId('session-row').first()).toContainText('Awning 400 will not extend');
  testInfo.annotations.push({ type: 'open', description: `first row of ${SESSIONS} sessions after ${Date.now() - started} ms` });
  const rendered = await page.getByTestId('session-row').count();
  expect(rendered).toBeLessThan(60);
  await page.screenshot({ path: testInfo.outputPath('sessions-long-list.png') });

  // Scroll the pane to the end: the oldest session is rendered and in view.
  await page.getByTestId('sessions-pane').evaluate((pane) => pane.scrollTo(0, pane.scrollHeight));
  const oldest = page.getByTestId('session-row').filter({ hasText: 'Awning 001 will not extend' });
  await expect(oldest).toBeInViewport();
  expect(await page.getByTestId('session-row').count()).toBeLessThan(60);
  await expect(page.getByTestId('session-row').filter({ hasText: 'Awning 400 will not extend' })).toHaveCount(0);

  // A session from deep in the list opens with its own details, and stays selected.
  await oldest.click();
  await expect(page.getByTestId('detail-complaint')).toHaveText('Awning 001 will not extend');
  await expect(oldest).toHaveAttribute('aria-current', 'true');

  // Halfway down: the rows in view are the middle of the list (newest first).
  const pane = page.getByTestId('sessions-pane');
  await pane.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
  const visibleNumbers = () =>
    pane.evaluate((el) => {
      const view = el.getBoundingClientRect();
      return Array.from(el.querySelectorAll('[data-testid="session-row"]'))
        .filter((row) => {
          const r = row.getBoundingClientRect();
          return r.bottom > view.top && r.top < view.bottom;
        })
        .map((row) => Number(/Awning (\d+)/.exec(row.textContent ?? '')?.[1]));
    });
  await expect.poll(async () => (await visibleNumbers()).length).toBeGreaterThan(3);
  for (const n of await visibleNumbers()) {
    expect(n).toBeGreaterThan(120);
    expect(n).toBeLessThan(280);
  }
});

test('search narrows the long list to a plain one and back', async ({ page }) => {
  await page.goto(`${server!.url}/`);
  await expect(page.getByTestId('session-list')).toHaveClass(/virtual/);
  // By plate: LIST37 and LIST370–LIST379, eleven matches, a plain list.
  await page.getByTestId('session-search').fill('list37');
  await expect(page.getByTestId('sessions-count')).toContainText('11');
  await expect(page.getByTestId('session-row')).toHaveCount(11);
  await expect(page.getByTestId('session-list')).not.toHaveClass(/virtual/);
  await page.getByTestId('session-search').fill('');
  await expect(page.getByTestId('sessions-count')).toContainText(String(SESSIONS));
  await expect(page.getByTestId('session-list')).toHaveClass(/virtual/);
});
