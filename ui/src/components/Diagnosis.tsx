// The guided diagnostic chat of one session: the chat (history, input,
// photos, quick answers) beside the context panel (steps, facts, isolation,
// labor, report). Every button in the context panel is a chat message: it
// goes through the same `send` as the input, so the engine sees one stream.

import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { api, type Artifact, type ReportRevision, type SessionContext, type Turn } from '../api';
import { entriesFromTurns, entryFromTranscript, mergeEntries, replyKindLabel, type ChatEntry } from '../chat';
import { formatBytes, formatTimestamp, MAX_FILE_BYTES, readFileBase64 } from '../files';
import { ApiError, toApiError } from '../transport';
import { useThumbnail } from '../hooks';
import { openBillingRule, openKnowledgeSource } from '../events';
import { citationDescription, citationLabel, splitCitations } from '../knowledge';
import { parseRuleCitation } from '../billing';
import { ErrorMessage } from './common';
import { ContextPanel } from './ContextPanel';
import { ReportText } from './ReportText';

/** A photo picked for the next message. */
interface Pick {
  key: string;
  file: File;
  /** An object URL for the thumbnail (none where the platform has no object URLs). */
  url: string | null;
}

/** A message on its way. */
interface Pending {
  text: string;
  photos: { name: string; url: string | null }[];
}

/** Local entries carry the previews of the photos sent with them until the stored turn arrives. */
type LocalEntry = ChatEntry & { previews: { name: string; url: string | null }[] };

let pickSeq = 0;

function objectUrl(file: Blob): string | null {
  return typeof URL !== 'undefined' && typeof URL.createObjectURL === 'function' ? URL.createObjectURL(file) : null;
}

