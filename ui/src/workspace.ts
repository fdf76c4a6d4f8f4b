// The app's workspaces and how they are picked: the header's switch,
// Alt+1 … Alt+4, and the URL hash (#knowledge, #billing, #export) so a reload stays put.

import type { MessageKey } from './i18n';

export type Workspace = 'sessions' | 'knowledge' | 'billing' | 'export';

export const WORKSPACES: { id: Workspace; labelKey: MessageKey; shortcut: string; digit: string }[] = [
  { id: 'sessions', labelKey: 'workspace.sessions', shortcut: 'Alt+1', digit: '1' },
  { id: 'knowledge', labelKey: 'workspace.knowledge', shortcut: 'Alt+2', digit: '2' },
  { id: 'billing', labelKey: 'workspace.billing', shortcut: 'Alt+3', digit: '3' },
  { id: 'export', labelKey: 'workspace.export', shortcut: 'Alt+4', digit: '4' },
];

/** The workspace a URL hash names ("#knowledge", "#billing", "#export", "#sessions", none); null for any other hash. */
export function workspaceFromHash(hash: string): Workspace | null {
  const h = hash.replace(/^#/, '');
  if (h === 'knowledge') return 'knowledge';
  if (h === 'billing') return 'billing';
  if (h === 'export') return 'export';
  if (h === '' || h === 'sessions') return 'sessions';
  return null;
}

/** The hash of a workspace's link ("#" for sessions). */
export function hashForWorkspace(w: Workspace): string {
  return w === 'sessions' ? '' : `#${w}`;
}

/** The page URL for a workspace: the same path and query (a ?token= stays), the hash for the other workspaces. */
export function urlForWorkspace(loc: { pathname: string; search: string }, w: Workspace): string {
  return `${loc.pathname}${loc.search}${hashForWorkspace(w)}`;
}

/** The workspace an Alt+digit key press asks for (the digit by key or by physical key, as macOS Option changes the key). */
export function workspaceForKey(e: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; key: string; code?: string }): Workspace | null {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return null;
  for (const w of WORKSPACES) {
    if (e.key === w.digit || e.code === `Digit${w.digit}` || e.code === `Numpad${w.digit}`) return w.id;
  }
  return null;
}

/** Ctrl+, (Cmd+, on macOS) opens Settings. */
export function isSettingsKey(e: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; key: string; code?: string }): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === ',' || e.code === 'Comma');
}
