// What the context engine knows about the session (session_context): the
// procedure's steps, the facts, isolation, labor and the report. Its buttons
// send chat messages through `onSend`; they never block the chat.

import { useState } from 'react';
import { api, type ReportRevision, type SessionContext } from '../api';
import {
  adjustLaborText,
  breadcrumb,
  COMMAND_TEXT,
  formatHours,
  LABOR_MODE_LABEL,
  parseLaborHours,
  stepMark,
  stepProgress,
  stepStatusLabel,
} from '../chat';
import { downloadBlob, formatTimestamp } from '../files';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { ReportText } from './ReportText';

export function ContextPanel({
  sessionId,
  context,
  error,
  sending,
  onSend,
  reports,
  reportsError,
}: {
  sessionId: string;
  context: SessionContext | null;
  error: ApiError | null;
  sending: boolean;
  onSend: (text: string) => void;
  reports: ReportRevision[] | null;
  reportsError: ApiError | null;
}) {
  if (!context) {
    return (
      <aside className="context-panel" aria-label="Diagnosis context" data-testid="context-panel">
        {error ? <ErrorMessage error={error} testId="context-error" /> : <p className="muted">Loading context…</p>}
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
    <aside className="context-panel" aria-label="Diagnosis context" data-testid="context-panel" tabIndex={0}>
      {/* A refresh that failed keeps the last good context on screen, with the error. */}
      <ErrorMessage error={error} testId="context-error" />

      {c.escalated && (
        <div className="escalation-banner" role="alert" data-testid="escalation-banner">
          <strong>Escalated.</strong>{' '}
          {c.escalation_reason ? (
            <span data-testid="escalation-reason">{c.escalation_reason}.</span>
          ) : (
            'The assistant handed this session on: it needs attention beyond the guided procedure.'
          )}
        </div>
      )}

      {crumbs.length > 0 && (
        <div className="topic-bar" data-testid="topic-bar">
          <nav aria-label="Where you are" className="breadcrumb" data-testid="breadcrumb">
            <ol>
              {crumbs.map((label, i) => (
                <li key={i} aria-current={i === crumbs.length - 1 ? 'location' : undefined} title={i === 0 ? returnQuestion : undefined}>
                  {label}
                </li>
              ))}
            </ol>
          </nav>
          <button
            type="button"
            className="btn"
            data-testid="back-to-step"
            onClick={() => onSend(COMMAND_TEXT.backToStep)}
            disabled={sending}
          >
            Back to step
          </button>
        </div>
      )}

      <div className="ctx-system">
        <h4 data-testid="context-system">{c.system ? c.system.title : 'No procedure yet'}</h4>
        {c.system ? (
          <p className="muted small" data-testid="step-progress">
            {progress.done} of {progress.total} checks done
          </p>
        ) : (
          <p className="muted small">Describe the complaint in the chat; the assistant picks the procedure.</p>
        )}
      </div>

      <section className="ctx-block" aria-label="Isolation" data-testid="isolation" data-complete={c.isolation.complete} data-finding={c.isolation.finding ?? ''}>
        <h4>Cause</h4>
        {c.isolation.invalidated && (
          <p className="isolation-note warn" data-testid="isolation-invalidated">
            New evidence invalidated the earlier finding; the diagnosis was replanned.
          </p>
        )}
        {c.isolation.complete ? (
          <p className="isolation-found">
            <span className="badge ok">Isolated</span> {c.isolation.cause ?? c.isolation.finding}
            {c.isolation.finding && (
              <code className="muted small finding-code" data-testid="isolation-finding">
                {c.isolation.finding}
              </code>
            )}
          </p>
        ) : (
          <p className="muted small">Not isolated yet.</p>
        )}
      </section>

      {c.labor.mode !== 'none' && <LaborBox labor={c.labor} sending={sending} onSend={onSend} />}

      <ReportBox sessionId={sessionId} context={c} sending={sending} onSend={onSend} reports={reports} reportsError={reportsError} />

      {c.system && (
        <section className="ctx-block" aria-labelledby={`ctx-steps-${sessionId}`}>
          <h4 id={`ctx-steps-${sessionId}`}>Checks</h4>
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
                </span>
              </li>
            ))}
          </ol>
        </section>
      )}

      <section className="ctx-block" aria-label="Facts">
        <h4>
          Facts <span className="muted">({c.facts.filter((f) => !f.superseded_by).length})</span>
        </h4>
        {c.facts.length === 0 ? (
          <p className="muted small">Nothing recorded yet.</p>
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
                  title={f.name ?? f.subject ?? undefined}
                >
                  {superseded ? (
                    <>
                      <s data-testid="fact-text">{body}</s>
                      <span className="sr-only"> (superseded)</span>
                    </>
                  ) : (
                    <span data-testid="fact-text">{body}</span>
                  )}
                  <span className={`badge source source-${f.source}`}>{f.source}</span>
                </li>
              );
            })}
          </ul>
        )}
      </section>

      {c.last_transition && (
        <p className="last-transition muted small" data-testid="last-transition">
          Last transition: <code>{c.last_transition.id}</code> — {c.last_transition.why}
        </p>
      )}
    </aside>
  );
}

