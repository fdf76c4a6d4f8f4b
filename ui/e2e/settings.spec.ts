// Settings against a backend of its own (a fresh data dir, no portal):
// the portal URL and the write-only token, the interface language (es, then
// back to en, remembered across a reload) and the theme.
import { rmSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { API_HEADERS, startServer, stopPid, type RunningServer } from './server';

let server: RunningServer;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  server = await startServer();
});

test.afterAll(async () => {
  if (server?.child.pid) await stopPid(server.child.pid);
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

test('portal URL and token: errors next to the field, the token never shown back', async ({ page }, testInfo) => {
  await page.goto(`${server.url}/`);
  const indicator = page.getByTestId('sync-indicator');
  await expect(indicator).toHaveAttribute('data-kind', 'not_configured');
  await expect(page.getByTestId('sync-label')).toHaveText('Sync not configured');

  // Ctrl+, opens Settings with the URL field focused.
  await page.keyboard.press('Control+Comma');
  const dialog = page.getByTestId('settings-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading', { name: 'Settings' })).toBeVisible();
  const url = dialog.getByTestId('settings-url');
  await expect(url).toBeFocused();

  // A URL the backend refuses: its message under the URL field.
  await url.fill('ftp://portal.example.com');
  await dialog.getByTestId('settings-url-save').click();
  const urlError = dialog.getByTestId('settings-url-error');
  await expect(urlError).toBeVisible();
  await expect(urlError).toHaveAttribute('data-code', 'invalid_input');
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  // Said in words with what to do; the code only under Details.
  await expect(urlError).toContainText('Something entered is not valid.');
  await expect(urlError.locator('.error-code')).toBeHidden();

  // Not even a URL: the same message under the field, not the browser's tooltip.
  await url.fill('portal example com');
  await dialog.getByTestId('settings-url-save').click();
  await expect(urlError).toHaveAttribute('data-code', 'invalid_input');
  await expect(urlError).toContainText('Something entered is not valid.');

  // A loopback portal nobody listens on: stored, shown by its origin.
  await url.fill('http://127.0.0.1:9/portal');
  await dialog.getByTestId('settings-url-save').click();
  await expect(dialog.getByTestId('settings-url-current')).toHaveText('Now: http://127.0.0.1:9');
  await expect(urlError).toHaveCount(0);

  // An empty token is caught before any call.
  await dialog.getByTestId('settings-token-save').click();
  await expect(dialog.getByTestId('settings-token-error')).toContainText('Paste the access token');

  const secret = 'e2e-portal-token-7f3a9c21';
  const token = dialog.getByTestId('settings-token');
  await expect(token).toHaveAttribute('type', 'password');
  await token.fill(secret);
  await dialog.getByTestId('settings-token-save').click();
  const tokenError = dialog.getByTestId('settings-token-error');
  const tokenState = dialog.getByTestId('settings-token-state');
  await expect(tokenError.or(tokenState.and(page.locator('[data-set="true"]')))).toBeVisible();
  if (await tokenError.isVisible()) {
    // No OS keyring on this machine: the backend's reason is next to the token field.
    await expect(tokenError).toHaveAttribute('data-code', 'keyring');
    testInfo.annotations.push({ type: 'keyring', description: (await tokenError.textContent()) ?? '' });
  } else {
    await expect(tokenState).toContainText('…9c21');
    await expect(tokenState).toContainText('keyring');
    await expect(token).toHaveValue('');
    // Never echoed back: not in the page, not in any api answer.
    expect(await page.content()).not.toContain(secret);
    const settings = await (await page.request.post(`${server.url}/api/portal_settings`, { headers: API_HEADERS, data: {} })).json();
    expect(JSON.stringify(settings)).not.toContain(secret);
    expect(settings.token_last4).toBe('9c21');
  }
  await page.screenshot({ path: testInfo.outputPath('settings-portal.png') });

  // Escape closes; the indicator no longer says "not configured" (the worker tries the portal).
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(indicator).toBeFocused({ timeout: 1000 }).catch(() => {});
  await expect(page.getByTestId('open-settings')).toBeVisible();
});

test('interface language: es for the whole UI, remembered, then back to en', async ({ page }, testInfo) => {
  await page.goto(`${server.url}/`);
  await page.getByTestId('open-settings').click();
  const dialog = page.getByTestId('settings-dialog');
  await dialog.getByTestId('settings-lang-es').check();
  await expect(page.getByTestId('nav-sessions')).toContainText('Sesiones');
  await expect(page.getByTestId('nav-knowledge')).toContainText('Conocimiento');
  await expect(page.getByTestId('nav-export')).toContainText('Exportar');
  await expect(dialog.getByRole('heading', { name: 'Ajustes' })).toBeVisible();
  await expect(dialog.getByTestId('settings-shortcuts')).toContainText('Atajos de teclado');
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('no-selection')).toContainText('Ninguna sesión seleccionada');
  await expect(page.getByTestId('new-session-button')).toHaveText('Nueva sesión');
  await page.screenshot({ path: testInfo.outputPath('settings-language-es.png') });

  // Every workspace follows.
  await page.keyboard.press('Alt+3');
  await expect(page.getByTestId('billing-demo')).toHaveText('Cargar datos de demostración');
  await page.keyboard.press('Alt+2');
  await expect(page.getByTestId('knowledge-search-button')).toHaveText('Buscar');
  await page.keyboard.press('Alt+4');
  await expect(page.getByTestId('export-start')).toHaveText('Iniciar exportación');
  await page.keyboard.press('Alt+1');

  // Remembered across a reload.
  await page.reload();
  await expect(page.getByTestId('nav-billing')).toContainText('Cobros');

  // Back to English.
  await page.keyboard.press('Control+Comma');
  await page.getByTestId('settings-lang-en').check();
  await expect(page.getByTestId('nav-billing')).toContainText('Billing');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
});

test('theme: dark and light chosen in Settings override the system', async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${server.url}/`);
  const bg = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const light = await bg();
  await page.keyboard.press('Control+Comma');
  await page.getByTestId('settings-theme-dark').check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await bg()).not.toBe(light);
  await page.screenshot({ path: testInfo.outputPath('settings-dark.png') });
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.keyboard.press('Control+Comma');
  await page.getByTestId('settings-theme-system').check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await bg()).toBe(light);
  // "System" follows the operating system as it changes.
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await bg()).not.toBe(light);
});
