import { afterEach, describe, expect, it } from 'vitest';
import { CATALOGS, getLocale, placeholders, pluralIndex, setLocale, t, translate, type MessageKey } from './i18n';
import { en } from './messages/en';

afterEach(() => setLocale('en'));

const FORMS: Record<string, number> = { en: 2, es: 2, ru: 3 };

describe('message catalogs', () => {
  const keys = Object.keys(en) as MessageKey[];

  for (const locale of ['es', 'ru'] as const) {
    it(`${locale} has every key of en, no extra keys, and the same placeholders`, () => {
      const cat = CATALOGS[locale] as Record<string, string>;
      expect(keys.filter((k) => typeof cat[k] !== 'string' || cat[k].trim() === '')).toEqual([]);
      expect(Object.keys(cat).filter((k) => !(k in en))).toEqual([]);
      const mismatched = keys.filter((k) => placeholders(cat[k]).join() !== placeholders(en[k]).join());
      expect(mismatched).toEqual([]);
    });

    it(`${locale} plural messages have the locale's number of forms`, () => {
      const cat = CATALOGS[locale] as Record<string, string>;
      const plural = keys.filter((k) => en[k].includes('|'));
      expect(plural.length).toBeGreaterThan(3);
      for (const k of plural) {
        expect(en[k].split('|').length, `en ${k}`).toBe(FORMS.en);
        expect(cat[k].split('|').length, `${locale} ${k}`).toBe(FORMS[locale]);
      }
      // A message without plural forms in en has none in the translation either.
      expect(keys.filter((k) => !en[k].includes('|') && cat[k].includes('|'))).toEqual([]);
    });
  }
});

describe('translate', () => {
  it('fills placeholders and picks plural forms (ru: one / few / many)', () => {
    expect(translate('en', 'chat.turns', { n: 1 })).toBe('1 turn');
    expect(translate('en', 'chat.turns', { n: 0 })).toBe('0 turns');
    expect(translate('es', 'chat.turns', { n: 2 })).toBe('2 turnos');
    expect(translate('ru', 'chat.turns', { n: 1 })).toBe('1 ход');
    expect(translate('ru', 'chat.turns', { n: 3 })).toBe('3 хода');
    expect(translate('ru', 'chat.turns', { n: 11 })).toBe('11 ходов');
    expect(translate('ru', 'chat.turns', { n: 21 })).toBe('21 ход');
    expect(translate('ru', 'chat.turns', { n: 25 })).toBe('25 ходов');
    expect(translate('en', 'export.progressText', { done: 3, total: 10 })).toBe('3 of 10 reports');
    expect(pluralIndex('ru', 104)).toBe(1);
    expect(pluralIndex('ru', 112)).toBe(2);
  });

  it('switches the current locale, persists it and sets <html lang>', () => {
    expect(getLocale()).toBe('en');
    setLocale('ru');
    expect(t('workspace.sessions')).toBe('Сессии');
    expect(window.localStorage.getItem('servicedesk.locale')).toBe('ru');
    expect(document.documentElement.lang).toBe('ru');
    setLocale('es');
    expect(t('settings.title')).toBe('Ajustes');
  });
});
