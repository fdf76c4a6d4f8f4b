// Shared test setup: the backend started by global-setup.ts, and helpers
// that use its HTTP api directly (to arrange data, and to check what the UI
// really stored).
import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { API_HEADERS, UI_DIR } from './server';

export const serverUrl = (): string => {
  const url = process.env.SERVICEDESK_E2E_URL;
  if (!url) throw new Error('SERVICEDESK_E2E_URL is not set: global-setup.ts did not run');
  return url;
};

export const dataDir = (): string => process.env.SERVICEDESK_E2E_DATA_DIR!;

export const test = base.extend({
  baseURL: async ({}, use) => {
    await use(serverUrl());
  },
});
export { expect };

export const FIXTURE_JPEG = resolve(UI_DIR, '../tests/fixtures/photo_exif.jpg');
export const fixtureJpegBytes = (): Buffer => readFileSync(FIXTURE_JPEG);

/** A string no other test (or earlier run) uses. */
export function unique(prefix: string): string {
  return `${prefix} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export async function apiCall<T = any>(request: APIRequestContext, command: string, payload: object = {}): Promise<T> {
  const r = await request.post(`${serverUrl()}/api/${command}`, { headers: API_HEADERS, data: payload });
  const body = await r.json();
  if (!r.ok()) throw new Error(`${command}: ${r.status()} ${JSON.stringify(body)}`);
  return body as T;
}

export async function createSession(request: APIRequestContext, payload: Record<string, unknown>): Promise<{ id: string; complaint: string }> {
  return apiCall(request, 'session_new', payload);
}

export function rowFor(page: Page, complaint: string) {
  return page.getByTestId('session-row').filter({ hasText: complaint });
}

/** Opens the app and selects the session with this complaint. */
export async function openSession(page: Page, complaint: string): Promise<void> {
  await page.goto('/');
  await page.getByTestId('session-search').fill(complaint);
  await rowFor(page, complaint).click();
  await expect(page.getByTestId('detail-complaint')).toHaveText(complaint);
}

/**
 * Shows a tab of the open session: the side panel's Progress, Unit or Photos
 * (beside the chat on a wide window; in place of it on a narrow one), or Chat.
 */
export async function showSessionTab(page: Page, tab: 'chat' | 'progress' | 'unit' | 'photos'): Promise<void> {
  await page.getByTestId(`tab-${tab}`).click();
  await expect(page.getByTestId(`tab-${tab}`)).toHaveAttribute('aria-selected', 'true');
}

/** A whole diagnosis through the api (no UI): complaint, isolation, labor, the report written up as a draft (not finalized). */
export async function diagnoseToReport(request: APIRequestContext, sessionId: string, url = serverUrl()): Promise<void> {
  for (const text of ["roof vent fan doesn't work", 'panel fuse blown', 'make it 1.5', 'write the report']) {
    const r = await request.post(`${url}/api/chat_turn`, { headers: API_HEADERS, data: { session_id: sessionId, text } });
    if (!r.ok()) throw new Error(`chat_turn "${text}": ${r.status()} ${await r.text()}`);
  }
}

/** True when the backend knows the command (older builds answer unknown_command). */
export async function backendHas(request: APIRequestContext, command: string, url = serverUrl()): Promise<boolean> {
  const r = await request.post(`${url}/api/${command}`, { headers: API_HEADERS, data: {} });
  if (r.ok()) return true;
  const body = await r.json().catch(() => ({}));
  return body.code !== 'unknown_command';
}

/** Today as YYYY-MM-DD in this machine's zone (the date inputs' format). */
export function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
