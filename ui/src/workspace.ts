// The app's workspaces and how they are picked: the header's switch,
// Alt+1 / Alt+2 / Alt+3, and the URL hash (#knowledge, #billing) so a reload stays put.

export type Workspace = 'sessions' | 'knowledge' | 'billing';

export const WORKSPACES: { id: Workspace; label: string; shortcut: string; digit: string }[] = [
  { id: 'sessions', label: 'Sessions', shortcut: 'Alt+1', digit: '1' },
  { id: 'knowledge', label: 'Knowledge', shortcut: 'Alt+2', digit: '2' },
  { id: 'billing', label: 'Billing', shortcut: 'Alt+3', digit: '3' },
];

/** The workspace a URL hash names ("#knowledge", "#billing", "#sessions", none); null for any other hash. */
export function workspaceFromHash(hash: string): Workspace | null {
  const h = hash.replace(/^#/, '');
  if (h === 'knowledge') return 'knowledge';
  if (h === 'billing') return 'billing';
  if (h === '' || h === 'sessions') return 'sessions';
  return null;
}

/** The hash of a workspace's link ("#" for sessions). */
export function hashForWorkspace(w: Workspace): string {
  return w === 'sessions' ? '' : `#${w}`;
}

/** The page URL for a workspace: the same path and query (a ?token= stays), the hash for knowledge and billing. */
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
