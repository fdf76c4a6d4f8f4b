// The desktop smoke routine. The Tauri shell injects
// `window.__SERVICEDESK_SMOKE__ = true` when an automated test starts the real
// app; we then exercise the backend through the normal transport, wait for
// the UI to render the result, and hand a report back to the shell, which
// checks it against SQLite and exits.

import { invoke } from '@tauri-apps/api/core';
import { notifySessionsChanged } from './events';
import { call, transportKind } from './transport';

export const SMOKE_COMPLAINT = 'smoke test: furnace blows cold';
export const SMOKE_CHAT = 'furnace blows cold air';
/** The performance mark main.tsx sets once every module has been evaluated. */
export const SCRIPT_READY_MARK = 'servicedesk:script-ready';

/** Wall-clock epoch ms of the page's navigation start and of the script-ready
 * mark (null when main.tsx did not set it), for the launch's stages. */
export function pageTimeline(): { page_started_at_ms: number; script_ready_at_ms: number | null } {
  const origin = performance.timeOrigin;
  const mark = performance.getEntriesByName(SCRIPT_READY_MARK)[0];
  return {
    page_started_at_ms: Math.round(origin),
    script_ready_at_ms: mark ? Math.round(origin + mark.startTime) : null,
  };
}

export interface SmokeDeps {
  call: typeof call;
  invoke: (cmd: string, args: Record<string, unknown>) => Promise<unknown>;
  root: ParentNode;
  timeoutMs: number;
}

const defaults = (): SmokeDeps => ({
  call,
  invoke: (cmd, args) => invoke(cmd, args),
  root: document,
  timeoutMs: 30_000,
});

export function smokeRequested(): boolean {
  return typeof window !== 'undefined' && Boolean((window as unknown as { __SERVICEDESK_SMOKE__?: unknown }).__SERVICEDESK_SMOKE__);
}

/** Rows of the sessions list currently in the DOM. */
function rows(root: ParentNode): Element[] {
  return Array.from(root.querySelectorAll('[data-testid="session-row"]'));
}

function waitFor<T>(check: () => T | null | undefined | false, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      let value: T | null | undefined | false;
      try {
        value = check();
      } catch (e) {
        reject(e);
        return;
      }
      if (value) resolve(value);
      else if (Date.now() - started > timeoutMs) reject(new Error(`timeout after ${timeoutMs} ms waiting for ${what}`));
      else setTimeout(tick, 50);
    };
    tick();
  });
}

/** When (epoch ms) the sessions list first showed its answer in `root`
 * (its count line renders with the first session_list), or null if it never
 * did within the timeout. Watched, not polled, so the time is exact. */
export function sessionListShown(root: ParentNode, timeoutMs: number): Promise<number | null> {
  const shown = () => root.querySelector('[data-testid="sessions-count"]') !== null;
  if (shown()) return Promise.resolve(Date.now());
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (shown()) {
        observer.disconnect();
        clearTimeout(timer);
        resolve(Date.now());
      }
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      resolve(null);
    }, timeoutMs);
    observer.observe(root instanceof Document ? root.documentElement : (root as Node), { childList: true, subtree: true });
  });
}

export async function runSmoke(overrides: Partial<SmokeDeps> = {}): Promise<Record<string, unknown>> {
  const d = { ...defaults(), ...overrides };
  // Started first: the launch time the shell reports is to this moment.
  const listShown = sessionListShown(d.root, d.timeoutMs);
  let report: Record<string, unknown>;
  try {
    const app_info = await d.call('app_info', {});
    const session = await d.call('session_new', { complaint: SMOKE_COMPLAINT });
    const list = await d.call('session_list', {});
    if (!list.sessions.some((s) => s.id === session.id)) {
      throw new Error(`session_list does not contain the new session ${session.id}`);
    }
    notifySessionsChanged();
    await waitFor(
      () => rows(d.root).find((r) => r.getAttribute('data-session-id') === session.id && r.textContent?.includes(SMOKE_COMPLAINT)),
      d.timeoutMs,
      'the new session to appear in the sessions list',
    );
    // A chat round trip through the engine: the shell checks the turn in SQLite.
    const turn = await d.call('chat_turn', { session_id: session.id, text: SMOKE_CHAT });
    if (turn.reply.kind !== 'question' || turn.system !== 'furnace') {
      throw new Error(`chat_turn answered ${turn.reply.kind} for ${turn.system}, expected a furnace question`);
    }
    report = {
      ok: true,
      transport: transportKind(),
      app_info,
      sessions_rendered: rows(d.root).length,
      session_id: session.id,
      chat: { turn: turn.turn, transition: turn.transition, system: turn.system },
      session_list_shown_at_ms: await listShown,
      ...pageTimeline(),
    };
  } catch (e) {
    report = { ok: false, error: String(e) };
  }
  await d.invoke('smoke_report', { report });
  return report;
}
