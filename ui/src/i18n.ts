// The interface language: a small typed message catalog (src/messages/*.ts),
// no i18n library. `t(key, vars)` reads the current locale; components call
// `useLocale()` (App does, so a switch re-renders the whole tree). The
// choice is kept in localStorage. This is the language of the interface
// only: a session's own language (the chat, the report) follows the session.

import { useSyncExternalStore } from 'react';
import { en, type MessageKey, type Messages } from './messages/en';
import { es } from './messages/es';
import { ru } from './messages/ru';

export type Locale = 'en' | 'es' | 'ru';
export type { MessageKey };

export const LOCALES: { value: Locale; label: string }[] = [
  { value: 'en', label: 'English' },
  { value: 'es', label: 'Español' },
  { value: 'ru', label: 'Русский' },
];

export const CATALOGS: Record<Locale, Messages> = { en, es, ru };

const STORAGE_KEY = 'servicedesk.locale';

function isLocale(v: unknown): v is Locale {
  return v === 'en' || v === 'es' || v === 'ru';
}

function storedLocale(): Locale {
  try {
    const v = window.localStorage.getItem(STORAGE_KEY);
    if (isLocale(v)) return v;
  } catch {
    // no storage (private mode, tests): English
  }
  return 'en';
}

let current: Locale = typeof window === 'undefined' ? 'en' : storedLocale();
const listeners = new Set<() => void>();

export function getLocale(): Locale {
  return current;
}

export function setLocale(locale: Locale): void {
  if (!isLocale(locale) || locale === current) return;
  current = locale;
  try {
    window.localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // not persisted, still switched
  }
  if (typeof document !== 'undefined') document.documentElement.lang = locale;
  for (const l of listeners) l();
}

/** Re-reads localStorage (tests). */
export function reloadLocale(): void {
  const l = storedLocale();
  if (l !== current) {
    current = l;
    for (const f of listeners) f();
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current locale, re-rendering the caller when it changes. */
export function useLocale(): Locale {
  return useSyncExternalStore(subscribe, getLocale, getLocale);
}

/** The plural form index of `n` in a locale: en/es one|other, ru one|few|many. */
export function pluralIndex(locale: Locale, n: number): number {
  const a = Math.abs(n);
  if (locale === 'ru') {
    if (!Number.isInteger(a)) return 1;
    const m10 = a % 10;
    const m100 = a % 100;
    if (m10 === 1 && m100 !== 11) return 0;
    if (m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14)) return 1;
    return 2;
  }
  return a === 1 ? 0 : 1;
}

export type Vars = Record<string, string | number | null | undefined>;

/**
 * The message `key` in `locale` with `{name}` placeholders filled. A message
 * with plural forms is written "one|other" (ru: "one|few|many") and picks by
 * the number in `vars.n`.
 */
export function translate(locale: Locale, key: MessageKey, vars?: Vars): string {
  let msg: string = CATALOGS[locale][key] ?? en[key] ?? key;
  if (msg.includes('|') && vars && typeof vars.n === 'number') {
    const forms = msg.split('|');
    msg = forms[Math.min(pluralIndex(locale, vars.n), forms.length - 1)];
  }
  if (!vars) return msg;
  return msg.replace(/\{(\w+)\}/g, (m, name: string) => {
    const v = vars[name];
    return v == null ? m : String(v);
  });
}

/** The message in the current interface language. */
export function t(key: MessageKey, vars?: Vars): string {
  return translate(current, key, vars);
}

/** The `{name}` placeholders of a message (for the catalog check). */
export function placeholders(msg: string): string[] {
  return Array.from(new Set(Array.from(msg.matchAll(/\{(\w+)\}/g), (m) => m[1]))).sort();
}
