// The body of one session: the guided diagnostic chat (history, input,
// photos, quick answers) first, with a side panel of tabs beside it: the
// context panel (steps, facts, isolation, labor, report), the unit card and
// the photos. On a narrow window the chat is one more tab, so the input is
// always on screen. Every button in the context panel is a chat message: it
// goes through the same `send` as the input, so the engine sees one stream.

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { api, type Artifact, type ReportRevision, type SessionContext, type Turn } from '../api';
import {
  documentCitationText,
  entriesFromTurns,
  entryFromTranscript,
  hasPendingReport,
  mergeEntries,
  procedureCitationText,
  replyKindLabel,
  type ChatEntry,
  type CitationNames,
} from '../chat';
import { t } from '../i18n';
import { formatBytes, formatTimestamp, MAX_FILE_BYTES, readFileBase64 } from '../files';
import { ApiError, toApiError } from '../transport';
import { useMediaQuery, useThumbnail } from '../hooks';
import { openBillingRule, openKnowledgeSource } from '../events';
import { splitCitations } from '../knowledge';
import { parseRuleCitation } from '../billing';
import { artifactProblemLabel, ErrorMessage } from './common';
import { ContextPanel } from './ContextPanel';
import { ReportText } from './ReportText';
import { useSourceFile } from './SourceFile';
import { TabList, tabId, type TabItem } from './Tabs';

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

/** From this many turns on, the history renders only the turns in view (and a few around them). */
export const VIRTUAL_FROM = 60;
/** While a report revision is on its way to the portal, its sync state is re-read this often. */
export const REPORT_SYNC_POLL_MS = 3000;
/** From this window width the side panel sits beside the chat; below it, the chat and the panel are tabs. */
export const SIDE_BY_SIDE_QUERY = '(min-width: 1200px)';

type SideTab = 'progress' | 'unit' | 'photos';

function objectUrl(file: Blob): string | null {
  return typeof URL !== 'undefined' && typeof URL.createObjectURL === 'function' ? URL.createObjectURL(file) : null;
}

