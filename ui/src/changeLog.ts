// The repair order's change log as a person reads it: the backend records
// each change under its column's name ("customer_phone", "line 2
// authorization") and times as RFC 3339 UTC; the log shows the field's
// label in the interface language and every time in local time.
import { formatTimestamp } from './files';
import { t, type MessageKey } from './i18n';

const HEADER_FIELDS: Record<string, MessageKey> = {
  complaint: 'newSession.complaint',
  customer: 'unit.customer',
  customer_phone: 'unit.phone',
  customer_email: 'unit.email',
  technician: 'unit.technician',
  vin: 'unit.vin',
  plate: 'unit.plate',
  make_model: 'unit.makeModel',
  model_year: 'unit.year',
  odometer: 'unit.odometer',
  odometer_unit: 'unit.odometerUnit',
  engine_hours: 'unit.engineHours',
  status: 'changes.status',
};

/** The label of a change log row's field; a field this build does not know is shown as stored. */
export function changeFieldLabel(field: string): string {
  const known = HEADER_FIELDS[field];
  if (known) return t(known);
  const line = /^line (\d+)( authorization)?$/.exec(field);
  if (line) return t(line[2] ? 'changes.lineAuthorization' : 'changes.line', { n: line[1] });
  return field;
}

// An instant as the backend writes it: 2026-11-27T15:04:00Z, with seconds,
// fractions or an offset.
const INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/** A recorded value with every time in it in local time ("approved, by Jane Doe, phone, 27 Nov 2026, 10:04"). */
export function changeValue(value: string | null | undefined): string {
  if (value == null || value === '') return '—';
  return value.replace(INSTANT, (at) => formatTimestamp(at));
}
