import { useState, type FormEvent } from 'react';
import { api, LANGUAGES, type Session, type SessionNewInput } from '../api';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { checkHeader, EMPTY_HEADER, HeaderFieldGrid, type HeaderErrors, type HeaderFields } from './headerFields';
import { t } from '../i18n';

interface Fields extends HeaderFields {
  complaint: string;
  language: string;
}

const EMPTY: Fields = { ...EMPTY_HEADER, complaint: '', language: 'en' };

type FieldErrors = HeaderErrors & { complaint?: string };

/** Client-side checks; the backend still has the final word. */
export function validateNewSession(f: Fields): { input?: SessionNewInput; errors: FieldErrors } {
  const { values, errors } = checkHeader(f);
  const all: FieldErrors = { ...errors };
  if (f.complaint.trim() === '') all.complaint = t('newSession.complaintRequired');
  if (!values || all.complaint) return { errors: all };
  return { errors: all, input: { ...values, complaint: f.complaint.trim(), language: f.language } };
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

  const change = (k: keyof Fields, value: string) => {
    setFields((f) => ({ ...f, [k]: value }));
    if (k in errors) setErrors((er) => ({ ...er, [k]: undefined }));
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

  const fieldError = (k: 'complaint') =>
    errors[k] ? (
      <div className="field-error" role="alert" data-testid={`${k}-error`} id={`nf-${k}-error`}>
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
          onChange={(e) => change('complaint', e.target.value)}
          rows={2}
          placeholder={t('newSession.complaintPlaceholder')}
          aria-invalid={!!errors.complaint}
          aria-describedby={errors.complaint ? 'nf-complaint-error' : undefined}
          autoFocus
        />
        {fieldError('complaint')}
      </label>
      <label className="field">
        <span>{t('newSession.language')}</span>
        <select data-testid="new-language" value={fields.language} onChange={(e) => change('language', e.target.value)}>
          {LANGUAGES.map((l) => (
            <option key={l.value} value={l.value}>
              {l.label}
            </option>
          ))}
        </select>
      </label>
      <HeaderFieldGrid prefix="new" fields={fields} errors={errors} onChange={change} />
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
