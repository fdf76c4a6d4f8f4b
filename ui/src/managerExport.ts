// View logic for the manager export (reports_export_start / _status): pure
// functions, unit-tested in managerExport.test.ts.

import type { ReportsExportInput, ReportsExportStatus } from './api';
import { t } from './i18n';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function validDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export interface ExportForm {
  from: string;
  to: string;
  technician: string;
}

export type FieldErrors = Partial<Record<keyof ExportForm, string>>;

/** The payload for reports_export_start, or the errors to show next to the fields. */
export function exportPayload(form: ExportForm): { ok: true; payload: ReportsExportInput } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const from = form.from.trim();
  const to = form.to.trim();
  if (!from) errors.from = t('export.fromRequired');
  else if (!validDate(from)) errors.from = t('export.badDate');
  if (!to) errors.to = t('export.toRequired');
  else if (!validDate(to)) errors.to = t('export.badDate');
  if (!errors.from && !errors.to && from > to) errors.to = t('export.toBeforeFrom');
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const tech = form.technician.trim();
  return { ok: true, payload: tech ? { from, to, technician: tech } : { from, to } };
}

/** The progress as a 0..1 fraction (null when the total is not known yet). */
export function progressFraction(s: Pick<ReportsExportStatus, 'done' | 'total' | 'state'>): number | null {
  if (s.state === 'done') return 1;
  if (!s.total || s.total <= 0) return null;
  return Math.max(0, Math.min(1, s.done / s.total));
}

function iso(d: Date): string {
  const y = d.getFullYear();
  const m = String(d.getMonth() + 1).padStart(2, '0');
  const day = String(d.getDate()).padStart(2, '0');
  return `${y}-${m}-${day}`;
}

/** The first day of this month to today (local dates). */
export function defaultRange(now: Date = new Date()): { from: string; to: string } {
  return { from: iso(new Date(now.getFullYear(), now.getMonth(), 1)), to: iso(now) };
}

/** Quick ranges: this month, last month, the last 7 days. */
export function presetRange(preset: 'this_month' | 'last_month' | 'last_7', now: Date = new Date()): { from: string; to: string } {
  if (preset === 'last_month') {
    return { from: iso(new Date(now.getFullYear(), now.getMonth() - 1, 1)), to: iso(new Date(now.getFullYear(), now.getMonth(), 0)) };
  }
  if (preset === 'last_7') return { from: iso(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 6)), to: iso(now) };
  return defaultRange(now);
}
