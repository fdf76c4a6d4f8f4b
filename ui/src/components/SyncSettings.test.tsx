import { afterEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { App } from '../App';
import { setLocale } from '../i18n';
import { setThemePref } from '../theme';
import { fakeSync, installFakeBackend, makeOutboxItem, type Handlers } from '../test/fakeBackend';
import { allByTestId, byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';

const INFO = { name: 'RV Service Desk', version: '9.9.9', data_dir: '/data/desk', schema_version: 1, sessions: 0, artifacts: 0 };

let view: Rendered | null = null;

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
  vi.useRealTimers();
  setLocale('en');
  setThemePref('system');
  window.localStorage.clear();
});

function mount(handlers: Handlers) {
  const backend = installFakeBackend({ app_info: () => INFO, session_list: () => ({ sessions: [] }), ...handlers });
  window.history.replaceState(null, '', '/');
  view = render(<App />);
  return { backend, root: view.container };
}

const conflict = () =>
  makeOutboxItem({
    kind: 'report',
    status: 'conflict',
    http_status: 409,
    last_error: JSON.stringify({ message: 'the portal has a newer revision', local_revision: 2, portal: { stored_revision: 3 } }),
  });

describe('sync indicator and outbox', () => {
  it('shows the state in the header, keeps its width, and opens the outbox with reasons and Retry', async () => {
    const sync = fakeSync({ state: 'online', online: true, portal_url: 'https://portal.example.com/api', token_set: true, done: 7, last_success: '2026-11-23T10:00:00Z' });
    const failed = makeOutboxItem({ kind: 'attachment', status: 'failed', http_status: 422, last_error: 'unsupported photo type' });
    sync.set({ problems: [failed, conflict()] });
    const { root, backend } = mount(sync.handlers);

    const ind = await waitFor(() => (byTestId(root, 'sync-indicator')?.dataset.kind === 'conflicts' ? byTestId(root, 'sync-indicator') : null));
    expect(byTestId(ind, 'sync-label')!.textContent).toBe('1 conflict');
    expect(byTestId(ind, 'sync-last')!.textContent).toMatch(/^last sync /);

    ind.focus();
    click(ind);
    const dialog = await waitFor(() => byTestId(document.body, 'outbox-dialog'));
    expect(dialog.getAttribute('role')).toBe('dialog');
    expect(byTestId(dialog, 'outbox-portal')!.textContent).toBe('https://portal.example.com');
    const items = allByTestId(dialog, 'outbox-item');
    expect(items.map((i) => i.dataset.status)).toEqual(['conflict', 'failed']);
    expect(byTestId(items[0], 'conflict-local')!.textContent).toBe('2');
    expect(byTestId(items[0], 'conflict-portal')!.textContent).toBe('3');
    expect(byTestId(items[0], 'outbox-reason')!.textContent).toBe('HTTP 409: the portal has a newer revision');
    expect(byTestId(items[1], 'outbox-reason')!.textContent).toBe('HTTP 422: unsupported photo type');

    click(byTestId(items[1], 'outbox-retry'));
    await waitFor(() => backend.callsOf('sync_retry').length === 1);
    expect(backend.callsOf('sync_retry')[0]).toEqual({ item: failed.id });
    // The outbox reloads: the retried item is pending now, not a problem with a Retry button.
    await waitFor(() => allByTestId(document.body, 'outbox-retry').length === 1);

    // Escape closes and focus returns to the indicator.
    act(() => {
      byTestId(document.body, 'outbox-dialog')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect(byTestId(document.body, 'outbox-dialog')).toBeNull();
    expect(document.activeElement).toBe(byTestId(root, 'sync-indicator'));
  });

  it('says when sync is not configured, and shows a retry error next to its item', async () => {
    const sync = fakeSync();
    const item = makeOutboxItem({ status: 'failed' });
    sync.set({ problems: [item] });
    const { root } = mount({
      ...sync.handlers,
      sync_retry: () => {
        throw { code: 'storage', message: 'database is locked' };
      },
    });
    const ind = await waitFor(() => byTestId(root, 'sync-indicator'));
    await waitFor(() => ind.dataset.kind === 'not_configured');
    expect(byTestId(ind, 'sync-label')!.textContent).toBe('Sync not configured');
    click(ind);
    const dialog = await waitFor(() => byTestId(document.body, 'outbox-dialog'));
    click(byTestId(dialog, 'outbox-retry'));
    const err = await waitFor(() => byTestId(dialog, 'outbox-retry-error'));
    expect(err.textContent).toContain('database is locked');
    expect(err.closest('[data-testid="outbox-item"]')).not.toBeNull();
  });

  it('shows an unreachable backend as an error state, not a crash', async () => {
    const { root } = mount({});
    const ind = await waitFor(() => (byTestId(root, 'sync-indicator')?.dataset.kind === 'error' ? byTestId(root, 'sync-indicator') : null));
    // Words, not the code; the code is the indicator's data and in its outbox.
    expect(byTestId(ind, 'sync-last')!.textContent).toBe('retrying…');
    expect(ind.dataset.kind).toBe('error');
  });
});

describe('settings', () => {
  it('saves the portal URL and token; the token is never shown back, only its last four and origin', async () => {
    const sync = fakeSync();
    const { root, backend } = mount(sync.handlers);
    click(await waitFor(() => byTestId(root, 'open-settings')));
    const dialog = await waitFor(() => byTestId(document.body, 'settings-dialog'));
    await waitFor(() => backend.callsOf('portal_settings').length === 1);
    expect(backend.callsOf('portal_settings')[0]).toEqual({});
    // The first field has focus.
    expect(document.activeElement).toBe(byTestId(dialog, 'settings-url'));

    // A bad URL: the backend's message next to the URL field.
    typeInto(byTestId(dialog, 'settings-url')!, 'ftp://portal');
    click(byTestId(dialog, 'settings-url-save'));
    const urlErr = await waitFor(() => byTestId(dialog, 'settings-url-error'));
    expect(urlErr.textContent).toContain('must be https');
    expect(byTestId(dialog, 'settings-url')!.getAttribute('aria-invalid')).toBe('true');

    typeInto(byTestId(dialog, 'settings-url')!, 'https://portal.example.com/api');
    click(byTestId(dialog, 'settings-url-save'));
    await waitFor(() => byTestId(dialog, 'settings-url-current')!.textContent === 'Now: https://portal.example.com');
    expect(byTestId(dialog, 'settings-url-error')).toBeNull();

    // An empty token is caught before the call, next to the token field.
    click(byTestId(dialog, 'settings-token-save'));
    expect(byTestId(dialog, 'settings-token-error')!.textContent).toContain('Paste the access token');

    const secret = 'sk-live-0123456789abcdef';
    typeInto(byTestId(dialog, 'settings-token')!, secret);
    click(byTestId(dialog, 'settings-token-save'));
    await waitFor(() => byTestId(dialog, 'settings-token-state')!.dataset.set === 'true');
    expect(sync.token()).toBe(secret);
    expect(byTestId(dialog, 'settings-token-state')!.textContent).toContain('…cdef');
    expect(byTestId(dialog, 'settings-token-state')!.textContent).toContain('keyring');
    expect((byTestId(dialog, 'settings-token') as HTMLInputElement).value).toBe('');
    expect((byTestId(dialog, 'settings-token') as HTMLInputElement).type).toBe('password');
    expect(document.body.innerHTML).not.toContain(secret);

    click(byTestId(dialog, 'settings-token-clear'));
    await waitFor(() => byTestId(dialog, 'settings-token-state')!.dataset.set === 'false');
    expect(sync.token()).toBeNull();
  });

  it('Ctrl+, opens it; the language switch changes every workspace label and is remembered; the theme is set on <html>', async () => {
    const sync = fakeSync();
    const { root } = mount(sync.handlers);
    await waitFor(() => byTestId(root, 'nav-sessions'));
    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: ',', code: 'Comma', ctrlKey: true, bubbles: true }));
    });
    const dialog = await waitFor(() => byTestId(document.body, 'settings-dialog'));
    click(byTestId(dialog, 'settings-lang-es'));
    expect(byTestId(root, 'nav-sessions')!.textContent).toContain('Sesiones');
    expect(byTestId(root, 'nav-export')!.textContent).toContain('Exportar');
    expect(byTestId(document.body, 'settings-dialog')!.textContent).toContain('Idioma de la interfaz');
    expect(byTestId(root, 'no-selection')!.textContent).toContain('Ninguna sesión seleccionada');
    expect(window.localStorage.getItem('servicedesk.locale')).toBe('es');
    expect(document.documentElement.lang).toBe('es');

    click(byTestId(document.body, 'settings-lang-ru'));
    expect(byTestId(root, 'nav-billing')!.textContent).toContain('Оплата');
    click(byTestId(document.body, 'settings-lang-en'));
    expect(byTestId(root, 'nav-billing')!.textContent).toContain('Billing');

    click(byTestId(document.body, 'settings-theme-dark'));
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(window.localStorage.getItem('servicedesk.theme')).toBe('dark');
    click(byTestId(document.body, 'settings-theme-system'));
    // jsdom has no prefers-color-scheme: the system is light.
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(window.localStorage.getItem('servicedesk.theme')).toBe('system');
  });
});
