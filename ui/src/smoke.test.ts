import { afterEach, describe, expect, it, vi } from 'vitest';
import { createElement } from 'react';
import { App } from './App';
import { pageTimeline, runSmoke, SCRIPT_READY_MARK, SMOKE_CHAT, SMOKE_COMPLAINT, smokeRequested } from './smoke';
import { ApiError, call } from './transport';
import { installFakeBackend, listed, makeSession, makeTranscript } from './test/fakeBackend';
import { render, type Rendered } from './test/render';

let view: Rendered | null = null;
afterEach(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
  delete (window as { __SERVICEDESK_SMOKE__?: unknown }).__SERVICEDESK_SMOKE__;
});

describe('smoke routine', () => {
  it('is requested only when the shell sets window.__SERVICEDESK_SMOKE__', () => {
    expect(smokeRequested()).toBe(false);
    (window as { __SERVICEDESK_SMOKE__?: unknown }).__SERVICEDESK_SMOKE__ = true;
    expect(smokeRequested()).toBe(true);
  });

  it('drives the real App: creates the session, waits for its row, reports ok', async () => {
    const sessions: ReturnType<typeof makeSession>[] = [makeSession({ complaint: 'older' })];
    const backend = installFakeBackend({
      app_info: () => ({ name: 'RV Service Desk', version: '0.1.0', data_dir: '/d', schema_version: 1, sessions: 1, artifacts: 0 }),
      session_new: (p) => {
        const s = makeSession({ complaint: p.complaint });
        sessions.unshift(s);
        return s;
      },
      session_list: () => ({ sessions: sessions.map((s) => listed(s)) }),
      chat_turn: (p) =>
        makeTranscript(p.session_id, {
          system: 'furnace',
          active_step: 'blower_runs',
          reply: { kind: 'question', text: 'Does the furnace blower run?', step_id: 'blower_runs', citations: [] },
        }),
    });
    const launched = Date.now();
    view = render(createElement(App));
    // From here the smoke routine polls the DOM like a browser does, outside React's act().
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
    const invoke = vi.fn().mockResolvedValue(undefined);

    const report = await runSmoke({ call, invoke, root: view.container, timeoutMs: 3000 });

    expect(backend.callsOf('session_new')).toEqual([{ complaint: SMOKE_COMPLAINT }]);
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(invoke.mock.calls[0][0]).toBe('smoke_report');
    expect(invoke.mock.calls[0][1]).toEqual({ report });
    expect(report).toMatchObject({
      ok: true,
      transport: 'http', // jsdom has no Tauri bridge; in the desktop app this is 'tauri-ipc'
      app_info: { name: 'RV Service Desk', version: '0.1.0' },
      sessions_rendered: 2,
      session_id: sessions[0].id,
      chat: { turn: 1, transition: 'T1_root_entry', system: 'furnace' },
    });
    expect(backend.callsOf('chat_turn')).toEqual([{ session_id: sessions[0].id, text: SMOKE_CHAT }]);
    // When the list first showed: the shell turns it into the launch time.
    expect(report.session_list_shown_at_ms).toBeGreaterThanOrEqual(launched);
    expect(report.session_list_shown_at_ms).toBeLessThanOrEqual(Date.now());
    const rows = view.container.querySelectorAll('[data-testid="session-row"]');
    expect(rows[0].textContent).toContain(SMOKE_COMPLAINT);
    expect(report.page_started_at_ms).toBe(Math.round(performance.timeOrigin));
  });

  it('times the launch stages from the page start and the script-ready mark', () => {
    performance.clearMarks(SCRIPT_READY_MARK);
    expect(pageTimeline().script_ready_at_ms).toBeNull();
    const before = performance.timeOrigin + performance.now();
    performance.mark(SCRIPT_READY_MARK);
    const { page_started_at_ms, script_ready_at_ms } = pageTimeline();
    expect(page_started_at_ms).toBeLessThanOrEqual(Date.now());
    expect(script_ready_at_ms).toBeGreaterThanOrEqual(Math.floor(before));
    expect(script_ready_at_ms).toBeGreaterThanOrEqual(page_started_at_ms);
    expect(script_ready_at_ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('reports ok: false with the error when a command fails', async () => {
    const fakeCall = vi.fn().mockRejectedValue(new ApiError('storage', 'database is newer than this app'));
    const invoke = vi.fn().mockResolvedValue(undefined);
    const report = await runSmoke({ call: fakeCall as unknown as typeof call, invoke, root: document, timeoutMs: 100 });
    expect(report).toEqual({ ok: false, error: 'storage: database is newer than this app' });
    expect(invoke).toHaveBeenCalledWith('smoke_report', { report });
  });

  it('reports ok: false when the session never shows up in the list', async () => {
    const s = makeSession({ complaint: SMOKE_COMPLAINT });
    const fakeCall = vi.fn(async (command: string) => {
      if (command === 'session_new') return s;
      if (command === 'session_list') return { sessions: [listed(s)] };
      return {};
    });
    const invoke = vi.fn().mockResolvedValue(undefined);
    const root = document.createElement('div'); // nothing ever renders here
    const report = await runSmoke({ call: fakeCall as unknown as typeof call, invoke, root, timeoutMs: 200 });
    expect(report.ok).toBe(false);
    expect(String(report.error)).toContain('timeout');
  });

  it('reports ok: false when session_list does not contain the new session', async () => {
    const s = makeSession({ complaint: SMOKE_COMPLAINT });
    const fakeCall = vi.fn(async (command: string) => {
      if (command === 'session_new') return s;
      if (command === 'session_list') return { sessions: [] };
      return {};
    });
    const invoke = vi.fn().mockResolvedValue(undefined);
    const report = await runSmoke({ call: fakeCall as unknown as typeof call, invoke, root: document, timeoutMs: 200 });
    expect(report.ok).toBe(false);
    expect(String(report.error)).toContain('does not contain');
  });
});
