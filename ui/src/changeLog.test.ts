import { afterEach, describe, expect, it } from 'vitest';
import { changeFieldLabel, changeValue } from './changeLog';
import { formatTimestamp } from './files';
import { setLocale } from './i18n';

afterEach(() => setLocale('en'));

describe('the change log', () => {
  it('names each field by its label, in the interface language', () => {
    expect(changeFieldLabel('customer_phone')).toBe('Phone');
    expect(changeFieldLabel('make_model')).toBe('Make / model');
    expect(changeFieldLabel('line 2')).toBe('Line 2');
    expect(changeFieldLabel('line 12 authorization')).toBe('Line 12 estimate answer');
    expect(changeFieldLabel('status')).toBe('Status');
    setLocale('es');
    expect(changeFieldLabel('customer_phone')).toBe('Teléfono');
    expect(changeFieldLabel('line 3 authorization')).toBe('Respuesta al presupuesto de la línea 3');
    setLocale('ru');
    expect(changeFieldLabel('customer_email')).not.toBe('customer_email');
    expect(changeFieldLabel('line 1')).toBe('Строка 1');
    // A field a newer backend records is shown as it is, never dropped.
    expect(changeFieldLabel('warranty_claim')).toBe('warranty_claim');
  });

  it('shows the times in a recorded value in local time', () => {
    const at = '2026-11-27T15:04:00Z';
    const shown = changeValue(`approved, by Jane Doe, phone, ${at}`);
    expect(shown).toBe(`approved, by Jane Doe, phone, ${formatTimestamp(at)}`);
    expect(shown).not.toContain('T15:04');
    expect(changeValue('declined, by A, in_person, 2026-11-27T15:04:00.123+02:00')).toBe(
      `declined, by A, in_person, ${formatTimestamp('2026-11-27T15:04:00.123+02:00')}`,
    );
    // A value without a time, or none at all.
    expect(changeValue('Fridge not cooling; customer; labor 0.00 h in 0 line(s); parts: none')).toBe(
      'Fridge not cooling; customer; labor 0.00 h in 0 line(s); parts: none',
    );
    expect(changeValue(null)).toBe('—');
    expect(changeValue('')).toBe('—');
  });
});
