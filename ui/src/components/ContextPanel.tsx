// What the context engine knows about the session (session_context): the
// procedure's steps, the facts, isolation, labor and the report. Its buttons
// send chat messages through `onSend`; they never block the chat.

import { lazy, Suspense, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { api, type ContextReport, type ReportFormat, type ReportRevision, type ReportState, type SessionContext } from '../api';
import {
  adjustLaborText,
  breadcrumb,
  COMMAND_TEXT,
  emptiedThreeC,
  exportBlob,
  formatHours,
  humanizeId,
  laborModeLabel,
  parseLaborHours,
  reportThreeC,
  stepMark,
  stepProgress,
  stepStatusLabel,
  threeCEdits,
  type ThreeC,
} from '../chat';
import { notifySyncChanged } from '../events';
import { downloadBlob, formatTimestamp } from '../files';
import { t, type MessageKey } from '../i18n';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { ReportText } from './ReportText';
import type { PrintJob } from './ReportPrint';

// The print sheet loads when Print is first pressed.
const PrintSheet = lazy(() => import('./ReportPrint').then((m) => ({ default: m.PrintSheet })));

export function ContextPanel({
  sessionId,
  context,
  error,
  sending,
  onSend,
  reports,
  reportsError,
  onReportChanged,
}: {
  sessionId: string;
  context: SessionContext | null;
  error: ApiError | null;
  sending: boolean;
  onSend: (text: string) => void;
  reports: ReportRevision[] | null;
  reportsError: ApiError | null;
  /** A revision was finalized: reload the context, the reports and the session. */
  onReportChanged: () => void;
}) {
  if (!context) {
    return (
      <aside className="context-panel" aria-label={t('ctx.label')} data-testid="context-panel">
        {error ? <ErrorMessage error={error} testId="context-error" /> : <p className="muted">{t('ctx.loading')}</p>}
      </aside>
    );
  }

  const c = context;
  const crumbs = breadcrumb(c.topic_stack);
  const progress = stepProgress(c.steps);
  const returnStep = c.topic_stack[0]?.return_step ?? null;
  const returnQuestion = c.steps.find((s) => s.id === returnStep)?.question;

  return (
    // Focusable so that keyboard users can scroll it (it scrolls on its own beside the chat).
    <aside className="context-panel" aria-label={t('ctx.label')} data-testid="context-panel" tabIndex={0}>
      {/* A refresh that failed keeps the last good context on screen, with the error. */}
      <ErrorMessage error={error} testId="context-error" />

      {c.escalated && (
        <div className="escalation-banner" role="alert" data-testid="escalation-banner">
          <strong>{t('ctx.escalated')}</strong>{' '}
          {c.escalation_reason ? <span data-testid="escalation-reason">{c.escalation_reason}.</span> : t('ctx.escalatedNoReason')}
        </div>
      )}

      {crumbs.length > 0 && (
        <div className="topic-bar" data-testid="topic-bar">
          <nav aria-label={t('ctx.whereYouAre')} className="breadcrumb" data-testid="breadcrumb">
            <ol>
              {crumbs.map((label, i) => (
                <li key={i} aria-current={i === crumbs.length - 1 ? 'location' : undefined} title={i === 0 ? returnQuestion : undefined}>
                  {label}
                </li>
              ))}
            </ol>
          </nav>
          <button type="button" className="btn" data-testid="back-to-step" onClick={() => onSend(COMMAND_TEXT.backToStep)} disabled={sending}>
            {t('ctx.backToStep')}
          </button>
        </div>
      )}

      <div className="ctx-system">
        <h4 data-testid="context-system">{c.system ? c.system.title : t('ctx.noProcedure')}</h4>
        {c.system ? (
          <p className="muted small" data-testid="step-progress">
            {t('ctx.progress', { done: progress.done, total: progress.total })}
          </p>
        ) : (
          <p className="muted small">{t('ctx.noProcedureHint')}</p>
        )}
      </div>

      <section className="ctx-block" aria-label={t('ctx.isolation')} data-testid="isolation" data-complete={c.isolation.complete} data-finding={c.isolation.finding ?? ''}>
        <h4>{t('ctx.cause')}</h4>
        {c.isolation.invalidated && (
          <p className="isolation-note warn" data-testid="isolation-invalidated">
            {t('ctx.invalidated')}
          </p>
        )}
        {c.isolation.complete ? (
          <p className="isolation-found">
            <span className="badge ok">{t('ctx.isolated')}</span> {c.isolation.cause ?? humanizeId(c.isolation.finding ?? '')}
          </p>
        ) : (
          <p className="muted small">{t('ctx.notIsolated')}</p>
        )}
      </section>

      {(c.other_complaints?.length ?? 0) > 0 && (
        <section className="ctx-block" aria-label={t('ctx.otherComplaints')} data-testid="other-complaints">
          <h4>{t('ctx.otherComplaints')}</h4>
          <ul>
            {c.other_complaints!.map((line, i) => (
              <li key={i} data-closed={line.closed}>
                <span className={line.closed ? 'badge ok' : 'badge'}>{t(line.closed ? 'ctx.complaintClosed' : 'ctx.complaintQueued')}</span>{' '}
                <strong>{line.system}</strong>: {line.complaint}
                {line.cause && <span className="muted small"> — {line.cause}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}

      {c.labor.mode !== 'none' && <LaborBox labor={c.labor} sending={sending} onSend={onSend} />}

      <ReportBox
        sessionId={sessionId}
        context={c}
        sending={sending}
        onSend={onSend}
        reports={reports}
        reportsError={reportsError}
        onReportChanged={onReportChanged}
      />

      {c.system && (
        <section className="ctx-block" aria-labelledby={`ctx-steps-${sessionId}`}>
          <h4 id={`ctx-steps-${sessionId}`}>{t('ctx.checks')}</h4>
          <ol className="step-list" data-testid="step-list">
            {c.steps.map((s) => (
              <li
                key={s.id}
                className={`step is-${s.status}`}
                data-testid="context-step"
                data-step-id={s.id}
                data-status={s.status}
                aria-current={s.status === 'active' ? 'step' : undefined}
              >
                <span className="step-mark" aria-hidden="true">
                  {stepMark(s.status)}
                </span>
                <span className="step-q">
                  {s.question}
                  <span className="sr-only"> ({stepStatusLabel(s.status)})</span>
                  {s.reported && (
                    <span className="step-reported muted small" data-testid="step-reported">
                      {t('ctx.toConfirm')}: {s.reported}
                    </span>
                  )}
                </span>
              </li>
            ))}
          </ol>
        </section>
      )}

      <section className="ctx-block" aria-label={t('ctx.facts')}>
        <h4>
          {t('ctx.facts')} <span className="muted">({c.facts.filter((f) => !f.superseded_by).length})</span>
        </h4>
        {c.facts.length === 0 ? (
          <p className="muted small">{t('ctx.noFacts')}</p>
        ) : (
          <ul className="fact-list">
            {c.facts.map((f) => {
              const superseded = !!f.superseded_by;
              const body = (
                <>
                  {f.text}
                  {f.value != null && f.unit != null && (
                    <span className="muted">
                      {' '}
                      ({f.value} {f.unit})
                    </span>
                  )}
                </>
              );
              return (
                <li
                  key={f.id}
                  className={`fact${superseded ? ' is-superseded' : ''}`}
                  data-testid="context-fact"
                  data-superseded={superseded}
                  data-source={f.source}
                >
                  {superseded ? (
                    <>
                      <s data-testid="fact-text">{body}</s>
                      <span className="sr-only"> ({t('ctx.superseded')})</span>
                    </>
                  ) : (
                    <span data-testid="fact-text">{body}</span>
                  )}
                  <span className={`badge source source-${f.source}`}>{factSourceLabel(f.source)}</span>
                </li>
              );
            })}
          </ul>
        )}
      </section>

      {/* What the engine did, in its own ids: for whoever asks (a support call, a bug report), closed by default. */}
      {(c.last_transition || c.isolation.finding || c.facts.length > 0) && (
        <details className="tech-details" data-testid="ctx-details">
          <summary>{t('details.summary')}</summary>
          {c.last_transition && (
            <p className="last-transition small" data-testid="last-transition">
              {t('details.transition')} <code>{c.last_transition.id}</code> — {c.last_transition.why}
            </p>
          )}
          {c.isolation.finding && (
            <p className="small">
              {t('details.finding')}{' '}
              <code className="finding-code" data-testid="isolation-finding">
                {c.isolation.finding}
              </code>
            </p>
          )}
          {c.facts.some((f) => f.name) && (
            <>
              <p className="small">{t('details.factIds')}</p>
              <ul className="fact-ids small">
                {c.facts
                  .filter((f) => f.name)
                  .map((f) => (
                    <li key={f.id}>
                      <code>{f.name}</code> ({f.subject})
                    </li>
                  ))}
              </ul>
            </>
          )}
        </details>
      )}
    </aside>
  );
}

const FACT_SOURCE: Record<string, MessageKey> = {
  technician: 'fact.source.technician',
  inference: 'fact.source.inference',
};

function factSourceLabel(source: string): string {
  const k = FACT_SOURCE[source];
  return k ? t(k) : source;
}

function LaborBox({ labor, sending, onSend }: { labor: SessionContext['labor']; sending: boolean; onSend: (text: string) => void }) {
  const [hours, setHours] = useState('');
  const [hoursError, setHoursError] = useState<string | null>(null);

  function adjust() {
    const parsed = parseLaborHours(hours);
    if (!parsed.ok) {
      setHoursError(parsed.error);
      return;
    }
    setHoursError(null);
    setHours('');
    onSend(adjustLaborText(parsed.hours));
  }

  return (
    <section className="ctx-block labor" aria-labelledby="labor-heading" data-testid="labor-box" data-mode={labor.mode}>
      <h4 id="labor-heading">
        {t('labor.title')}{' '}
        <span className={`badge labor-${labor.mode}`} data-testid="labor-mode">
          {laborModeLabel(labor.mode)}
        </span>
      </h4>
      <p className="labor-total">
        {t('labor.total')} <strong data-testid="labor-hours">{formatHours(labor.hours)}</strong>
      </p>
      {labor.lines.length > 0 && (
        <table className="labor-lines" data-testid="labor-lines">
          <tbody>
            {labor.lines.map((l, i) => (
              <tr key={i} data-testid="labor-line">
                <td>{l.task}</td>
                <td className="num">{formatHours(l.hours)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="labor-actions">
        <button type="button" className="btn" data-testid="labor-confirm" onClick={() => onSend(COMMAND_TEXT.confirmLabor)} disabled={sending}>
          {t('labor.confirm')}
        </button>
        <form
          className="labor-adjust"
          onSubmit={(e) => {
            e.preventDefault();
            adjust();
          }}
        >
          <label className="sr-only" htmlFor="labor-hours-input">
            {t('labor.hoursLabel')}
          </label>
          <input
            id="labor-hours-input"
            type="text"
            inputMode="decimal"
            className="hours-input"
            placeholder={t('labor.hoursPlaceholder')}
            value={hours}
            onChange={(e) => {
              setHours(e.target.value);
              setHoursError(null);
            }}
            aria-invalid={hoursError ? true : undefined}
            aria-describedby={hoursError ? 'labor-hours-error' : undefined}
            data-testid="labor-hours-input"
          />
          <button type="submit" className="btn" data-testid="labor-adjust" disabled={sending}>
            {t('labor.adjust')}
          </button>
        </form>
        <button type="button" className="btn" data-testid="labor-skip" onClick={() => onSend(COMMAND_TEXT.skipLabor)} disabled={sending}>
          {t('labor.skip')}
        </button>
      </div>
      {hoursError && (
        <div id="labor-hours-error" className="field-error" role="alert" data-testid="labor-hours-error">
          {hoursError}
        </div>
      )}
    </section>
  );
}

const SYNC_KEYS: Record<string, MessageKey> = {
  pending: 'report.sync.pending',
  done: 'report.sync.done',
  failed: 'report.sync.failed',
  conflict: 'report.sync.conflict',
  not_queued: 'report.sync.not_queued',
};

export function ReportSyncBadge({ report }: { report: ContextReport }) {
  const state = report.sync?.state ?? 'unknown';
  const key = SYNC_KEYS[state];
  return (
    <span
      className={`badge report-sync sync-${state}`}
      data-testid="report-sync"
      data-state={state}
      data-revision={report.revision}
      title={report.sync?.reason ?? undefined}
    >
      {key ? t(key) : t('report.sync.unknown')}
    </span>
  );
}

const FORMATS: { format: ReportFormat; key: MessageKey }[] = [
  { format: 'pdf', key: 'report.exportPdf' },
  { format: 'markdown', key: 'report.exportMarkdown' },
  { format: 'json', key: 'report.exportJson' },
];

function ReportBox({
  sessionId,
  context,
  sending,
  onSend,
  reports,
  reportsError,
  onReportChanged,
}: {
  sessionId: string;
  context: SessionContext;
  sending: boolean;
  onSend: (text: string) => void;
  reports: ReportRevision[] | null;
  reportsError: ApiError | null;
  onReportChanged: () => void;
}) {
  const [exportError, setExportError] = useState<ApiError | null>(null);
  const [exportNote, setExportNote] = useState<string | null>(null);
  const [exporting, setExporting] = useState<ReportFormat | null>(null);
  const [editing, setEditing] = useState(false);
  const [reopening, setReopening] = useState(false);
  const [state, setState] = useState<ReportState | null>(null);
  const [stateError, setStateError] = useState<ApiError | null>(null);
  const [finalizing, setFinalizing] = useState(false);
  const [finalizeError, setFinalizeError] = useState<ApiError | null>(null);
  const [printJob, setPrintJob] = useState<PrintJob | null>(null);
  const [printing, setPrinting] = useState(false);
  const printDone = useCallback(() => setPrintJob(null), []);
  const latest = reports && reports.length > 0 ? reports.reduce((a, b) => (b.revision > a.revision ? b : a)) : null;
  const latestInfo = latest ? context.reports.find((r) => r.revision === latest.revision) : undefined;

  // The lifecycle changes with every turn (a write-up makes a draft), so it is re-read with the context.
  useEffect(() => {
    let alive = true;
    api.reportState(sessionId).then(
      (s) => {
        if (!alive) return;
        setState(s);
        setStateError(null);
      },
      (e) => alive && setStateError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, [sessionId, context, reports]);

  const draft = state?.draft ?? null;
  const stage = state?.stage ?? 'none';
  const finalized = stage === 'finalized';
  if (!context.report_ready && context.reports.length === 0 && !draft) return null;

  async function exportAs(format: ReportFormat) {
    setExporting(format);
    setExportError(null);
    setExportNote(null);
    try {
      const r = await api.reportExport(sessionId, latest?.revision, format);
      // The same path in the browser and in the Tauri webview.
      downloadBlob(exportBlob({ ...r, format: r.format ?? format }), r.file_name);
      setExportNote(t('report.exported', { revision: r.revision, file: r.file_name }));
    } catch (e) {
      setExportError(toApiError(e));
    } finally {
      setExporting(null);
    }
  }

  async function printLatest() {
    if (!latest) return;
    setPrinting(true);
    setExportError(null);
    setExportNote(null);
    try {
      const { loadPrintJob } = await import('./ReportPrint');
      setPrintJob(await loadPrintJob(sessionId, latest.revision));
    } catch (e) {
      setExportError(toApiError(e));
    } finally {
      setPrinting(false);
    }
  }

  async function finalizeNow() {
    setFinalizing(true);
    setFinalizeError(null);
    try {
      const r = await api.reportFinalize({ session_id: sessionId });
      notifySyncChanged();
      setExportNote(r.queued ? t('report.finalizedQueued', { revision: r.revision }) : t('report.finalized', { revision: r.revision }));
      onReportChanged();
    } catch (e) {
      setFinalizeError(toApiError(e));
    } finally {
      setFinalizing(false);
    }
  }

  const stageBadge = finalized ? 'finalized' : draft ? 'draft' : state?.reopened ? 'reopened' : null;
  const shown = draft ?? latest;

  return (
    <section className="ctx-block report-box" aria-labelledby="report-heading" data-testid="report-box">
      <div className="ctx-head">
        <h4 id="report-heading">{t('report.title')}</h4>
        {stageBadge && (
          <span className={`badge report-stage stage-${stageBadge}`} data-testid="report-stage" data-stage={stageBadge}>
            {t(`report.stage.${stageBadge}`)}
          </span>
        )}
        {context.report_ready && !finalized && (
          <button type="button" className="btn primary" data-testid="write-report" onClick={() => onSend(COMMAND_TEXT.writeReport)} disabled={sending}>
            {draft ? t('report.writeAgain') : context.reports.length > 0 ? t('report.writeNew') : t('report.write')}
          </button>
        )}
      </div>
      <ErrorMessage error={reportsError ?? stateError} testId="reports-error" />
      {draft && (
        <>
          <div className="report-meta">
            <span className="muted small" data-testid="report-draft-revision" data-revision={draft.revision}>
              {t('report.draftRevision', { revision: draft.revision, when: formatTimestamp(draft.updated_at) })}
            </span>
          </div>
          <p className="muted small">{t('report.draftHint')}</p>
          <div className="report-actions" role="group" aria-label={t('report.finalizeForm')}>
            {!editing && (
              <button type="button" className="btn" data-testid="report-edit" onClick={() => setEditing(true)} disabled={sending || finalizing}>
                {t('report.editDraft')}
              </button>
            )}
            {!editing && (
              <button
                type="button"
                className="btn primary"
                data-testid="report-finalize-now"
                onClick={() => void finalizeNow()}
                disabled={sending || finalizing}
                aria-busy={finalizing}
              >
                {finalizing ? t('report.finalizing') : t('report.finalize')}
              </button>
            )}
          </div>
          <ErrorMessage error={finalizeError} testId="report-finalize-error" />
        </>
      )}
      {!draft && latest && (
        <>
          <div className="report-meta">
            <span className="muted small" data-testid="report-revision" data-revision={latest.revision}>
              {t('report.revision', { revision: latest.revision, when: formatTimestamp(latest.created_at) })}
            </span>
            {latestInfo && <ReportSyncBadge report={latestInfo} />}
          </div>
          {latestInfo?.sync?.reason && (
            <p className="small warn-text" data-testid="report-sync-reason">
              {latestInfo.sync.reason}
            </p>
          )}
          <div className="report-actions" role="group" aria-label={t('report.exportGroup')}>
            {FORMATS.map((f) => (
              <button
                key={f.format}
                type="button"
                className="btn"
                data-testid={`export-${f.format}`}
                onClick={() => void exportAs(f.format)}
                disabled={exporting !== null}
                aria-busy={exporting === f.format}
              >
                {exporting === f.format ? t('report.exporting') : t(f.key)}
              </button>
            ))}
            <button
              type="button"
              className="btn"
              data-testid="report-print"
              onClick={() => void printLatest()}
              disabled={printing || printJob !== null}
              aria-busy={printing}
            >
              {t('report.print')}
            </button>
            {finalized && !reopening && (
              <button type="button" className="btn" data-testid="report-reopen" onClick={() => setReopening(true)}>
                {t('report.reopen')}
              </button>
            )}
          </div>
          <ErrorMessage error={exportError} testId="report-export-error" />
          {finalized && (
            <p className="muted small" data-testid="report-read-only">
              {t('report.readOnly')}
            </p>
          )}
          {state?.reopened && !finalized && (
            <p className="muted small" data-testid="report-reopened">
              {t('report.reopened', {
                when: formatTimestamp(state.reopened.at),
                who: state.reopened.by ?? t('header.someone'),
                revision: (state.final_revision ?? 0) + 1,
              })}
            </p>
          )}
          {finalized && reopening && (
            <ReopenForm
              sessionId={sessionId}
              nextRevision={(state?.final_revision ?? latest.revision) + 1}
              onCancel={() => setReopening(false)}
              onReopened={() => {
                setReopening(false);
                setExportNote(null);
                onReportChanged();
              }}
            />
          )}
        </>
      )}
      {printJob && (
        <Suspense fallback={null}>
          <PrintSheet job={printJob} onDone={printDone} />
        </Suspense>
      )}
      {exportNote && (
        <div className="note small" role="status" data-testid="report-export-note">
          {exportNote}
        </div>
      )}
      {draft && editing && (
        <FinalizeForm
          key={`${draft.revision}:${draft.updated_at}`}
          sessionId={sessionId}
          body={draft.body}
          onCancel={() => setEditing(false)}
          onSaved={(message) => {
            setEditing(false);
            setExportNote(message);
            onReportChanged();
          }}
        />
      )}
      {shown ? (
        <div className="report-preview" data-testid="report-preview" aria-label={t('report.previewLabel', { revision: shown.revision })}>
          <ReportText text={shown.body} />
        </div>
      ) : (
        context.reports.length === 0 && <p className="muted small">{t('report.canWrite')}</p>
      )}
      {context.reports.length > 1 && (
        <details className="report-revisions" data-testid="report-revisions">
          <summary>{t('report.revisions', { n: context.reports.length })}</summary>
          <ul>
            {[...context.reports]
              .sort((a, b) => b.revision - a.revision)
              .map((r) => (
                <li key={r.revision} data-testid="report-revision-row" data-revision={r.revision}>
                  {t('report.revisionShort', { revision: r.revision, when: formatTimestamp(r.created_at) })} <ReportSyncBadge report={r} />
                </li>
              ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function ReopenForm({
  sessionId,
  nextRevision,
  onCancel,
  onReopened,
}: {
  sessionId: string;
  nextRevision: number;
  onCancel: () => void;
  onReopened: () => void;
}) {
  const [by, setBy] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const id = useId();
  return (
    <form
      className="reopen-form"
      data-testid="reopen-form"
      aria-label={t('report.reopenConfirm')}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await api.reportReopen(sessionId, by);
          onReopened();
        } catch (err) {
          setError(toApiError(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <p className="muted small">{t('report.reopenHint', { revision: nextRevision })}</p>
      <div className="field">
        <label htmlFor={`${id}-by`}>{t('report.reopenBy')}</label>
        <input id={`${id}-by`} value={by} onChange={(e) => setBy(e.target.value)} data-testid="report-reopen-by" autoFocus />
      </div>
      <div className="finalize-actions">
        <button type="submit" className="btn primary" disabled={busy} aria-busy={busy} data-testid="report-reopen-confirm">
          {t('report.reopenConfirm')}
        </button>
        <button type="button" className="btn" onClick={onCancel} disabled={busy} data-testid="reopen-cancel">
          {t('common.cancel')}
        </button>
      </div>
      <ErrorMessage error={error} testId="reopen-error" />
    </form>
  );
}

function FinalizeForm({
  sessionId,
  body,
  onCancel,
  onSaved,
}: {
  sessionId: string;
  body: string;
  onCancel: () => void;
  /** The draft was saved or finalized; the message says which. */
  onSaved: (message: string) => void;
}) {
  const original = useMemo(() => reportThreeC(body), [body]);
  const originalTr = useMemo(() => reportThreeC(body, true), [body]);
  const hasTranslation = originalTr.complaint !== '' || originalTr.cause !== '' || originalTr.correction !== '';
  const [edited, setEdited] = useState<ThreeC>(original);
  const [editedTr, setEditedTr] = useState<ThreeC>(originalTr);
  const [error, setError] = useState<ApiError | null>(null);
  const [fieldError, setFieldError] = useState<Record<string, string | undefined>>({});
  const [busy, setBusy] = useState(false);
  const id = useId();
  const form = useRef<HTMLFormElement>(null);

  useEffect(() => setEdited(original), [original]);
  useEffect(() => setEditedTr(originalTr), [originalTr]);
  useEffect(() => {
    form.current?.querySelector('textarea')?.focus();
  }, []);

  /** Finalize, or only save the draft (`finalize` false): the same checked edits either way. */
  async function submit(finalize: boolean) {
    const emptied = emptiedThreeC(original, edited);
    const emptiedTr = hasTranslation ? emptiedThreeC(originalTr, editedTr) : [];
    if (emptied.length > 0 || emptiedTr.length > 0) {
      setFieldError(
        Object.fromEntries([
          ...emptied.map((k) => [k, t('report.fieldEmpty')]),
          ...emptiedTr.map((k) => [`tr-${k}`, t('report.fieldEmpty')]),
        ]),
      );
      return;
    }
    setFieldError({});
    setBusy(true);
    setError(null);
    const input = {
      session_id: sessionId,
      ...threeCEdits(original, edited),
      ...(hasTranslation ? { translation: threeCEdits(originalTr, editedTr) } : {}),
    };
    try {
      if (finalize) {
        const r = await api.reportFinalize(input);
        notifySyncChanged();
        onSaved(r.queued ? t('report.finalizedQueued', { revision: r.revision }) : t('report.finalized', { revision: r.revision }));
      } else {
        const r = await api.reportDraftSave(input);
        onSaved(t('report.draftSaved', { revision: r.revision }));
      }
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  const fields: { k: keyof ThreeC; label: MessageKey }[] = [
    { k: 'complaint', label: 'report.complaint' },
    { k: 'cause', label: 'report.cause' },
    { k: 'correction', label: 'report.correction' },
  ];

  return (
    <form
      ref={form}
      className="finalize-form"
      data-testid="finalize-form"
      aria-label={t('report.finalizeForm')}
      onSubmit={(e) => {
        e.preventDefault();
        void submit(true);
      }}
    >
      <p className="muted small">{t('report.finalizeHint')}</p>
      {hasTranslation && <h5 className="finalize-block">{t('report.englishBlock')}</h5>}
      {fields.map(({ k, label }) => (
        <div className="field" key={k}>
          <label htmlFor={`${id}-${k}`}>{t(label)}</label>
          <textarea
            id={`${id}-${k}`}
            rows={k === 'complaint' ? 2 : 3}
            value={edited[k]}
            onChange={(e) => {
              const v = e.target.value;
              setEdited((x) => ({ ...x, [k]: v }));
              setFieldError((f) => ({ ...f, [k]: undefined }));
            }}
            aria-invalid={fieldError[k] ? true : undefined}
            aria-describedby={fieldError[k] ? `${id}-${k}-err` : undefined}
            data-testid={`finalize-${k}`}
            data-autofocus={k === 'complaint' ? true : undefined}
          />
          {fieldError[k] && (
            <div id={`${id}-${k}-err`} className="field-error" role="alert" data-testid={`finalize-${k}-error`}>
              {fieldError[k]}
            </div>
          )}
        </div>
      ))}
      {hasTranslation && (
        <>
          <h5 className="finalize-block">{t('report.translationBlock')}</h5>
          {fields.map(({ k, label }) => (
            <div className="field" key={`tr-${k}`}>
              <label htmlFor={`${id}-tr-${k}`}>{t(label)}</label>
              <textarea
                id={`${id}-tr-${k}`}
                rows={k === 'complaint' ? 2 : 3}
                value={editedTr[k]}
                onChange={(e) => {
                  const v = e.target.value;
                  setEditedTr((x) => ({ ...x, [k]: v }));
                  setFieldError((f) => ({ ...f, [`tr-${k}`]: undefined }));
                }}
                aria-invalid={fieldError[`tr-${k}`] ? true : undefined}
                aria-describedby={fieldError[`tr-${k}`] ? `${id}-tr-${k}-err` : undefined}
                data-testid={`finalize-tr-${k}`}
              />
              {fieldError[`tr-${k}`] && (
                <div id={`${id}-tr-${k}-err`} className="field-error" role="alert" data-testid={`finalize-tr-${k}-error`}>
                  {fieldError[`tr-${k}`]}
                </div>
              )}
            </div>
          ))}
        </>
      )}
      <div className="finalize-actions">
        <button type="submit" className="btn primary" disabled={busy} aria-busy={busy} data-testid="report-finalize">
          {busy ? t('report.finalizing') : t('report.finalize')}
        </button>
        <button type="button" className="btn" onClick={() => void submit(false)} disabled={busy} data-testid="report-save-draft">
          {t('report.saveDraft')}
        </button>
        <button type="button" className="btn" onClick={onCancel} disabled={busy} data-testid="finalize-cancel">
          {t('common.cancel')}
        </button>
      </div>
      <ErrorMessage error={error} testId="finalize-error" />
    </form>
  );
}
