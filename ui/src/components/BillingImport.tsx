// Importing billing files: drop (or pick) a rules file (.json, a JSON array)
// or an orders file (.jsonl, one order a line); each goes to its import
// command and its report is shown beside the drop zone.

import { useId, useRef, useState, type DragEvent } from 'react';
import { api, type BillingImportReport } from '../api';
import { BILLING_ACCEPT, billingFileKind, formatSkipped, importedLabel, importSummary, MAX_BILLING_FILE_BYTES, type BillingFileKind } from '../billing';
import { toApiError, type ApiError } from '../transport';
import { readText } from './KnowledgeIngest';
import { t } from '../i18n';
import { errorAdvice } from '../errors';
import { ErrorCodeDetails } from './common';

interface FileOutcome {
  file: string;
  kind: BillingFileKind | null;
  report?: BillingImportReport;
  error?: ApiError;
  refused?: string;
}

export function BillingImport({ onImported }: { onImported: (kind: BillingFileKind, keys: string[]) => void }) {
  const [dragging, setDragging] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [outcomes, setOutcomes] = useState<FileOutcome[] | null>(null);
  const dragDepth = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  async function importFiles(files: File[]) {
    if (busy || files.length === 0) return;
    const out: FileOutcome[] = [];
    for (const [i, f] of files.entries()) {
      const kind = billingFileKind(f.name);
      if (!kind) {
        out.push({ file: f.name, kind, refused: t('billingImport.notFile') });
        continue;
      }
      if (f.size > MAX_BILLING_FILE_BYTES) {
        out.push({ file: f.name, kind, refused: t('knowledge.tooLarge', { mib: MAX_BILLING_FILE_BYTES / 1024 / 1024 }) });
        continue;
      }
      setBusy(`Importing ${f.name} (${i + 1} of ${files.length})…`);
      try {
        const text = await readText(f);
        const report = kind === 'rules' ? await api.billingRulesImport(text, f.name) : await api.billingOrdersImport(text, f.name);
        out.push({ file: f.name, kind, report });
        onImported(kind, report.imported.map((x) => x.key));
      } catch (e) {
        out.push({ file: f.name, kind, error: toApiError(e) });
      }
    }
    setOutcomes(out);
    setBusy(null);
  }

  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');

  return (
    <section className="card billing-import" aria-labelledby={`${id}-h`} data-testid="billing-import">
      <div className="card-head">
        <h3 id={`${id}-h`}>{t('billingImport.title')}</h3>
      </div>
      <div className="ingest-grid">
        <div
          className={`dropzone ingest-drop${dragging ? ' dragging' : ''}`}
          data-testid="billing-dropzone"
          data-dragging={dragging ? 'true' : 'false'}
          aria-busy={!!busy}
          aria-describedby={`${id}-hint`}
          onDragEnter={(e) => {
            if (!hasFiles(e)) return;
            e.preventDefault();
            dragDepth.current++;
            setDragging(true);
          }}
          onDragOver={(e) => {
            if (!hasFiles(e)) return;
            e.preventDefault();
            e.dataTransfer.dropEffect = busy ? 'none' : 'copy';
          }}
          onDragLeave={() => {
            dragDepth.current = Math.max(0, dragDepth.current - 1);
            if (dragDepth.current === 0) setDragging(false);
          }}
          onDrop={(e) => {
            e.preventDefault();
            dragDepth.current = 0;
            setDragging(false);
            void importFiles(Array.from(e.dataTransfer?.files ?? []));
          }}
        >
          <p id={`${id}-hint`} className="drop-hint">
            {t('billingImport.dropHint')}
            <br />
            <span className="muted small">{t('billingImport.appendOnly')}</span>
          </p>
          <div className="drop-actions">
            <button type="button" className="btn primary" onClick={() => input.current?.click()} disabled={!!busy} aria-busy={!!busy} data-testid="billing-choose">
              {busy ? t('ingest.busy') : t('billingImport.choose')}
            </button>
            <span className="muted small" role="status" aria-live="polite" data-testid="billing-import-status">
              {busy ?? ''}
            </span>
            {busy && <progress className="ingest-progress" aria-label={busy} />}
          </div>
          <input
            ref={input}
            type="file"
            accept={BILLING_ACCEPT}
            multiple
            hidden
            data-testid="billing-file-input"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              void importFiles(files);
            }}
          />
          {dragging && (
            <div className="drop-overlay" aria-hidden="true">
              {t('ingest.dropToImport')}
            </div>
          )}
        </div>
        <div className="ingest-report" aria-live="polite">
          {outcomes ? (
            outcomes.map((o, i) => <Outcome key={i} o={o} />)
          ) : (
            <p className="muted small">{t('ingest.reportHint')}</p>
          )}
        </div>
      </div>
    </section>
  );
}

function Outcome({ o }: { o: FileOutcome }) {
  const r = o.report;
  const problems = !!o.error || !!o.refused || (r?.skipped.length ?? 0) > 0;
  return (
    <div className="billing-report" data-testid="billing-import-report" data-file={o.file} data-kind={o.kind ?? ''} data-problems={problems ? 'true' : 'false'}>
      <h4>
        {o.file} <span className="muted small">({o.kind === 'rules' ? t('billingImport.rules') : o.kind === 'orders' ? t('billingImport.orders') : t('billingImport.notSent')})</span>
      </h4>
      {o.refused && <p className="error-text">{t('billingImport.notSentBecause', { why: o.refused })}</p>}
      {o.error && (
        <div className="error-box" role="alert" data-testid="billing-import-error" data-code={o.error.code}>
          <span className="error-advice">{errorAdvice(o.error.code)}</span> <span className="error-text">{o.error.message}</span>
          <ErrorCodeDetails code={o.error.code} />
        </div>
      )}
      {r && (
        <>
          <p className={problems ? 'warn-text' : 'ok-text'} data-testid="billing-import-summary">
            {importSummary(r)}
          </p>
          {r.imported.length > 0 && (
            <ReportList title={t('ingest.imported')} items={r.imported.map((x) => ({ text: importedLabel(x), line: x.line }))} testId="billing-imported" />
          )}
          {r.unchanged.length > 0 && (
            <ReportList title={t('ingest.unchanged')} items={r.unchanged.map((x) => ({ text: importedLabel(x), line: x.line }))} testId="billing-unchanged" />
          )}
          {r.skipped.length > 0 && (
            <>
              <h5>{t('ingest.skipped')}</h5>
              <ul className="report-list problems">
                {r.skipped.map((s, i) => (
                  <li key={i} className="error-text" data-testid="billing-skipped" data-line={s.line} data-field={s.field ?? ''}>
                    {formatSkipped(s)}
                  </li>
                ))}
              </ul>
            </>
          )}
          {r.explanations && r.explanations.ingested.length > 0 && (
            <p className="muted small">{t('billingImport.explanations', { list: r.explanations.ingested.join(', ') })}</p>
          )}
        </>
      )}
    </div>
  );
}

function ReportList({ title, items, testId }: { title: string; items: { text: string; line: number }[]; testId: string }) {
  const shown = items.slice(0, 30);
  return (
    <>
      <h5>{title}</h5>
      <ul className="report-list">
        {shown.map((x, i) => (
          <li key={i} data-testid={testId}>
            <code>{x.text}</code> <span className="muted small">{t('billingImport.line', { line: x.line })}</span>
          </li>
        ))}
        {items.length > shown.length && <li className="muted small">{t('billingImport.more', { n: items.length - shown.length })}</li>}
      </ul>
    </>
  );
}
