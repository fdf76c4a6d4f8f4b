import { rmSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { E2E_CSRF, startServer, stopPid, type RunningServer } from './server';

// A second backend that demands a bearer token: the UI must send the one it
// was given as ?token=T, and show the refusal when it has none.
const TOKEN = 'e2e-secret-token';
let server: RunningServer;

test.beforeAll(async () => {
  server = await startServer([], undefined, { SERVICEDESK_SERVE_TOKEN: TOKEN });
});

test.afterAll(async () => {
  if (server?.child.pid) await stopPid(server.child.pid);
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

test('without a token the backend refuses and the UI says so', async ({ page }) => {
  await page.goto(`${server.url}/`);
  const err = page.getByTestId('sessions-error');
  await expect(err).toHaveAttribute('data-code', 'unauthorized');
  await expect(err).toContainText('bearer token');
  await expect(page.getByTestId('app-info-error')).toHaveAttribute('data-code', 'unauthorized');
});

test('with ?token=T every call carries Authorization: Bearer T and the page\'s CSRF token', async ({ page }) => {
  const seen: (string | undefined)[] = [];
  const csrf: (string | undefined)[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/')) {
      seen.push(r.headers()['authorization']);
      csrf.push(r.headers()['x-csrf-token']);
    }
  });
  await page.goto(`${server.url}/?token=${TOKEN}`);
  await page.getByTestId('open-about').click();
  await expect(page.getByTestId('app-data-dir')).toHaveText(server.dataDir);
  await page.keyboard.press('Escape');
  await page.getByTestId('new-session-button').click();
  await page.getByTestId('new-complaint').fill('Token test: fridge not cold on propane');
  await page.getByTestId('create-session').click();
  await expect(page.getByTestId('session-row').filter({ hasText: 'Token test' })).toHaveCount(1);
  await expect(page.getByTestId('sessions-error')).toHaveCount(0);
  expect(seen.length).toBeGreaterThanOrEqual(3);
  expect(seen.every((h) => h === `Bearer ${TOKEN}`)).toBe(true);
  // The UI read the token from the page the server served (a meta tag).
  expect(csrf.every((h) => h === E2E_CSRF)).toBe(true);
});
