import { useCallback, useEffect, useState } from 'react';
import { api, LANGUAGES, type Artifact, type BlobStatus, type SessionDetail as Detail, type VerifyReport } from '../api';
import { downloadBlob, formatTimestamp, slug } from '../files';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage, StatusBadge } from './common';
import { DiagnosisSection } from './Diagnosis';
import { PhotosSection } from './Photos';

type DeleteStep =
  | { step: 'idle' }
  | { step: 'confirm' }
  | { step: 'busy'; purge: boolean }
  | { step: 'needs-purge'; error: ApiError }
  | { step: 'error'; error: ApiError };

export function SessionDetailView({
  sessionId,
  onChanged,
  onDeleted,
}: {
  sessionId: string;
  /** Something the list shows changed (photo count, updated time). */
  onChanged: () => void;
  onDeleted: (message: string) => void;
}) {
  const [detail, setDetail] = useState<Detail | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [version, setVersion] = useState(0);
  const [verify, setVerify] = useState<VerifyReport | null>(null);
  const [verifyBusy, setVerifyBusy] = useState(false);
  const [verifyError, setVerifyError] = useState<ApiError | null>(null);
  const [exportError, setExportError] = useState<ApiError | null>(null);
  const [exportNote, setExportNote] = useState<string | null>(null);
  const [del, setDel] = useState<DeleteStep>({ step: 'idle' });

  useEffect(() => {
    let alive = true;
    api.sessionShow(sessionId).then(
      (d) => {
        if (!alive) return;
        setDetail(d);
        setLoadError(null);
      },
      (e) => alive && setLoadError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, [sessionId, version]);

  const onUploaded = useCallback(
    (_a: Artifact) => {
      setVersion((v) => v + 1);
      onChanged();
    },
    [onChanged],
  );

  // A chat turn changes the status, the turn list and maybe the photos.
  const onTurn = useCallback(() => {
    setVersion((v) => v + 1);
    onChanged();
  }, [onChanged]);

  async function runVerify() {
    setVerifyBusy(true);
    setVerifyError(null);
    try {
      setVerify(await api.artifactVerify(sessionId));
    } catch (e) {
      setVerifyError(toApiError(e));
    } finally {
      setVerifyBusy(false);
    }
  }

  async function runExport() {
    setExportError(null);
    setExportNote(null);
    try {
      const data = await api.sessionExport(sessionId);
      const name = `servicedesk-session-${slug(data.session.complaint)}-${sessionId.slice(0, 8)}.json`;
      downloadBlob(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }), name);
      setExportNote(`Exported as ${name}`);
    } catch (e) {
      setExportError(toApiError(e));
    }
  }

  async function runDelete(purge: boolean) {
    setDel({ step: 'busy', purge });
    try {
      const r = await api.sessionDelete(sessionId, purge);
      onDeleted(
        purge
          ? `Session deleted with its photos (${r.purged_artifacts} stored file${r.purged_artifacts === 1 ? '' : 's'} removed).`
          : 'Session deleted.',
      );
    } catch (e) {
      const err = toApiError(e);
      setDel(err.code === 'has_artifacts' ? { step: 'needs-purge', error: err } : { step: 'error', error: err });
    }
  }

  if (loadError && !detail) {
    return (
      <div className="detail" data-testid="session-detail">
        <ErrorMessage error={loadError} testId="detail-error" />
      </div>
    );
  }
  if (!detail) {
    return (
      <div className="detail loading" data-testid="session-detail-loading">
        Loading session…
      </div>
    );
  }

  const s = detail.session;
  const u = s.unit;
  const verifyStatus: Record<string, BlobStatus> = {};
  for (const r of verify?.results ?? []) verifyStatus[r.artifact_id] = r.status;
  const languageLabel = LANGUAGES.find((l) => l.value === s.language)?.label ?? s.language;

  return (
    <div className="detail" data-testid="session-detail" data-session-id={s.id}>
      <div className="detail-head">
        <div className="detail-title">
          <h2 data-testid="detail-complaint">{s.complaint}</h2>
          <div className="detail-sub">
            <StatusBadge status={s.status} />
            <span className="chip" data-testid="detail-language" title="Conversation language">
              {languageLabel}
            </span>
            <span className="muted">Opened {formatTimestamp(s.created_at)}</span>
            <span className="muted">· Updated {formatTimestamp(s.updated_at)}</span>
          </div>
        </div>
        <div className="detail-actions">
          <button type="button" className="btn" data-testid="verify-button" onClick={runVerify} disabled={verifyBusy}>
            {verifyBusy ? 'Verifying…' : 'Verify photos'}
          </button>
          <button type="button" className="btn" data-testid="export-button" onClick={runExport}>
            Export
          </button>
          <button
            type="button"
            className="btn danger"
            data-testid="delete-button"
            onClick={() => setDel({ step: 'confirm' })}
            disabled={del.step === 'busy'}
          >
            Delete
          </button>
        </div>
      </div>

      <ErrorMessage error={loadError} testId="detail-error" />
      <ErrorMessage error={exportError} testId="export-error" />
      {exportNote && (
        <div className="note" data-testid="export-note">
          {exportNote}
        </div>
      )}

      {del.step !== 'idle' && (
        <div className="confirm-box" role="alertdialog" aria-label="Delete session" data-testid="delete-confirm">
          {del.step === 'confirm' && (
            <>
              <p>
                Delete this session? Its record and conversation are removed for good. This cannot be undone.
              </p>
              <div className="form-actions">
                <button type="button" className="btn" onClick={() => setDel({ step: 'idle' })}>
                  Cancel
                </button>
                <button type="button" className="btn danger" data-testid="delete-confirm-button" onClick={() => runDelete(false)}>
                  Delete session
                </button>
              </div>
            </>
          )}
          {del.step === 'busy' && <p>Deleting…</p>}
          {del.step === 'needs-purge' && (
            <>
              <ErrorMessage error={del.error} testId="delete-error" />
              <p>
                This session has {s.artifact_count} photo{s.artifact_count === 1 ? '' : 's'}/file
                {s.artifact_count === 1 ? '' : 's'}. Deleting it with its photos removes them from this computer too.
              </p>
              <div className="form-actions">
                <button type="button" className="btn" onClick={() => setDel({ step: 'idle' })}>
                  Keep session
                </button>
                <button type="button" className="btn danger" data-testid="delete-purge-button" onClick={() => runDelete(true)}>
                  Delete with photos (purge)
                </button>
              </div>
            </>
          )}
          {del.step === 'error' && (
            <>
              <ErrorMessage error={del.error} testId="delete-error" />
              <div className="form-actions">
                <button type="button" className="btn" onClick={() => setDel({ step: 'idle' })}>
                  Close
                </button>
              </div>
            </>
          )}
        </div>
      )}

      {(verify || verifyError) && (
        <section className="card verify" data-testid="verify-results">
          <ErrorMessage error={verifyError} testId="verify-error" />
          {verify && (
            <>
              <div className="card-head">
                <h3>Photo check</h3>
                <span
                  className={`badge ${verify.ok === verify.checked ? 'ok' : 'bad'}`}
                  data-testid="verify-summary"
                  data-ok={verify.ok}
                  data-checked={verify.checked}
                >
                  {verify.checked === 0
                    ? 'No files to check'
                    : verify.ok === verify.checked
                      ? `All ${verify.checked} file${verify.checked === 1 ? '' : 's'} OK`
                      : `${verify.checked - verify.ok} of ${verify.checked} damaged`}
                </span>
                <button type="button" className="btn link" onClick={() => setVerify(null)}>
                  Hide
                </button>
              </div>
              <ul className="verify-list">
                {verify.results.map((r) => (
                  <li key={r.artifact_id} data-testid="verify-result" data-status={r.status} data-file-name={r.file_name}>
                    <span className={`badge integrity-${r.status}`}>{r.status === 'ok' ? 'OK' : r.status === 'missing' ? 'Missing' : 'Corrupt'}</span>
                    <span className="verify-name">{r.file_name}</span>
                    <code className="muted small" title={r.sha256}>
                      {r.sha256.slice(0, 12)}
                    </code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}

      <section className="card unit" aria-label="Unit and customer">
        <dl className="facts grid" data-testid="unit-info">
          <dt>Customer</dt>
          <dd data-testid="detail-customer">{s.customer ?? '—'}</dd>
          <dt>Technician</dt>
          <dd data-testid="detail-technician">{s.technician ?? '—'}</dd>
          <dt>Make / model</dt>
          <dd data-testid="detail-make-model">{u.make_model ?? '—'}</dd>
          <dt>VIN</dt>
          <dd className="mono" data-testid="detail-vin">
            {u.vin ?? '—'}
          </dd>
          <dt>Plate</dt>
          <dd className="mono" data-testid="detail-plate">
            {u.plate ?? '—'}
          </dd>
          <dt>Odometer</dt>
          <dd data-testid="detail-odometer">{u.odometer != null ? `${u.odometer.toLocaleString()} mi` : '—'}</dd>
          <dt>Engine hours</dt>
          <dd data-testid="detail-engine-hours">{u.engine_hours != null ? `${u.engine_hours} h` : '—'}</dd>
        </dl>
      </section>

      <DiagnosisSection sessionId={s.id} turns={detail.turns} artifacts={detail.artifacts} onTurn={onTurn} />

      <PhotosSection sessionId={s.id} artifacts={detail.artifacts} verifyStatus={verifyStatus} onUploaded={onUploaded} />

    </div>
  );
}
