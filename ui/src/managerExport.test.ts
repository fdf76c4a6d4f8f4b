import { describe, expect, it } from 'vitest';
import { defaultRange, exportPayload, presetRange, progressFraction } from './managerExport';

describe('manager export', () => {
  it('builds the payload, technician only when given', () => {
    expect(exportPayload({ from: '2026-11-01', to: '2026-11-30', technician: '  ' })).toEqual({ ok: true, payload: { from: '2026-11-01', to: '2026-11-30' } });
    expect(exportPayload({ from: '2026-11-01', to: '2026-11-01', technician: ' Sam ' })).toEqual({
      ok: true,
      payload: { from: '2026-11-01', to: '2026-11-01', technician: 'Sam' },
    });
  });

  it('catches missing, impossible and reversed dates next to their field', () => {
    expect(exportPayload({ from: '', to: '2026-11-30', technician: '' })).toEqual({ ok: false, errors: { from: 'Pick the first day.' } });
    expect(exportPayload({ from: '2026-02-30', to: '', technician: '' })).toEqual({
      ok: false,
      errors: { from: 'Use a date like 2026-11-01.', to: 'Pick the last day.' },
    });
    expect(exportPayload({ from: '2026-12-01', to: '2026-11-30', technician: '' })).toEqual({
      ok: false,
      errors: { to: 'The last day is before the first day.' },
    });
  });

  it('progress as a fraction; unknown total is indeterminate', () => {
    expect(progressFraction({ state: 'running', done: 0, total: 0 })).toBeNull();
    expect(progressFraction({ state: 'running', done: 3, total: 12 })).toBe(0.25);
    expect(progressFraction({ state: 'done', done: 0, total: 0 })).toBe(1);
  });

  it('ranges', () => {
    const now = new Date(2026, 10, 24);
    expect(defaultRange(now)).toEqual({ from: '2026-11-01', to: '2026-11-24' });
    expect(presetRange('last_month', now)).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    expect(presetRange('last_7', now)).toEqual({ from: '2026-11-18', to: '2026-11-24' });
    expect(presetRange('last_month', new Date(2026, 0, 10))).toEqual({ from: '2025-12-01', to: '2025-12-31' });
  });
});
