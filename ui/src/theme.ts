// Light / dark theme: follow the system (prefers-color-scheme) unless the
// person picked one in Settings. The choice is kept in localStorage; what it
// resolves to is always set as `data-theme` on <html>, so styles.css writes
// each palette once. Before this runs, `color-scheme: light dark` keeps the
// first paint in the system's colors.

import { useSyncExternalStore } from 'react';

export type ThemePref = 'system' | 'light' | 'dark';
export const THEME_PREFS: ThemePref[] = ['system', 'light', 'dark'];

const STORAGE_KEY = 'servicedesk.theme';
const listeners = new Set<() => void>();

function isPref(v: unknown): v is ThemePref {
  return v === 'system' || v === 'light' || v === 'dark';
}

export function getThemePref(): ThemePref {
  try {
    const v = window.localStorage.getItem(STORAGE_KEY);
    if (isPref(v)) return v;
  } catch {
    // no storage
  }
  return 'system';
}

const systemDark = (): MediaQueryList | undefined =>
  typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : undefined;

/** The theme `pref` stands for now: "system" follows the operating system. */
export function resolveTheme(pref: ThemePref, systemIsDark: boolean): 'light' | 'dark' {
  if (pref === 'system') return systemIsDark ? 'dark' : 'light';
  return pref;
}

let following = false;

/** Sets the resolved `data-theme` on <html>, and keeps it in step with the
 * operating system while the preference is "system". */
export function applyTheme(pref: ThemePref = getThemePref()): void {
  const query = systemDark();
  document.documentElement.setAttribute('data-theme', resolveTheme(pref, query?.matches ?? false));
  if (query && !following) {
    following = true;
    query.addEventListener('change', () => applyTheme());
  }
}

export function setThemePref(pref: ThemePref): void {
  if (!isPref(pref)) return;
  try {
    window.localStorage.setItem(STORAGE_KEY, pref);
  } catch {
    // applied, not persisted
  }
  applyTheme(pref);
  for (const l of listeners) l();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useThemePref(): ThemePref {
  return useSyncExternalStore(subscribe, getThemePref, getThemePref);
}
