import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { apiCall, serverUrl } from './fixtures';

// A page served from another origin (another port on 127.0.0.1) tries the
// api the ways a web page can: simple no-cors text/plain POSTs, and CORS
// fetches with JSON. Every attempt is refused (or unreadable) and nothing
// changes (issue 17).
let evil: Server;
let evilUrl: string;

test.beforeAll(async () => {
  evil = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>another site</title><body>another site</body>');
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', () => resolve()));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => evil.close(() => resolve()));
});

test('a page on another origin can neither call the api nor read it', async ({ browser, request }) => {
  const sessionsBefore = await apiCall<{ sessions: { id: string }[] }>(request, 'session_list', {});
  const portalBefore = await apiCall(request, 'portal_settings', {});
  const victim = sessionsBefore.sessions[0]?.id ?? 'none';

  // A fresh context: nothing but what any page would send.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(evilUrl);
  const outcomes = await page.evaluate(
    async ({ base, victim }) => {
      const attempts: [string, object][] = [
        ['session_new', { complaint: 'planted by another site' }],
        ['session_delete', { session_id: victim, purge: true }],
        ['portal_settings', { url: 'https://evil.example' }],
        ['chat_turn', { session_id: victim, text: 'the fuse is blown' }],
        ['reports_export_start', { from: '2020-01-01', to: '2030-01-01', out_dir: '/tmp' }],
        ['artifact_add', { session_id: victim, path: '/etc/passwd' }],
        ['session_list', {}],
      ];
      const out: string[] = [];
      for (const [command, payload] of attempts) {
        const body = JSON.stringify(payload);
        // The CSRF classic: a simple request the browser sends without asking.
        await fetch(`${base}/api/${command}`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'Content-Type': 'text/plain' },
          body,
        }).then(
          (r) => out.push(`${command} no-cors: ${r.type}`),
          () => out.push(`${command} no-cors: blocked`),
        );
        // A CORS request: the preflight gets no CORS answer, so it never goes.
        await fetch(`${base}/api/${command}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': 'guessed' },
          body,
        }).then(
          async (r) => out.push(`${command} cors: READ ${r.status} ${await r.text()}`),
          () => out.push(`${command} cors: blocked`),
        );
      }
      return out;
    },
    { base: serverUrl(), victim },
  );
  await context.close();

  // Nothing could be read...
  expect(outcomes.filter((o) => o.includes('READ'))).toEqual([]);
  // ... and nothing changed.
  const sessionsAfter = await apiCall<{ sessions: { id: string }[] }>(request, 'session_list', {});
  expect(sessionsAfter.sessions.map((s) => s.id)).toEqual(sessionsBefore.sessions.map((s) => s.id));
  expect(await apiCall(request, 'portal_settings', {})).toEqual(portalBefore);
});

test('the served page can call the api: it carries the per-launch CSRF token', async ({ page }) => {
  const sent: (string | undefined)[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/')) sent.push(r.headers()['x-csrf-token']);
  });
  await page.goto(`${serverUrl()}/`);
  await expect(page.getByTestId('new-session-button')).toBeVisible();
  expect(sent.length).toBeGreaterThan(0);
  expect(sent.every((t) => typeof t === 'string' && t.length > 0)).toBe(true);
});
