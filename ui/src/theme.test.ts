import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyTheme, resolveTheme, setThemePref } from './theme';

describe('theme', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    window.localStorage.clear();
  });

  it('"system" resolves to what the operating system shows; a picked theme wins over it', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });

  it('follows the operating system while the preference is "system", and stops once a theme is picked', () => {
    let dark = true;
    const listeners: Array<() => void> = [];
    vi.stubGlobal('matchMedia', (query: string) => ({
      media: query,
      get matches() {
        return dark;
      },
      addEventListener: (_: string, l: () => void) => listeners.push(l),
      removeEventListener: () => {},
    }));
    applyTheme('system');
    expect(document.documentElement.dataset.theme).toBe('dark');
    dark = false;
    for (const l of listeners) l();
    expect(document.documentElement.dataset.theme).toBe('light');
    setThemePref('dark');
    dark = false;
    for (const l of listeners) l();
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});
