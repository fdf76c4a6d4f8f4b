// The manager export (Alt+4): reports of a date range (and a technician) as
// one ZIP of a CSV and the PDFs, with progress while the core builds it.

import { useEffect, useId, useRef, useState } from 'react';
import { api, type ReportsExportStatus } from '../api';
import { downloadBlob } from '../files';
import { t } from '../i18n';
import { defaultRange, exportPayload, presetRange, progressFraction, type FieldErrors } from '../managerExport';
import { fetchDownload, isTauri, toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';

export const EXPORT_POLL_MS = 400;

export function ExportWorkspace() {
  const id = useId();
  const [range, setRange] = useState(defaultRange);
  const [technician, setTechnician] = useState('');
  const [technicians, setTechnicians] = useState<string[]>([]);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [startError, setStartError] = useState<ApiError | null>(null);
  // An object per start, so that starting again polls again even if a backend reused an id.
  const [job, setJob] = useState<{ id: string } | null>(null);
  const [status, setStatus] = useState<ReportsExportStatus | null>(null);
  const [statusError, setStatusError] = useState<ApiError | null>(null);
  const [starting, setStarting] = useState(false);
  const [downloadError, setDownloadError] = useState<ApiError | null>(null);

  // Technicians named in sessions, for the picker (typing any name works too).
  useEffect(() => {
    let alive = true;
    api.sessionList().then(
      (r) => {
        if (!alive) return;
        const names = Array.from(new Set(r.sessions.map((s) => s.technician?.trim()).filter((n): n is string => !!n)));
        setTechnicians(names.sort((a, b) => a.localeCompare(b)));
      },
      () => {
        // the picker stays empty; the field still takes a name
      },
    );
    return () => {
      alive = false;
    };
  }, []);

  // Poll the job while it runs.
  const jobRef = useRef(job);
  jobRef.current = job;
  useEffect(() => {
    if (!job) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () => {
      api.reportsExportStatus(job.id).then(
        (s) => {
          if (!alive || jobRef.current !== job) return;
          setStatus(s);
          setStatusError(null);
          if (s.state === 'running') timer = setTimeout(poll, EXPORT_POLL_MS);
        },
        (e) => {
          if (!alive) return;
          setStatusError(toApiError(e));
          timer = setTimeout(poll, EXPORT_POLL_MS * 5);
        },
      );
    };
    poll();
    return () => {
      alive = false;
      if (timer) clearTimeout(timer);
    };
  }, [job]);

  async function start() {
    const p = exportPayload({ ...range, technician });
    if (!p.ok) {
      setFieldErrors(p.errors);
      return;
    }
    setFieldErrors({});
    setStartError(null);
    setDownloadError(null);
    setStarting(true);
    try {
      const r = await api.reportsExportStart(p.payload);
      setStatus({ job_id: r.job_id, state: 'running', done: 0, total: 0, file_name: null, path: null, download_url: null, error: null });
      setStatusError(null);
      setJob({ id: r.job_id });
    } catch (e) {
      setStartError(toApiError(e));
    } finally {
      setStarting(false);
    }
  }

  async function download(url: string, fileName: string) {
    setDownloadError(null);
    try {
      downloadBlob(await fetchDownload(url), fileName);
    } catch (e) {
      setDownloadError(toApiError(e));
    }
  }

  const running = status?.state === 'running';
  const fraction = status ? progressFraction(status) : null;
  const fileName = status?.file_name ?? 'reports.zip';

  return (
    <div className="export-workspace" data-testid="export-workspace">
      <h2>{t('export.title')}</h2>
      <p className="muted">{t('export.intro')}</p>
      <form
        className="export-form card"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
        noValidate
      >
        <div className="export-presets" role="group" aria-label={t('export.presets')}>
          {(['this_month', 'last_month', 'last_7'] as const).map((p) => (
            <button key={p} type="button" className="btn link" onClick={() => setRange(presetRange(p))} data-testid={`export-preset-${p}`}>
              {t(`export.preset.${p}`)}
            </button>
          ))}
        </div>
        <div className="export-fields">
          <div className="field">
            <label htmlFor={`${id}-from`}>{t('export.from')}</label>
            <input
              id={`${id}-from`}
              type="date"
              value={range.from}
              onChange={(e) => setRange((r) => ({ ...r, from: e.target.value }))}
              aria-invalid={fieldErrors.from ? true : undefined}
              aria-describedby={fieldErrors.from ? `${id}-from-err` : undefined}
              data-testid="export-from"
            />
            {fieldErrors.from && (
              <div id={`${id}-from-err`} className="field-error" role="alert" data-testid="export-from-error">
                {fieldErrors.from}
              </div>
            )}
          </div>
          <div className="field">
            <label htmlFor={`${id}-to`}>{t('export.to')}</label>
            <input
              id={`${id}-to`}
              type="date"
              value={range.to}
              onChange={(e) => setRange((r) => ({ ...r, to: e.target.value }))}
              aria-invalid={fieldErrors.to ? true : undefined}
              aria-describedby={fieldErrors.to ? `${id}-to-err` : undefined}
              data-testid="export-to"
            />
            {fieldErrors.to && (
              <div id={`${id}-to-err`} className="field-error" role="alert" data-testid="export-to-error">
                {fieldErrors.to}
              </div>
            )}
          </div>
          <div className="field">
            <label htmlFor={`${id}-tech`}>{t('export.technician')}</label>
            <input
              id={`${id}-tech`}
              type="text"
              list={`${id}-techs`}
              value={technician}
              placeholder={t('export.allTechnicians')}
              onChange={(e) => setTechnician(e.target.value)}
              data-testid="export-technician"
            />
            <datalist id={`${id}-techs`}>
              {technicians.map((n) => (
                <option key={n} value={n} />
              ))}
            </datalist>
          </div>
          <div className="field">
            <span className="field-label" id={`${id}-format`}>
              {t('export.format')}
            </span>
            <span className="export-format" aria-labelledby={`${id}-format`} data-testid="export-format">
              {t('export.formatZip')}
            </span>
          </div>
        </div>
        <div className="export-actions">
          <button type="submit" className="btn primary" disabled={starting || running} aria-busy={starting || running} data-testid="export-start">
            {starting || running ? t('export.running') : t('export.start')}
          </button>
        </div>
        <ErrorMessage error={startError} testId="export-start-error" />
      </form>

      {/* Reserved height: the result area does not jump as progress turns into a link. */}
      <section className="export-result card" aria-label={t('export.result')} aria-live="polite" data-testid="export-result" data-state={status?.state ?? 'idle'}>
        {!status ? (
          <p className="muted">{t('export.idle')}</p>
        ) : (
          <>
            <div className="export-progress">
              <progress
                max={1}
                value={fraction ?? undefined}
                aria-label={t('export.progress')}
                aria-valuetext={status.total ? t('export.progressText', { done: status.done, total: status.total }) : undefined}
                data-testid="export-progress"
              />
              <span className="muted small" data-testid="export-count">
                {status.total ? t('export.progressText', { done: status.done, total: status.total }) : status.state === 'running' ? t('export.preparing') : ''}
              </span>
            </div>
            {status.state === 'done' && (
              <div className="export-done" data-testid="export-done">
                <strong>{t('export.done')}</strong>{' '}
                {status.download_url && !isTauri() ? (
                  <a
                    href={status.download_url}
                    download={fileName}
                    className="btn primary"
                    data-testid="export-download"
                    onClick={(e) => {
                      // A plain link cannot send the CSRF token (nor a bearer
                      // token), which the server requires: fetch it instead.
                      e.preventDefault();
                      void download(status.download_url!, fileName);
                    }}
                  >
                    {t('export.download', { file: fileName })}
                  </a>
                ) : null}
                {status.path && (
                  <p className="small">
                    {t('export.savedTo')} <code data-testid="export-path">{status.path}</code>
                  </p>
                )}
              </div>
            )}
            {status.state === 'failed' && (
              <div className="error-box" role="alert" data-testid="export-failed">
                {t('export.failed')}: {status.error ?? '—'}
              </div>
            )}
          </>
        )}
        <ErrorMessage error={statusError} testId="export-status-error" />
        <ErrorMessage error={downloadError} testId="export-download-error" />
      </section>
    </div>
  );
}