export function DiagnosisSection({
  sessionId,
  turns,
  artifacts,
  onTurn,
}: {
  sessionId: string;
  turns: Turn[];
  artifacts: Artifact[];
  /** A turn was recorded: reload the session (status, turn photos) and the list. */
  onTurn: () => void;
}) {
  const [local, setLocal] = useState<LocalEntry[]>([]);
  const [pending, setPending] = useState<Pending | null>(null);
  const [sendError, setSendError] = useState<ApiError | null>(null);
  const [draft, setDraft] = useState('');
  const [picks, setPicks] = useState<Pick[]>([]);
  const [context, setContext] = useState<SessionContext | null>(null);
  const [contextError, setContextError] = useState<ApiError | null>(null);
  const [contextVersion, setContextVersion] = useState(0);
  const [reports, setReports] = useState<ReportRevision[] | null>(null);
  const [reportsError, setReportsError] = useState<ApiError | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const history = useRef<HTMLOListElement>(null);
  const busy = useRef(false);
  const urls = useRef<string[]>([]);
  const onTurnRef = useRef(onTurn);
  onTurnRef.current = onTurn;

  // Object URLs live as long as the view: sent photos keep their preview until the stored turn shows them.
  useEffect(
    () => () => {
      for (const u of urls.current) URL.revokeObjectURL(u);
    },
    [],
  );

  useEffect(() => {
    let alive = true;
    api.sessionContext(sessionId).then(
      (c) => {
        if (!alive) return;
        setContext(c);
        setContextError(null);
      },
      (e) => alive && setContextError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, [sessionId, contextVersion]);

  const latestRevision = context?.reports.length ? Math.max(...context.reports.map((r) => r.revision)) : null;
  useEffect(() => {
    if (latestRevision == null) return;
    let alive = true;
    api.reportList(sessionId).then(
      (r) => {
        if (!alive) return;
        setReports(r.reports);
        setReportsError(null);
      },
      (e) => alive && setReportsError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, [sessionId, latestRevision]);

  const stored = entriesFromTurns(turns, artifacts);
  const entries = mergeEntries(stored, local) as (ChatEntry & { previews?: LocalEntry['previews'] })[];

  // New content goes to the bottom of a fixed-height history: keep it in view,
  // also when the composer below grows (photos picked, an error shown).
  const quickCount = context?.quick_answers.length ?? 0;
  useLayoutEffect(() => {
    const el = history.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [entries.length, pending, sendError, picks.length, quickCount]);

  const send = useCallback(
    async (text: string, fromComposer: boolean) => {
      if (busy.current) return;
      const photos = fromComposer ? picks : [];
      if (text.trim() === '' && photos.length === 0) return;
      busy.current = true;
      setSendError(null);
      setPending({ text, photos: photos.map((p) => ({ name: p.file.name, url: p.url })) });
      try {
        const attachments = [];
        for (const p of photos) {
          if (p.file.size > MAX_FILE_BYTES) {
            throw new ApiError(
              'too_large',
              `${p.file.name} is ${formatBytes(p.file.size)}; files can be at most ${formatBytes(MAX_FILE_BYTES)}`,
            );
          }
          attachments.push({ file_name: p.file.name, content_base64: await readFileBase64(p.file) });
        }
        const t = await api.chatTurn({ session_id: sessionId, text, attachments });
        setLocal((l) => [...l, { ...entryFromTranscript(text, t), previews: photos.map((p) => ({ name: p.file.name, url: p.url })) }]);
        if (fromComposer) {
          setDraft('');
          setPicks([]);
        }
        setContextVersion((v) => v + 1);
        onTurnRef.current();
      } catch (e) {
        setSendError(toApiError(e));
      } finally {
        busy.current = false;
        setPending(null);
        input.current?.focus();
      }
    },
    [picks, sessionId],
  );

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send(draft, true);
    }
  }

  function addPicks(files: File[]) {
    const next = files.map((file) => {
      const url = file.type.startsWith('image/') ? objectUrl(file) : null;
      if (url) urls.current.push(url);
      return { key: `p${++pickSeq}`, file, url };
    });
    setPicks((l) => [...l, ...next]);
    input.current?.focus();
  }

  const sending = pending !== null;
  const canSend = !sending && (draft.trim() !== '' || picks.length > 0);

  return (
    <section className="card diagnosis" aria-labelledby="diagnosis-heading" data-testid="diagnosis">
      <div className="card-head">
        <h3 id="diagnosis-heading">
          Diagnosis <span className="muted">({entries.length} turn{entries.length === 1 ? '' : 's'})</span>
        </h3>
      </div>
      <div className="diagnosis-grid">
        <div className="chat-panel" data-testid="chat-panel">
          <ol
            ref={history}
            className="chat-history"
            role="log"
            aria-live="polite"
            aria-label="Conversation with the diagnostic assistant"
            aria-busy={sending}
            tabIndex={0}
            data-testid="chat-history"
          >
            {entries.length === 0 && !pending && (
              <li className="empty chat-empty" data-testid="turns-empty">
                No conversation yet. Describe the problem (e.g. “roof vent fan doesn’t work”) and the assistant walks you
                through the checks, one question at a time.
              </li>
            )}
            {entries.map((e) => (
              <ChatTurnView key={e.key} entry={e} />
            ))}
            {pending && (
              <li className="chat-turn is-pending" data-testid="chat-pending">
                <div className="bubble tech">
                  <span className="who">Tech</span>
                  <div className="bubble-text">{pending.text}</div>
                  {pending.photos.length > 0 && <PreviewStrip photos={pending.photos} />}
                </div>
                <div className="bubble desk pending-reply" role="status">
                  <span className="who">Desk</span> <span className="muted">sending…</span>
                </div>
              </li>
            )}
          </ol>

          <form
            className="composer"
            onSubmit={(e) => {
              e.preventDefault();
              void send(draft, true);
            }}
          >
            <label htmlFor={`chat-input-${sessionId}`} className="sr-only">
              Message to the diagnostic assistant
            </label>
            <textarea
              id={`chat-input-${sessionId}`}
              ref={input}
              className="chat-input"
              rows={2}
              placeholder="Describe what you see or measured… (Enter sends, Shift+Enter for a new line)"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={onKeyDown}
              readOnly={sending}
              aria-describedby={sendError ? `chat-error-${sessionId}` : undefined}
              aria-invalid={sendError ? true : undefined}
              data-testid="chat-input"
            />
            {picks.length > 0 && (
              <ul className="chat-picks" aria-label="Photos for the next message" data-testid="chat-picks">
                {picks.map((p) => (
                  <li key={p.key} className="chat-pick" data-testid="chat-pick" data-name={p.file.name}>
                    {p.url ? <img src={p.url} alt="" /> : <span className="pick-icon" aria-hidden="true">▣</span>}
                    <span className="pick-name">{p.file.name}</span>
                    <button
                      type="button"
                      className="btn link"
                      aria-label={`Remove ${p.file.name}`}
                      onClick={() => {
                        if (p.url) {
                          URL.revokeObjectURL(p.url);
                          urls.current = urls.current.filter((u) => u !== p.url);
                        }
                        setPicks((l) => l.filter((x) => x.key !== p.key));
                        input.current?.focus();
                      }}
                      disabled={sending}
                    >
                      ×
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div className="composer-actions">
              <button type="button" className="btn" data-testid="chat-attach" onClick={() => fileInput.current?.click()} disabled={sending}>
                Attach photo…
              </button>
              <input
                ref={fileInput}
                type="file"
                accept="image/*,.heic,.heif,application/pdf"
                multiple
                hidden
                data-testid="chat-photo-input"
                onChange={(e) => {
                  const files = Array.from(e.target.files ?? []);
                  e.target.value = '';
                  addPicks(files);
                }}
              />
              <span className="composer-status muted small" aria-live="polite" data-testid="chat-status">
                {sending ? 'Sending…' : ''}
              </span>
              <button type="submit" className="btn primary" data-testid="chat-send" disabled={!canSend}>
                {sending ? 'Sending…' : 'Send'}
              </button>
            </div>
            <div id={`chat-error-${sessionId}`}>
              <ErrorMessage error={sendError} testId="chat-error" />
            </div>
          </form>

          {/* Always there (reserved height), so answers coming and going do not resize the history. */}
          <div className="quick-answers" role="group" aria-label="Quick answers" data-testid="quick-answers">
            {(context?.quick_answers ?? []).map((q) => (
              <button
                key={`${q.label}:${q.text}`}
                type="button"
                className="btn quick"
                data-testid="quick-answer"
                onClick={() => void send(q.text, false)}
                disabled={sending}
                title={`Send “${q.text}”`}
              >
                {q.label}
              </button>
            ))}
          </div>
        </div>

        <ContextPanel
          sessionId={sessionId}
          context={context}
          error={contextError}
          sending={sending}
          onSend={(text) => void send(text, false)}
          reports={reports}
          reportsError={reportsError}
        />
      </div>
    </section>
  );
}

function ChatTurnView({ entry }: { entry: ChatEntry & { previews?: { name: string; url: string | null }[] } }) {
  const r = entry.reply;
  return (
    <li className="chat-turn" data-testid="chat-turn" data-seq={entry.seq} data-kind={r.kind}>
      <div className="bubble tech">
        <span className="who">Tech</span>
        <div className="bubble-text" data-testid="chat-turn-input">
          {entry.input}
        </div>
        {entry.photos.length > 0 ? (
          <ul className="turn-photos" aria-label="Photos sent with this message">
            {entry.photos.map((a) => (
              <li key={a.id}>
                <TurnPhoto artifact={a} />
              </li>
            ))}
          </ul>
        ) : entry.previews && entry.previews.length > 0 ? (
          <PreviewStrip photos={entry.previews} />
        ) : null}
      </div>
      <div className={`bubble desk kind-${r.kind}`}>
        <div className="bubble-head">
          <span className="who">Desk</span>
          <span className={`badge reply-kind kind-${r.kind}`} data-testid="reply-kind" data-kind={r.kind}>
            {replyKindLabel(r.kind)}
          </span>
          {entry.created_at && <span className="muted small">{formatTimestamp(entry.created_at)}</span>}
        </div>
        {r.kind === 'report' ? <ReportText text={r.text} testId="chat-report" /> : (
          <div className="bubble-text" data-testid="chat-reply">
            {r.text}
          </div>
        )}
        <ReplyCitations citations={r.citations} />
      </div>
    </li>
  );
}

/**
 * A reply's citations: knowledge chunks (`source@vN#chunk`) as chips that open
 * the source in the Knowledge workspace; any other citation (a procedure) as
 * the "Sources:" line.
 */
function ReplyCitations({ citations }: { citations: string[] }) {
  if (citations.length === 0) return null;
  const { knowledge, other } = splitCitations(citations);
  return (
    <>
      {knowledge.length > 0 && (
        <ul className="citation-chips" aria-label="Knowledge sources of this reply" data-testid="citation-chips">
          {knowledge.map((ref) => {
            // A billing rule's explanation (rule.CODE@vN#c) opens the rule itself in the Billing workspace.
            const rule = parseRuleCitation(ref.raw);
            return (
              <li key={ref.raw}>
                {rule ? (
                  <button
                    type="button"
                    className="chip citation-chip rule-chip"
                    title={`${ref.raw}: show rule ${rule.rule_code} version ${rule.version_no} in the Billing workspace`}
                    aria-label={`Billing rule ${rule.rule_code}, version ${rule.version_no}: show in the Billing workspace`}
                    data-testid="citation-chip"
                    data-kind="rule"
                    data-citation={ref.raw}
                    onClick={() => openBillingRule({ rule_code: rule.rule_code, version_no: rule.version_no })}
                  >
                    <span aria-hidden="true" className="chip-icon">
                      ¤
                    </span>
                    {rule.rule_code} v{rule.version_no}
                  </button>
                ) : (
                  <button
                    type="button"
                    className="chip citation-chip"
                    title={`${ref.raw}: show this source in the Knowledge workspace`}
                    aria-label={`${citationDescription(ref)}: show in the Knowledge workspace`}
                    data-testid="citation-chip"
                    data-kind="knowledge"
                    data-citation={ref.raw}
                    onClick={() => openKnowledgeSource(ref.source_id)}
                  >
                    <span aria-hidden="true" className="chip-icon">
                      ❝
                    </span>
                    {citationLabel(ref)}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {other.length > 0 && (
        <div className="citations muted small" data-testid="citations">
          Sources: {other.join(', ')}
        </div>
      )}
    </>
  );
}

function PreviewStrip({ photos }: { photos: { name: string; url: string | null }[] }) {
  return (
    <ul className="turn-photos" aria-label="Photos sent with this message">
      {photos.map((p, i) => (
        <li key={i}>
          <div className="turn-photo" title={p.name} data-testid="turn-photo-preview">
            {p.url ? <img src={p.url} alt={p.name} /> : <span className="small">{p.name}</span>}
          </div>
        </li>
      ))}
    </ul>
  );
}

function TurnPhoto({ artifact }: { artifact: Artifact }) {
  const thumb = useThumbnail(artifact);

  const label = artifact.caption ?? artifact.file_name;
  return (
    <div className="turn-photo" title={artifact.file_name} data-testid="turn-photo" data-file-name={artifact.file_name}>
      {artifact.thumbnail === 'none' ? (
        <span className="small">{artifact.file_name}</span>
      ) : thumb.kind === 'ok' ? (
        <img src={thumb.url} alt={label} data-testid="turn-photo-img" />
      ) : thumb.kind === 'error' ? (
        <span className="small error-text" role="img" aria-label={`${label}: ${thumb.error.message}`} data-code={thumb.error.code}>
          {thumb.error.code}
        </span>
      ) : (
        <span className="thumb-loading" aria-label="Loading thumbnail" />
      )}
    </div>
  );
}
