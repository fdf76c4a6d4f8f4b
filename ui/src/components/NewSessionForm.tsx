import { useState, type FormEvent } from 'react';
import { api, LANGUAGES, type Session, type SessionNewInput } from '../api';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { t } from '../i18n';

interface Fields {
  complaint: string;
  customer: string;
  technician: string;
  language: string;
  vin: string;
  plate: string;
  make_model: string;
  odometer: string;
  engine_hours: string;
}

const EMPTY: Fields = {
  complaint: '',
  customer: '',
  technician: '',
  language: 'en',
  vin: '',
  plate: '',
  make_model: '',
  odometer: '',
  engine_hours: '',
};

type FieldErrors = Partial<Record<keyof Fields, string>>;

/** Client-side checks; the backend still has the final word. */
export function validateNewSession(f: Fields): { input?: SessionNewInput; errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (f.complaint.trim() === '') {
    errors.complaint = t('newSession.complaintRequired');
  }
  let odometer: number | undefined;
  if (f.odometer.trim() !== '') {
    const n = Number(f.odometer);
    if (!Number.isInteger(n) || n < 0) errors.odometer = t('newSession.odometerInvalid');
    else odometer = n;
  }
  let engineHours: number | undefined;
  if (f.engine_hours.trim() !== '') {
    const n = Number(f.engine_hours);
    if (!Number.isFinite(n) || n < 0) errors.engine_hours = t('newSession.engineHoursInvalid');
    else engineHours = n;
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    input: {
      complaint: f.complaint.trim(),
      customer: f.customer,
      technician: f.technician,
      language: f.language,
      vin: f.vin,
      plate: f.plate,
      make_model: f.make_model,
      odometer,
      engine_hours: engineHours,
    },
  };
}

export function NewSessionForm({
  onCreated,
  onCancel,
}: {
  onCreated: (s: Session) => void;
  onCancel: () => void;
}) {
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const set = (k: keyof Fields) => (e: { target: { value: string } }) => {
    const value = e.target.value;
    setFields((f) => ({ ...f, [k]: value }));
    if (errors[k]) setErrors((er) => ({ ...er, [k]: undefined }));
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setFormError(null);
    const { input, errors: found } = validateNewSession(fields);
    setErrors(found);
    if (!input) return;
    setBusy(true);
    try {
      const session = await api.sessionNew(input);
      setFields(EMPTY);
      onCreated(session);
    } catch (err) {
      setFormError(toApiError(err));
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (k: keyof Fields) =>
    errors[k] ? (
      <div className="field-error" role="alert" data-testid={`${k.replace('_', '-')}-error`} id={`nf-${k}-error`}>
        {errors[k]}
      </div>
    ) : null;

  return (
    <form className="new-session-form" onSubmit={submit} noValidate data-testid="new-session-form">
      <h2>{t('sessions.new')}</h2>
      <label className="field full">
        <span>
          {t('newSession.complaint')} <span className="required">*</span>
        </span>
        <textarea
          data-testid="new-complaint"
          value={fields.complaint}
          onChange={set('complaint')}
          rows={2}
          placeholder={t('newSession.complaintPlaceholder')}
          aria-invalid={!!errors.complaint}
          aria-describedby={errors.complaint ? 'nf-complaint-error' : undefined}
          autoFocus
        />
        {fieldError('complaint')}
      </label>
      <div className="field-grid">
        <label className="field">
          <span>{t('unit.customer')}</span>
          <input data-testid="new-customer" value={fields.customer} onChange={set('customer')} />
        </label>
        <label className="field">
          <span>{t('unit.technician')}</span>
          <input data-testid="new-technician" value={fields.technician} onChange={set('technician')} />
        </label>
        <label className="field">
          <span>{t('newSession.language')}</span>
          <select data-testid="new-language" value={fields.language} onChange={set('language')}>
            {LANGUAGES.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t('unit.makeModel')}</span>
          <input
            data-testid="new-make-model"
            value={fields.make_model}
            onChange={set('make_model')}
            placeholder="Winnebago View 24D"
          />
        </label>
        <label className="field">
          <span>{t('unit.vin')}</span>
          <input
            data-testid="new-vin"
            value={fields.vin}
            onChange={set('vin')}
            className="mono"
            maxLength={32}
            autoCapitalize="characters"
          />
        </label>
        <label className="field">
          <span>{t('unit.plate')}</span>
          <input data-testid="new-plate" value={fields.plate} onChange={set('plate')} className="mono" />
        </label>
        <label className="field">
          <span>{t('newSession.odometer')}</span>
          <input
            data-testid="new-odometer"
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            value={fields.odometer}
            onChange={set('odometer')}
            aria-invalid={!!errors.odometer}
          />
          {fieldError('odometer')}
        </label>
        <label className="field">
          <span>{t('unit.engineHours')}</span>
          <input
            data-testid="new-engine-hours"
            type="number"
            min={0}
            step={0.1}
            inputMode="decimal"
            value={fields.engine_hours}
            onChange={set('engine_hours')}
            aria-invalid={!!errors.engine_hours}
          />
          {fieldError('engine_hours')}
        </label>
      </div>
      <ErrorMessage error={formError} testId="new-session-error" />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={busy}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn primary" data-testid="create-session" disabled={busy}>
          {busy ? t('newSession.creating') : t('newSession.create')}
        </button>
      </div>
    </form>
  );
}
