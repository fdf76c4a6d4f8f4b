// The repair order's header in the session detail: RO number, customer and
// contact, the unit (with the maker its VIN names), an edit form whose every
// change the backend records with who and when, that change log, and the
// unit's other visits.
import { useId, useState, type FormEvent } from 'react';
import { api, type Session, type SessionEdit } from '../api';
import { changeFieldLabel, changeValue } from '../changeLog';
import { formatTimestamp } from '../files';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage, lockedProps, ReadOnlyNote } from './common';
import { checkHeader, HeaderFieldGrid, headerOf, type HeaderErrors, type HeaderFields } from './headerFields';
import { t } from '../i18n';

export function HeaderCard({
  session: s,
  edits,
  visits,
  readOnly,
  onSaved,
}: {
  session: Session;
  edits: SessionEdit[];
  visits: Session[];
  /** Finalized: nothing can be changed until it is reopened. */
  readOnly: boolean;
  onSaved: () => void;
}) {
  const [open, setEditing] = useState<HeaderFields | null>(null);
  // A form left open when the RO is finalized elsewhere closes.
  const editing = readOnly ? null : open;
  const noteId = useId();
  const [editedBy, setEditedBy] = useState('');
  const [errors, setErrors] = useState<HeaderErrors>({});
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const u = s.unit;

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!editing || busy) return;
    const { values, errors: found } = checkHeader(editing);
    setErrors(found);
    if (!values) return;
    setBusy(true);
    setSaveError(null);
    try {
      await api.sessionUpdate({ ...values, session_id: s.id, complaint: s.complaint, edited_by: editedBy });
      setEditing(null);
      onSaved();
    } catch (err) {
      setSaveError(toApiError(err));
    } finally {
      setBusy(false);
    }
  }

  const odometer =
    u.odometer != null ? `${u.odometer.toLocaleString()} ${u.odometer_unit ?? 'mi'}` : '—';
  return (
    <section className="card unit" aria-label={t('detail.unitAndCustomer')} data-testid="ro-header">
      <div className="card-head">
        <h3>
          {t('unit.ro')} <span className="mono" data-testid="detail-ro">{s.ro_number}</span>
        </h3>
        {!editing && (
          <button type="button" className="btn" data-testid="edit-header" onClick={() => setEditing(headerOf(s))} {...lockedProps(readOnly, noteId)}>
            {t('header.edit')}
          </button>
        )}
      </div>
      {readOnly && <ReadOnlyNote id={noteId} testId="header-read-only" />}
      {editing ? (
        <form onSubmit={save} noValidate data-testid="header-form">
          <HeaderFieldGrid
            prefix="edit"
            fields={editing}
            errors={errors}
            onChange={(k, v) => setEditing((f) => (f ? { ...f, [k]: v } : f))}
          />
          <label className="field">
            <span>{t('header.editedBy')}</span>
            <input data-testid="edit-by" value={editedBy} onChange={(e) => setEditedBy(e.target.value)} />
          </label>
          <ErrorMessage error={saveError} testId="header-error" />
          <div className="form-actions">
            <button type="button" className="btn" onClick={() => setEditing(null)} disabled={busy}>
              {t('common.cancel')}
            </button>
            <button type="submit" className="btn primary" data-testid="save-header" disabled={busy}>
              {busy ? t('common.saving') : t('header.save')}
            </button>
          </div>
        </form>
      ) : (
        <dl className="facts grid" data-testid="unit-info">
          <dt>{t('unit.customer')}</dt>
          <dd data-testid="detail-customer">{s.customer ?? '—'}</dd>
          <dt>{t('unit.phone')}</dt>
          <dd data-testid="detail-phone">{s.customer_phone ?? '—'}</dd>
          <dt>{t('unit.email')}</dt>
          <dd data-testid="detail-email">{s.customer_email ?? '—'}</dd>
          <dt>{t('unit.technician')}</dt>
          <dd data-testid="detail-technician">{s.technician ?? '—'}</dd>
          <dt>{t('unit.makeModel')}</dt>
          <dd data-testid="detail-make-model">{u.make_model ?? '—'}</dd>
          <dt>{t('unit.year')}</dt>
          <dd data-testid="detail-year">{u.model_year ?? '—'}</dd>
          <dt>{t('unit.vin')}</dt>
          <dd className="mono" data-testid="detail-vin">
            {u.vin ?? '—'}
          </dd>
          <dt>{t('unit.maker')}</dt>
          <dd data-testid="detail-maker">{u.manufacturer ?? '—'}</dd>
          <dt>{t('unit.plate')}</dt>
          <dd className="mono" data-testid="detail-plate">
            {u.plate ?? '—'}
          </dd>
          <dt>{t('unit.odometer')}</dt>
          <dd data-testid="detail-odometer">{odometer}</dd>
          <dt>{t('unit.engineHours')}</dt>
          <dd data-testid="detail-engine-hours">{u.engine_hours != null ? t('unit.hours', { n: u.engine_hours }) : '—'}</dd>
        </dl>
      )}
      {edits.length > 0 && (
        <details className="header-changes" data-testid="header-changes">
          <summary>
            {t('header.changes')} ({edits.length})
          </summary>
          <ul>
            {edits.map((e, i) => (
              <li key={i} data-testid="header-change" data-field={e.field}>
                {t('header.changeLine', {
                  when: formatTimestamp(e.edited_at),
                  who: e.edited_by ?? t('header.someone'),
                  field: changeFieldLabel(e.field),
                  from: changeValue(e.old_value),
                  to: changeValue(e.new_value),
                })}
              </li>
            ))}
          </ul>
        </details>
      )}
      <div className="other-visits" data-testid="other-visits">
        <h4>{t('header.otherVisits')}</h4>
        {visits.length === 0 ? (
          <p className="muted small">{t('header.noOtherVisits')}</p>
        ) : (
          <ul>
            {visits.map((v) => (
              <li key={v.id} data-testid="other-visit">
                <span className="mono">{v.ro_number}</span> · {formatTimestamp(v.created_at)} · {v.complaint}
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
