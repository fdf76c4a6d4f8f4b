import { useCallback, useEffect, useState } from 'react';
import { api, LANGUAGES, type Artifact, type BlobStatus, type SessionDetail as Detail, type VerifyReport } from '../api';
import { downloadBlob, formatTimestamp, slug } from '../files';
import { toApiError, type ApiError } from '../transport';
import { artifactProblemLabel, ErrorMessage, StatusBadge } from './common';
import { DiagnosisSection } from './Diagnosis';
import { PhotosSection } from './Photos';
import { HeaderCard } from './HeaderCard';
import { ComplaintLines } from './ComplaintLines';
import { t } from '../i18n';

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
  onBack,
}: {
  sessionId: string;
  /** Back to the session list (shown where the list and the session do not fit side by side). */
  onBack?: () => void;
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
      setExportNote(t('detail.exportedAs', { name }));
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
          ? t('detail.deletedPurged', { n: r.purged_artifacts })
          : t('detail.deleted'),
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
        {t('detail.loading')}
      </div>
    );
  }

  const s = detail.session;
  // A finalized RO is read-only until it is reopened; the backend refuses every change too.
  const finalized = s.status === 'finalized';
  const verifyStatus: Record<string, BlobStatus> = {};
  for (const r of verify?.results ?? []) verifyStatus[r.artifact_id] = r.status;
  const languageLabel = LANGUAGES.find((l) => l.value === s.language)?.label ?? s.language;

  return (
    <div className="detail" data-testid="session-detail" data-session-id={s.id}>
      <div className="detail-head">
        {onBack && (
          <button type="button" className="btn back-to-list" onClick={onBack} data-testid="back-to-list">
            <span aria-hidden="true">←</span> {t('session.backToList')}
          </button>
        )}
        <div className="detail-title">
          <h2 data-testid="detail-complaint">{s.complaint}</h2>
          <div className="detail-sub">
            <StatusBadge status={s.status} />
            <span className="chip" data-testid="detail-language" title={t('detail.languageTitle')}>
              {languageLabel}
            </span>
            <span className="muted">{t('detail.opened', { when: formatTimestamp(s.created_at) })}</span>
            <span className="muted">· {t('sessions.updated', { when: formatTimestamp(s.updated_at) })}</span>
          </div>
        </div>
        <div className="detail-actions">
          <button type="button" className="btn" data-testid="verify-button" onClick={runVerify} disabled={verifyBusy}>
            {verifyBusy ? t('detail.verifying') : t('detail.verify')}
          </button>
          <button type="button" className="btn" data-testid="export-button" onClick={runExport}>
            {t('detail.export')}
          </button>
          <button
            type="button"
            className="btn danger"
            data-testid="delete-button"
            onClick={() => setDel({ step: 'confirm' })}
            disabled={del.step === 'busy'}
          >
            {t('detail.delete')}
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
        <div className="confirm-box" role="alertdialog" aria-label={t('detail.deleteSession')} data-testid="delete-confirm">
          {del.step === 'confirm' && (
            <>
              <p>
                {t('detail.deleteConfirm')}
              </p>
              <div className="form-actions">
                <button type="button" className="btn" onClick={() => setDel({ step: 'idle' })}>
                  {t('common.cancel')}
                </button>
                <button type="button" className="btn danger" data-testid="delete-confirm-button" onClick={() => runDelete(false)}>
                  {t('detail.deleteSession')}
                </button>
              </div>
            </>
          )}
          {del.step === 'busy' && <p>{t('detail.deleting')}</p>}
          {del.step === 'needs-purge' && (
            <>
              <ErrorMessage error={del.error} testId="delete-error" />
              <p>
                {t('detail.hasPhotos', { n: s.artifact_count })}
              </p>
              <div className="form-actions">
                <button type="button" className="btn" onClick={() => setDel({ step: 'idle' })}>
                  {t('detail.keep')}
                </button>
                <button type="button" className="btn danger" data-testid="delete-purge-button" onClick={() => runDelete(true)}>
                  {t('detail.purge')}
                </button>
              </div>
            </>
          )}
          {del.step === 'error' && (
            <>
              <ErrorMessage error={del.error} testId="delete-error" />
              <div className="form-actions">
                <button type="button" className="btn" onClick={() => setDel({ step: 'idle' })}>
                  {t('common.close')}
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
                <h3>{t('detail.photoCheck')}</h3>
                <span
                  className={`badge ${verify.ok === verify.checked ? 'ok' : 'bad'}`}
                  data-testid="verify-summary"
                  data-ok={verify.ok}
                  data-checked={verify.checked}
                >
                  {verify.checked === 0
                    ? t('detail.noFiles')
                    : verify.ok === verify.checked
                      ? t('detail.allOk', { n: verify.checked })
                      : t('detail.damaged', { bad: verify.checked - verify.ok, n: verify.checked })}
                </span>
                <button type="button" className="btn link" onClick={() => setVerify(null)}>
                  {t('common.hide')}
                </button>
              </div>
              <ul className="verify-list">
                {verify.results.map((r) => (
                  <li key={r.artifact_id} data-testid="verify-result" data-status={r.status} data-file-name={r.file_name}>
                    <span className={`badge integrity-${r.status}`}>{r.status === 'ok' ? t('integrity.ok') : artifactProblemLabel(r.status)}</span>
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

      <DiagnosisSection
        sessionId={s.id}
        turns={detail.turns}
        artifacts={detail.artifacts}
        onTurn={onTurn}
        unit={
          <>
            <HeaderCard session={s} edits={detail.edits} visits={detail.earlier_visits} readOnly={finalized} onSaved={onTurn} />
            <ComplaintLines sessionId={s.id} refreshKey={s.updated_at} readOnly={finalized} />
          </>
        }
        photos={<PhotosSection sessionId={s.id} artifacts={detail.artifacts} verifyStatus={verifyStatus} readOnly={finalized} onUploaded={onUploaded} />}
      />
    </div>
  );
}