function LaborBox({
  labor,
  sending,
  onSend,
}: {
  labor: SessionContext['labor'];
  sending: boolean;
  onSend: (text: string) => void;
}) {
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
        Labor{' '}
        <span className={`badge labor-${labor.mode}`} data-testid="labor-mode">
          {LABOR_MODE_LABEL[labor.mode] ?? labor.mode}
        </span>
      </h4>
      <p className="labor-total">
        Total: <strong data-testid="labor-hours">{formatHours(labor.hours)}</strong>
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
          Confirm
        </button>
        <form
          className="labor-adjust"
          onSubmit={(e) => {
            e.preventDefault();
            adjust();
          }}
        >
          <label className="sr-only" htmlFor="labor-hours-input">
            Labor hours
          </label>
          <input
            id="labor-hours-input"
            type="text"
            inputMode="decimal"
            className="hours-input"
            placeholder="hr"
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
            Adjust
          </button>
        </form>
        <button type="button" className="btn" data-testid="labor-skip" onClick={() => onSend(COMMAND_TEXT.skipLabor)} disabled={sending}>
          Skip
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

function ReportBox({
  sessionId,
  context,
  sending,
  onSend,
  reports,
  reportsError,
}: {
  sessionId: string;
  context: SessionContext;
  sending: boolean;
  onSend: (text: string) => void;
  reports: ReportRevision[] | null;
  reportsError: ApiError | null;
}) {
  const [exportError, setExportError] = useState<ApiError | null>(null);
  const [exportNote, setExportNote] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const latest = reports && reports.length > 0 ? reports.reduce((a, b) => (b.revision > a.revision ? b : a)) : null;

  if (!context.report_ready && context.reports.length === 0) return null;

  async function exportMarkdown() {
    setExporting(true);
    setExportError(null);
    setExportNote(null);
    try {
      const r = await api.reportExport(sessionId, latest?.revision);
      // The same path in the browser and in the Tauri webview.
      downloadBlob(new Blob([r.content], { type: 'text/markdown;charset=utf-8' }), r.file_name);
      setExportNote(`Exported revision ${r.revision} as ${r.file_name}`);
    } catch (e) {
      setExportError(toApiError(e));
    } finally {
      setExporting(false);
    }
  }

  return (
    <section className="ctx-block report-box" aria-labelledby="report-heading" data-testid="report-box">
      <div className="ctx-head">
        <h4 id="report-heading">Report</h4>
        {context.report_ready && (
          <button type="button" className="btn primary" data-testid="write-report" onClick={() => onSend(COMMAND_TEXT.writeReport)} disabled={sending}>
            {context.reports.length > 0 ? 'Write new revision' : 'Write report'}
          </button>
        )}
      </div>
      <ErrorMessage error={reportsError} testId="reports-error" />
      {latest ? (
        <>
          <div className="report-meta">
            <span className="muted small" data-testid="report-revision" data-revision={latest.revision}>
              Revision {latest.revision} · {formatTimestamp(latest.created_at)}
            </span>
            <button type="button" className="btn" data-testid="export-markdown" onClick={exportMarkdown} disabled={exporting}>
              {exporting ? 'Exporting…' : 'Export Markdown'}
            </button>
          </div>
          <div className="report-preview" data-testid="report-preview" aria-label={`Report revision ${latest.revision}`}>
            <ReportText text={latest.body} />
          </div>
        </>
      ) : (
        context.reports.length === 0 && <p className="muted small">The cause is isolated: the report can be written.</p>
      )}
      <ErrorMessage error={exportError} testId="report-export-error" />
      {exportNote && (
        <div className="note small" role="status" data-testid="report-export-note">
          {exportNote}
        </div>
      )}
    </section>
  );
}
