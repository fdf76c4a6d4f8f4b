// Adding documents: drop .md / .markdown / .jsonl / .pdf files (or pick them),
// read them here (text, or a PDF's bytes as base64), send them in one
// knowledge_ingest, and show the import report beside the drop zone.

import { useId, useRef, useState, type DragEvent } from 'react';
import { api, type IngestReport } from '../api';
import { formatDocError, formatIngested, ingestSummary, isPdfFile, KNOWLEDGE_ACCEPT, partitionFiles, type Refused } from '../knowledge';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { t } from '../i18n';

/** A file's text (File.text where the platform has it, FileReader otherwise). */
export function readText(file: Blob): Promise<string> {
  if (typeof file.text === 'function') return file.text();
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result ?? ''));
    r.onerror = () => reject(r.error ?? new Error('could not read the file'));
    r.readAsText(file);
  });
}

/** A file's bytes as base64 (a PDF goes to the backend as bytes). */
export async function readBase64(file: Blob): Promise<string> {
  const buf =
    typeof file.arrayBuffer === 'function'
      ? await file.arrayBuffer()
      : await new Promise<ArrayBuffer>((resolve, reject) => {
          const r = new FileReader();
          r.onload = () => resolve(r.result as ArrayBuffer);
          r.onerror = () => reject(r.error ?? new Error('could not read the file'));
          r.readAsArrayBuffer(file);
        });
  const bytes = new Uint8Array(buf);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

type Phase = { kind: 'idle' } | { kind: 'reading'; files: number } | { kind: 'importing'; files: number };

export function KnowledgeIngest({ onImported }: { onImported: (sourceIds: string[]) => void }) {
  const [dragging, setDragging] = useState(false);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [report, setReport] = useState<{ report: IngestReport | null; refused: Refused[]; files: string[] } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const dragDepth = useRef(0);
  const fileInput = useRef<HTMLInputElement>(null);
  const id = useId();
  const busy = phase.kind !== 'idle';

  async function ingest(files: File[]) {
    if (busy || files.length === 0) return;
    const { send, refused } = partitionFiles(files);
    setError(null);
    if (send.length === 0) {
      setReport({ report: null, refused, files: files.map((f) => f.name) });
      return;
    }
    try {
      setPhase({ kind: 'reading', files: send.length });
      const payload = [];
      for (const f of send)
        payload.push(isPdfFile(f.name) ? { name: f.name, content_base64: await readBase64(f) } : { name: f.name, content: await readText(f) });
      setPhase({ kind: 'importing', files: send.length });
      const r = await api.knowledgeIngest(payload);
      setReport({ report: r, refused, files: files.map((f) => f.name) });
      if (r.imported.length > 0 || r.unchanged.length > 0) onImported([...r.imported, ...r.unchanged].map((s) => s.source_id));
    } catch (e) {
      setError(toApiError(e));
      setReport(refused.length > 0 ? { report: null, refused, files: files.map((f) => f.name) } : null);
    } finally {
      setPhase({ kind: 'idle' });
    }
  }

  function onDragEnter(e: DragEvent) {
    if (!Array.from(e.dataTransfer?.types ?? []).includes('Files')) return;
    e.preventDefault();
    dragDepth.current++;
    setDragging(true);
  }
  function onDragOver(e: DragEvent) {
    if (!Array.from(e.dataTransfer?.types ?? []).includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = busy ? 'none' : 'copy';
  }
  function onDragLeave() {
    dragDepth.current = Math.max(0, dragDepth.current - 1);
    if (dragDepth.current === 0) setDragging(false);
  }
  function onDrop(e: DragEvent) {
    e.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    void ingest(Array.from(e.dataTransfer?.files ?? []));
  }

  const status =
    phase.kind === 'reading'
      ? t('ingest.reading', { n: phase.files })
      : phase.kind === 'importing'
        ? t('ingest.importing', { n: phase.files })
        : '';

  return (
    <section className="card knowledge-ingest" aria-labelledby={`${id}-h`} data-testid="knowledge-ingest">
      <div className="card-head">
        <h3 id={`${id}-h`}>{t('ingest.title')}</h3>
      </div>
      <div className="ingest-grid">
        <div>
          <div
            className={`dropzone ingest-drop${dragging ? ' dragging' : ''}`}
            data-testid="knowledge-dropzone"
            data-dragging={dragging ? 'true' : 'false'}
            aria-busy={busy}
            aria-describedby={`${id}-hint`}
            onDragEnter={onDragEnter}
            onDragOver={onDragOver}
            onDragLeave={onDragLeave}
            onDrop={onDrop}
          >
            <p id={`${id}-hint`} className="drop-hint">
              {t('ingest.dropHint')}
              <br />
              <span className="muted small">{t('ingest.frontMatter')}</span>
            </p>
            <div className="drop-actions">
              <button
                type="button"
                className="btn primary"
                onClick={() => fileInput.current?.click()}
                disabled={busy}
                aria-busy={busy}
                data-testid="knowledge-choose"
              >
                {busy ? t('ingest.busy') : t('ingest.choose')}
              </button>
              <span className="muted small" role="status" aria-live="polite" data-testid="ingest-status">
                {status}
              </span>
              {busy && <progress className="ingest-progress" aria-label={status} />}
            </div>
            <input
              ref={fileInput}
              type="file"
              accept={KNOWLEDGE_ACCEPT}
              multiple
              hidden
              data-testid="knowledge-file-input"
              onChange={(e) => {
                const files = Array.from(e.target.files ?? []);
                e.target.value = '';
                void ingest(files);
              }}
            />
            {dragging && (
              <div className="drop-overlay" aria-hidden="true">
                {t('ingest.dropToImport')}
              </div>
            )}
          </div>
          <ErrorMessage error={error} testId="ingest-error" />
        </div>
        <div className="ingest-report" aria-live="polite" data-testid="ingest-report-region">
          {report ? (
            <IngestReportView report={report.report} refused={report.refused} files={report.files} />
          ) : (
            <p className="muted small">{t('ingest.reportHint')}</p>
          )}
        </div>
      </div>
    </section>
  );
}

function IngestReportView({ report, refused, files }: { report: IngestReport | null; refused: Refused[]; files: string[] }) {
  const empty: IngestReport = { imported: [], unchanged: [], skipped: [], chunks: 0 };
  const r = report ?? empty;
  const hasProblems = r.skipped.length + refused.length > 0;
  return (
    <div data-testid="ingest-report" data-problems={hasProblems ? 'true' : 'false'}>
      <h4>
        {t('ingest.report')} <span className="muted small">({t('ingest.files', { n: files.length })})</span>
      </h4>
      <p className={hasProblems ? 'warn-text' : 'ok-text'} data-testid="ingest-summary">
        {ingestSummary(r, refused)}
      </p>
      {r.imported.length > 0 && (
        <>
          <h5>{t('ingest.imported')}</h5>
          <ul className="report-list">
            {r.imported.map((s) => (
              <li key={`${s.source_id}@${s.version}`} data-testid="ingest-imported" data-source-id={s.source_id}>
                <span className="badge ok">{t('ingest.new')}</span> <code>{formatIngested(s)}</code> <span className="muted small">{t('ingest.from', { origin: s.origin })}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {r.unchanged.length > 0 && (
        <>
          <h5>{t('ingest.unchanged')}</h5>
          <ul className="report-list">
            {r.unchanged.map((s) => (
              <li key={`${s.source_id}@${s.version}`} data-testid="ingest-unchanged" data-source-id={s.source_id}>
                <code>{formatIngested(s)}</code> <span className="muted small">{t('ingest.from', { origin: s.origin })}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {(r.skipped.length > 0 || refused.length > 0) && (
        <>
          <h5>{t('ingest.skipped')}</h5>
          <ul className="report-list problems" role="list">
            {r.skipped.map((e, i) => (
              <li
                key={`s${i}`}
                className="error-text"
                data-testid="ingest-skipped"
                data-file={e.file}
                data-line={e.line}
                data-field={e.field ?? ''}
              >
                {formatDocError(e)}
              </li>
            ))}
            {refused.map((f, i) => (
              <li key={`r${i}`} className="error-text" data-testid="ingest-refused" data-file={f.file}>
                {t('ingest.notSent', { file: f.file, reason: f.reason })}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
