import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { ERROR_CODES, errorAdvice } from './errors';
import { setLocale, translate } from './i18n';
import { ErrorMessage } from './components/common';
import { ApiError } from './transport';
import { byTestId, render } from './test/render';

afterEach(() => setLocale('en'));

describe('error codes in words', () => {
  it('covers every code docs/api.md lists', () => {
    const doc = readFileSync(resolve(__dirname, '../../docs/api.md'), 'utf8');
    const line = doc.split('\n').find((l) => l.startsWith('Codes: '))!;
    const documented = [...line.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(documented.length).toBeGreaterThan(20);
    expect(documented.filter((c) => !(ERROR_CODES as readonly string[]).includes(c))).toEqual([]);
  });

  it('has its own message for each code in en, es and ru, none the generic one', () => {
    for (const locale of ['en', 'es', 'ru'] as const) {
      const generic = translate(locale, 'error.unknown');
      const texts = ERROR_CODES.map((c) => translate(locale, `error.${c}` as never));
      expect(texts.filter((x) => x === generic || x.startsWith('error.'))).toEqual([]);
      // Each says something different: no code falls back on another's words.
      expect(new Set(texts).size).toBe(texts.length);
    }
    expect(errorAdvice('exit_before_entry')).toBe('The exit is before the entry. Set the exit after the entry.');
    expect(errorAdvice('http_502')).toContain('HTTP 502');
    expect(errorAdvice('something_new')).toBe(translate('en', 'error.unknown'));
  });

  it('shows the advice and the message; the code only under a closed Details', () => {
    setLocale('es');
    const view = render(createElement(ErrorMessage, { error: new ApiError('exit_before_entry', 'exit 10:00 is before entry 12:00'), testId: 'err' }));
    const box = byTestId(view.container, 'err')!;
    expect(box.querySelector('.error-advice')!.textContent).toBe('La salida es anterior a la entrada. Ponga la salida después de la entrada.');
    expect(box.querySelector('.error-text')!.textContent).toBe('exit 10:00 is before entry 12:00');
    const details = box.querySelector('details')!;
    expect(details.open).toBe(false);
    expect(details.querySelector('code')!.textContent).toBe('exit_before_entry');
    view.unmount();
  });
});
