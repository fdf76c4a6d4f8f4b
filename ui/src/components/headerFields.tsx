// The repair order's customer and unit fields, shared by the new-session
// form and the header's edit form: the same inputs, the same client-side
// checks (the backend still has the final word: VIN check digit, e-mail).
import type { ChangeEvent } from 'react';
import type { OdometerUnit, Session } from '../api';
import { t } from '../i18n';

export interface HeaderFields {
  customer: string;
  customer_phone: string;
  customer_email: string;
  technician: string;
  vin: string;
  plate: string;
  make_model: string;
  model_year: string;
  odometer: string;
  odometer_unit: OdometerUnit;
  engine_hours: string;
}

export const EMPTY_HEADER: HeaderFields = {
  customer: '',
  customer_phone: '',
  customer_email: '',
  technician: '',
  vin: '',
  plate: '',
  make_model: '',
  model_year: '',
  odometer: '',
  odometer_unit: 'mi',
  engine_hours: '',
};

/** The form's fields as a stored session has them. */
export function headerOf(s: Session): HeaderFields {
  const u = s.unit;
  return {
    customer: s.customer ?? '',
    customer_phone: s.customer_phone ?? '',
    customer_email: s.customer_email ?? '',
    technician: s.technician ?? '',
    vin: u.vin ?? '',
    plate: u.plate ?? '',
    make_model: u.make_model ?? '',
    model_year: u.model_year != null ? String(u.model_year) : '',
    odometer: u.odometer != null ? String(u.odometer) : '',
    odometer_unit: u.odometer_unit ?? 'mi',
    engine_hours: u.engine_hours != null ? String(u.engine_hours) : '',
  };
}

export type HeaderErrors = Partial<Record<keyof HeaderFields, string>>;

export interface HeaderValues {
  customer: string;
  customer_phone: string;
  customer_email: string;
  technician: string;
  vin: string;
  plate: string;
  make_model: string;
  model_year: number | undefined;
  odometer: number | undefined;
  odometer_unit: OdometerUnit | undefined;
  engine_hours: number | undefined;
}

/** Numbers parsed and range-checked; text passed through (blank clears). */
export function checkHeader(f: HeaderFields): { values?: HeaderValues; errors: HeaderErrors } {
  const errors: HeaderErrors = {};
  const whole = (k: 'odometer' | 'model_year', min: number, max: number, message: string) => {
    if (f[k].trim() === '') return undefined;
    const n = Number(f[k]);
    if (!Number.isInteger(n) || n < min || n > max) errors[k] = message;
    return n;
  };
  const odometer = whole('odometer', 0, Number.MAX_SAFE_INTEGER, t('newSession.odometerInvalid'));
  const modelYear = whole('model_year', 1950, 2100, t('newSession.yearInvalid'));
  let engineHours: number | undefined;
  if (f.engine_hours.trim() !== '') {
    const n = Number(f.engine_hours);
    if (!Number.isFinite(n) || n < 0) errors.engine_hours = t('newSession.engineHoursInvalid');
    else engineHours = n;
  }
  const vin = f.vin.replace(/[\s-]/g, '');
  if (vin !== '' && vin.length !== 17) errors.vin = t('newSession.vinLength', { n: vin.length });
  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    values: {
      customer: f.customer,
      customer_phone: f.customer_phone,
      customer_email: f.customer_email,
      technician: f.technician,
      vin: f.vin,
      plate: f.plate,
      make_model: f.make_model,
      model_year: modelYear,
      odometer,
      odometer_unit: odometer != null ? f.odometer_unit : undefined,
      engine_hours: engineHours,
    },
  };
}

/** The inputs; test ids are `${prefix}-${field}` (new-vin, edit-vin, …). */
export function HeaderFieldGrid({
  prefix,
  fields,
  errors,
  onChange,
}: {
  prefix: string;
  fields: HeaderFields;
  errors: HeaderErrors;
  onChange: (k: keyof HeaderFields, value: string) => void;
}) {
  const id = (k: keyof HeaderFields) => `${prefix}-${k.replace(/_/g, '-')}`;
  const set = (k: keyof HeaderFields) => (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => onChange(k, e.target.value);
  const error = (k: keyof HeaderFields) =>
    errors[k] ? (
      <div className="field-error" role="alert" data-testid={`${k.replace(/_/g, '-')}-error`} id={`${id(k)}-error`}>
        {errors[k]}
      </div>
    ) : null;
  const text = (k: keyof HeaderFields, label: string, extra: Record<string, unknown> = {}) => (
    <label className="field" key={k}>
      <span>{label}</span>
      <input
        data-testid={id(k)}
        value={fields[k]}
        onChange={set(k)}
        aria-invalid={!!errors[k]}
        aria-describedby={errors[k] ? `${id(k)}-error` : undefined}
        {...extra}
      />
      {error(k)}
    </label>
  );
  return (
    <div className="field-grid">
      {text('customer', t('unit.customer'))}
      {text('customer_phone', t('unit.phone'), { type: 'tel', inputMode: 'tel' })}
      {text('customer_email', t('unit.email'), { type: 'email', inputMode: 'email' })}
      {text('technician', t('unit.technician'))}
      {text('make_model', t('unit.makeModel'), { placeholder: 'Winnebago View' })}
      {text('model_year', t('unit.year'), { inputMode: 'numeric' })}
      {text('vin', t('unit.vin'), { className: 'mono', maxLength: 32, autoCapitalize: 'characters' })}
      {text('plate', t('unit.plate'), { className: 'mono' })}
      <label className="field">
        <span>{t('unit.odometer')}</span>
        <span className="input-with-unit">
          <input
            data-testid={id('odometer')}
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            value={fields.odometer}
            onChange={set('odometer')}
            aria-invalid={!!errors.odometer}
          />
          <select data-testid={id('odometer_unit')} value={fields.odometer_unit} onChange={set('odometer_unit')} aria-label={t('unit.odometerUnit')}>
            <option value="mi">mi</option>
            <option value="km">km</option>
          </select>
        </span>
        {error('odometer')}
      </label>
      {text('engine_hours', t('unit.engineHours'), { type: 'number', min: 0, step: 0.1, inputMode: 'decimal' })}
    </div>
  );
}