export function DiagnosisSection({
  sessionId,
  turns,
  artifacts,
  onTurn,
  unit,
  photos,
}: {
  sessionId: string;
  turns: Turn[];
  artifacts: Artifact[];
  /** A turn was recorded: reload the session (status, turn photos) and the list. */
  onTurn: () => void;
  /** The unit and customer card, a tab of the side panel. */
  unit?: ReactNode;
  /** The photo gallery, a tab of the side panel. */
  photos?: ReactNode;
}) {
  const sideBySide = useMediaQuery(SIDE_BY_SIDE_QUERY);
  const [sideTab, setSideTab] = useState<SideTab>('progress');
  const [sideOpen, setSideOpen] = useState(true);
  // Narrow windows: whether the chat tab is the one shown (else the side tab).
  const [chatShown, setChatShown] = useState(true);
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
  const cameraInput = useRef<HTMLInputElement>(null);
  const history = useRef<HTMLOListElement>(null);
  const busy = useRef(false);
  const urls = useRef<string[]>([]);
  const onTurnRef = useRef(onTurn);
  onTurnRef.current = onTurn;

  // Document titles for the citation chips; without them a chip names its source id in words.
  const [documents, setDocuments] = useState<Record<string, string>>({});
  const [files, setFiles] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    let alive = true;
    api.knowledgeSources().then(
      (r) => {
        if (!alive) return;
        setDocuments(Object.fromEntries(r.sources.map((x) => [x.source_id, x.title])));
        setFiles(new Set(r.sources.filter((x) => x.has_file).map((x) => `${x.source_id}@v${x.version}`)));
      },
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, []);
  const names = useMemo<CitationNames>(() => {
    const parts: Record<string, string> = {};
    for (const st of context?.steps ?? []) parts[st.id] = st.question;
    if (context?.isolation.finding && context.isolation.cause) parts[context.isolation.finding] = context.isolation.cause;
    return { systems: context?.system ? { [context.system.id]: context.system.title } : {}, parts, documents, files };
  }, [context, documents, files]);

  // A session opened or just created: the technician's next move is to type.
  useEffect(() => {
    input.current?.focus({ preventScroll: true });
  }, []);

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

  // A report on its way to the portal: re-read the context until its sync state settles.
  const reportPending = context ? hasPendingReport(context.reports) : false;
  useEffect(() => {
    if (!reportPending) return;
    const timer = setTimeout(() => setContextVersion((v) => v + 1), REPORT_SYNC_POLL_MS);
    return () => clearTimeout(timer);
  }, [reportPending, context]);

  const latestRevision = context?.reports.length ? Math.max(...context.reports.map((r) => r.revision)) : null;
  const [reportsVersion, setReportsVersion] = useState(0);
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
  }, [sessionId, latestRevision, reportsVersion]);

  const stored = entriesFromTurns(turns, artifacts);
  const entries = mergeEntries(stored, local) as (ChatEntry & { previews?: LocalEntry['previews'] })[];

  // A long history renders only what is in view; heights are measured as turns render.
  const virtual = entries.length >= VIRTUAL_FROM;
  const virtualizer = useVirtualizer<HTMLOListElement, HTMLLIElement>({
    count: virtual ? entries.length : 0,
    getScrollElement: () => history.current,
    estimateSize: () => 150,
    overscan: 6,
    paddingStart: 10,
    // Until the history is measured, assume a typical height so the newest turns render at once.
    initialRect: { width: 0, height: 560 },
    getItemKey: (i) => entries[i]?.key ?? i,
  });
  const totalSize = virtual ? virtualizer.getTotalSize() : 0;

  // New content goes to the bottom of a fixed-height history: keep it in view,
  // also when the composer below grows (photos picked, an error shown) and while
  // a long history measures the turns it renders (unless the person scrolled up).
  const quickCount = context?.quick_answers.length ?? 0;
  const stick = useRef(true);
  useLayoutEffect(() => {
    const el = history.current;
    if (el) el.scrollTop = el.scrollHeight;
    stick.current = true;
  }, [entries.length, pending, sendError, picks.length, quickCount]);
  useLayoutEffect(() => {
    const el = history.current;
    if (el && virtual && stick.current) el.scrollTop = el.scrollHeight;
  }, [totalSize, virtual]);

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
              t('chat.fileTooLarge', { name: p.file.name, size: formatBytes(p.file.size), max: formatBytes(MAX_FILE_BYTES) }),
            );
          }
          attachments.push({ file_name: p.file.name, content_base64: await readFileBase64(p.file) });
        }
        const turn = await api.chatTurn({ session_id: sessionId, text, attachments });
        setLocal((l) => [...l, { ...entryFromTranscript(text, turn), previews: photos.map((p) => ({ name: p.file.name, url: p.url })) }]);
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

  const ids = {
    chat: `chat-pane-${sessionId}`,
    side: `side-${sessionId}`,
    progress: `side-progress-${sessionId}`,
    unit: `side-unit-${sessionId}`,
    photos: `side-photos-${sessionId}`,
  };
  const tabPrefix = `session-${sessionId}`;
  const sideTabs: TabItem<SideTab>[] = [{ id: 'progress', label: t('session.tabProgress'), controls: ids.progress }];
  if (unit) sideTabs.push({ id: 'unit', label: t('session.tabUnit'), controls: ids.unit });
  if (photos) sideTabs.push({ id: 'photos', label: t('session.tabPhotos'), controls: ids.photos, count: artifacts.length });
  const allTabs: TabItem<'chat' | SideTab>[] = [{ id: 'chat', label: t('session.tabChat'), controls: ids.chat }, ...sideTabs];
  const chatVisible = sideBySide || chatShown;
  const sideVisible = sideBySide ? sideOpen : !chatShown;
  const sidePanel = (tab: SideTab, content: ReactNode) => (
    <div
      role="tabpanel"
      id={ids[tab]}
      aria-labelledby={tabId(tabPrefix, tab)}
      className={`side-panel side-${tab}`}
      hidden={sideTab !== tab}
      data-testid={`side-${tab}`}
    >
      {content}
    </div>
  );

  return (
    <section
      className={`diagnosis session-body${sideBySide ? ' side-by-side' : ' tabbed'}${sideVisible ? ' with-side' : ''}`}
      aria-labelledby="diagnosis-heading"
      data-testid="diagnosis"
      data-layout={sideBySide ? 'side-by-side' : 'tabbed'}
    >
      {!sideBySide && (
        <TabList
          label={t('session.views')}
          tabs={allTabs}
          selected={chatShown ? 'chat' : sideTab}
          onSelect={(x) => {
            if (x === 'chat') {
              setChatShown(true);
            } else {
              setSideTab(x);
              setChatShown(false);
            }
          }}
          idPrefix={tabPrefix}
          className="session-tabs"
          testId="session-tabs"
        />
      )}
      <div
        className="chat-panel"
        id={ids.chat}
        data-testid="chat-panel"
        hidden={!chatVisible}
        role={sideBySide ? undefined : 'tabpanel'}
        aria-labelledby={sideBySide ? undefined : tabId(tabPrefix, 'chat')}
      >
        <div className="chat-head">
          <h3 id="diagnosis-heading">
            {t('chat.title')} <span className="muted">({t('chat.turns', { n: entries.length })})</span>
          </h3>
          {sideBySide && (
            <button
              type="button"
              className="btn small-btn"
              aria-expanded={sideOpen}
              aria-controls={ids.side}
              onClick={() => setSideOpen((v) => !v)}
              data-testid="toggle-side"
            >
              {sideOpen ? t('session.hidePanel') : t('session.showPanel')}
            </button>
          )}
        </div>
          <ol
            ref={history}
            className={`chat-history${virtual ? ' is-virtual' : ''}`}
            // A list (its turns are list items) that announces new turns as a log would. A virtual list mounts
            // turns while scrolling: those must not be announced; the status below says the news.
            aria-live={virtual ? 'off' : 'polite'}
            aria-relevant="additions"
            aria-label={t('chat.historyLabel')}
            aria-busy={sending}
            tabIndex={0}
            data-testid="chat-history"
            data-virtual={virtual}
            data-count={entries.length}
            onScroll={(e) => {
              const el = e.currentTarget;
              stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
            }}
          >
            {entries.length === 0 && !pending && (
              <li className="empty chat-empty" data-testid="turns-empty">
                {t('chat.empty')}
              </li>
            )}
            {virtual ? (
              <VirtualTurns entries={entries} virtualizer={virtualizer} names={names} />
            ) : (
              entries.map((e) => <ChatTurnView key={e.key} entry={e} names={names} />)
            )}
            {pending && (
              <li className="chat-turn is-pending" data-testid="chat-pending">
                <div className="bubble tech">
                  <span className="who">{t('chat.tech')}</span>
                  <div className="bubble-text">{pending.text}</div>
                  {pending.photos.length > 0 && <PreviewStrip photos={pending.photos} />}
                </div>
                <div className="bubble desk pending-reply" role="status">
                  <span className="who">{t('chat.desk')}</span> <span className="muted">{t('chat.sendingReply')}</span>
                </div>
              </li>
            )}
          </ol>
          {virtual && (
            <div className="sr-only" role="status" aria-live="polite" data-testid="chat-latest">
              {entries.length > 0 ? entries[entries.length - 1].reply.text : ''}
            </div>
          )}

          <form
            className="composer"
            onSubmit={(e) => {
              e.preventDefault();
              void send(draft, true);
            }}
          >
            <label htmlFor={`chat-input-${sessionId}`} className="sr-only">
              {t('chat.inputLabel')}
            </label>
            <textarea
              id={`chat-input-${sessionId}`}
              ref={input}
              className="chat-input"
              rows={2}
              placeholder={t('chat.placeholder')}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={onKeyDown}
              readOnly={sending}
              aria-describedby={sendError ? `chat-error-${sessionId}` : undefined}
              aria-invalid={sendError ? true : undefined}
              data-testid="chat-input"
            />
            {picks.length > 0 && (
              <ul className="chat-picks" aria-label={t('chat.picksLabel')} data-testid="chat-picks">
                {picks.map((p) => (
                  <li key={p.key} className="chat-pick" data-testid="chat-pick" data-name={p.file.name}>
                    {p.url ? <img src={p.url} alt="" /> : <span className="pick-icon" aria-hidden="true">▣</span>}
                    <span className="pick-name">{p.file.name}</span>
                    <button
                      type="button"
                      className="btn link"
                      aria-label={t('chat.removePick', { name: p.file.name })}
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
                {t('chat.attach')}
              </button>
              {/* On a tablet or phone: the camera straight away (the capture attribute); a desktop shows a file picker. */}
              <button type="button" className="btn camera-button" data-testid="chat-camera" onClick={() => cameraInput.current?.click()} disabled={sending}>
                {t('photos.takePhoto')}
              </button>
              <input
                ref={cameraInput}
                type="file"
                accept="image/*"
                capture="environment"
                hidden
                data-testid="chat-camera-input"
                onChange={(e) => {
                  const files = Array.from(e.target.files ?? []);
                  e.target.value = '';
                  addPicks(files);
                }}
              />
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
                {sending ? t('chat.sending') : ''}
              </span>
              <button type="submit" className="btn primary" data-testid="chat-send" disabled={!canSend}>
                {sending ? t('chat.sending') : t('chat.send')}
              </button>
            </div>
            <div id={`chat-error-${sessionId}`}>
              <ErrorMessage error={sendError} testId="chat-error" />
            </div>
          </form>

          {/* Always there (reserved height), so answers coming and going do not resize the history. */}
          <div className="quick-answers" role="group" aria-label={t('chat.quickAnswers')} data-testid="quick-answers">
            {(context?.quick_answers ?? []).map((q) => (
              <button
                key={`${q.label}:${q.text}`}
                type="button"
                className="btn quick"
                data-testid="quick-answer"
                onClick={() => void send(q.text, false)}
                disabled={sending}
                title={t('chat.sendQuick', { text: q.text })}
              >
                {q.label}
              </button>
            ))}
          </div>
        </div>

      <div className="session-side" id={ids.side} hidden={!sideVisible} data-testid="session-side">
        {sideBySide && (
          <TabList
            label={t('session.panelLabel')}
            tabs={sideTabs}
            selected={sideTab}
            onSelect={setSideTab}
            idPrefix={tabPrefix}
            className="side-tabs"
            testId="side-tabs"
          />
        )}
        {sidePanel(
          'progress',
          <ContextPanel
            sessionId={sessionId}
            context={context}
            error={contextError}
            sending={sending}
            onSend={(text) => void send(text, false)}
            reports={reports}
            reportsError={reportsError}
            onReportChanged={() => {
              setContextVersion((v) => v + 1);
              setReportsVersion((v) => v + 1);
              onTurnRef.current();
            }}
          />,
        )}
        {unit && sidePanel('unit', unit)}
        {photos && sidePanel('photos', photos)}
      </div>
    </section>
  );
}

type ViewEntry = ChatEntry & { previews?: { name: string; url: string | null }[] };

/** The turns in view of a long history, between two spacers that stand for the rest. */
function VirtualTurns({
  entries,
  virtualizer,
  names,
}: {
  entries: ViewEntry[];
  virtualizer: ReturnType<typeof useVirtualizer<HTMLOListElement, HTMLLIElement>>;
  names: CitationNames;
}) {
  const items = virtualizer.getVirtualItems();
  if (items.length === 0) return null;
  const top = Math.max(0, items[0].start - 10);
  const bottom = Math.max(0, virtualizer.getTotalSize() - items[items.length - 1].end);
  return (
    <>
      <li className="chat-spacer" aria-hidden="true" style={{ height: top }} data-testid="chat-spacer-top" />
      {items.map((it) => (
        <ChatTurnView
          key={it.key}
          entry={entries[it.index]}
          index={it.index}
          setSize={entries.length}
          measure={virtualizer.measureElement}
          names={names}
        />
      ))}
      <li className="chat-spacer" aria-hidden="true" style={{ height: bottom }} data-testid="chat-spacer-bottom" />
    </>
  );
}

function ChatTurnView({
  entry,
  index,
  setSize,
  measure,
  names,
}: {
  entry: ViewEntry;
  index?: number;
  setSize?: number;
  measure?: (el: HTMLLIElement | null) => void;
  names: CitationNames;
}) {
  const r = entry.reply;
  return (
    <li
      ref={measure}
      className="chat-turn"
      data-testid="chat-turn"
      data-seq={entry.seq}
      data-kind={r.kind}
      data-index={index}
      aria-posinset={index != null ? index + 1 : undefined}
      aria-setsize={setSize}
    >
      <div className="bubble tech">
        <span className="who">{t('chat.tech')}</span>
        <div className="bubble-text" data-testid="chat-turn-input">
          {entry.input}
        </div>
        {entry.photos.length > 0 ? (
          <ul className="turn-photos" aria-label={t('chat.turnPhotos')}>
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
          <span className="who">{t('chat.desk')}</span>
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
        <ReplyCitations citations={r.citations} names={names} />
      </div>
    </li>
  );
}

/**
 * A reply's citations in words: knowledge chunks (`source@vN#chunk`) as chips
 * naming the document and its part, which open it in the Knowledge workspace,
 * or, for a PDF the shop imported, open the PDF at the page the chunk is on;
 * a procedure's as its title and the step or finding used. The ids themselves
 * are under "Details".
 */
function ReplyCitations({ citations, names }: { citations: string[]; names: CitationNames }) {
  const file = useSourceFile();
  if (citations.length === 0) return null;
  const { knowledge, other } = splitCitations(citations);
  const otherText = other.map((c) => procedureCitationText(c, names) ?? c);
  return (
    <>
      {knowledge.length > 0 && (
        <ul className="citation-chips" aria-label={t('chat.citationsLabel')} data-testid="citation-chips">
          {knowledge.map((ref) => {
            // A billing rule's explanation (rule.CODE@vN#c) opens the rule itself in the Billing workspace.
            const rule = parseRuleCitation(ref.raw);
            return (
              <li key={ref.raw}>
                {rule ? (
                  <button
                    type="button"
                    className="chip citation-chip rule-chip"
                    title={t('chat.ruleChipTitle', { raw: ref.raw, code: rule.rule_code, version: rule.version_no })}
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
                ) : names.files?.has(`${ref.source_id}@v${ref.version}`) ? (
                  <button
                    type="button"
                    className="chip citation-chip pdf-chip"
                    title={t('chat.pdfChipTitle', { raw: ref.raw })}
                    data-testid="citation-chip"
                    data-kind="pdf"
                    data-citation={ref.raw}
                    onClick={() => void file.open(ref.source_id, ref.version, { chunkId: ref.raw })}
                  >
                    <span aria-hidden="true" className="chip-icon">
                      ▤
                    </span>
                    {documentCitationText(ref, names)}
                  </button>
                ) : (
                  <button
                    type="button"
                    className="chip citation-chip"
                    title={t('chat.sourceChipTitle', { raw: ref.raw })}
                    data-testid="citation-chip"
                    data-kind="knowledge"
                    data-citation={ref.raw}
                    onClick={() => openKnowledgeSource(ref.source_id)}
                  >
                    <span aria-hidden="true" className="chip-icon">
                      ❝
                    </span>
                    {documentCitationText(ref, names)}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <ErrorMessage error={file.error} testId="citation-file-error" />
      {file.dialog}
      {other.length > 0 && (
        <div className="citations small" data-testid="citations">
          {t('chat.sources')} {otherText.join('; ')}
        </div>
      )}
      <details className="tech-details reply-details" data-testid="reply-details">
        <summary>{t('details.summary')}</summary>
        <code className="small">{citations.join(', ')}</code>
      </details>
    </>
  );
}

function PreviewStrip({ photos }: { photos: { name: string; url: string | null }[] }) {
  return (
    <ul className="turn-photos" aria-label={t('chat.turnPhotos')}>
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
          {artifactProblemLabel(thumb.error.code)}
        </span>
      ) : (
        <span className="thumb-loading" aria-label={t('chat.loadingThumb')} />
      )}
    </div>
  );
}
