// Light / dark theme: follow the system (prefers-color-scheme) unless the
// person picked one in Settings. The choice is kept in localStorage and set as
// `data-theme` on <html>; styles.css defines the palettes.

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

/** Sets `data-theme` on <html> (removed for "system"). */
export function applyTheme(pref: ThemePref = getThemePref()): void {
  const root = document.documentElement;
  if (pref === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', pref);
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
