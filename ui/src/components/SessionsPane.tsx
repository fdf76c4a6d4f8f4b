import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { api, SESSION_STATUSES, type Session, type SessionListItem, type SessionStatus } from '../api';
import { formatTimestamp } from '../files';
import { useDebounced } from '../hooks';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage, StatusBadge, statusLabel } from './common';
import { NewSessionForm } from './NewSessionForm';
import { t } from '../i18n';

type StatusFilter = 'all' | SessionStatus;

export const SEARCH_DEBOUNCE_MS = 250;
/** From this many sessions the list renders only the rows in view: a shop's year is thousands. */
export const VIRTUAL_SESSIONS_FROM = 150;
const ROW_ESTIMATE_PX = 78;

type SessionListAnswer = Awaited<ReturnType<typeof api.sessionList>>;
let primedList: Promise<SessionListAnswer> | null = null;

/** Asks for the unfiltered session list before React's first render
 * (main.tsx), so the list's answer does not wait for the window's first
 * paint of the app. The pane's first load takes this answer instead of
 * asking again. */
export function primeSessionList(): void {
  primedList = api.sessionList({});
  // Handled when the pane takes it; never an unhandled rejection meanwhile.
  primedList.catch(() => undefined);
}

function takePrimedList(): Promise<SessionListAnswer> | null {
  const primed = primedList;
  primedList = null;
  return primed;
}

export function SessionsPane({
  selectedId,
  onSelect,
  listVersion,
  onCreated,
}: {
  selectedId: string | null;
  onSelect: (id: string) => void;
  /** Bumped by the app whenever the list must be reloaded. */
  listVersion: number;
  onCreated: (s: Session) => void;
}) {
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [showForm, setShowForm] = useState(false);
  const [sessions, setSessions] = useState<SessionListItem[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(false);
  const debouncedQuery = useDebounced(query.trim(), SEARCH_DEBOUNCE_MS);
  const requestSeq = useRef(0);

  useEffect(() => {
    const seq = ++requestSeq.current;
    setLoading(true);
    const unfiltered = debouncedQuery === '' && status === 'all';
    const request =
      (unfiltered && takePrimedList()) ||
      api.sessionList({
        query: debouncedQuery || undefined,
        status: status === 'all' ? undefined : status,
      });
    request
      .then(
        (r) => {
          if (seq !== requestSeq.current) return; // a newer search is under way
          setSessions(r.sessions);
          setError(null);
        },
        (e) => {
          if (seq !== requestSeq.current) return;
          setError(toApiError(e));
        },
      )
      .finally(() => {
        if (seq === requestSeq.current) setLoading(false);
      });
  }, [debouncedQuery, status, listVersion]);

  const filtered = debouncedQuery !== '' || status !== 'all';
  const pane = useRef<HTMLElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const virtual = (sessions?.length ?? 0) >= VIRTUAL_SESSIONS_FROM;
  const virtualizer = useVirtualizer<HTMLElement, HTMLLIElement>({
    count: virtual && sessions ? sessions.length : 0,
    getScrollElement: () => pane.current,
    estimateSize: () => ROW_ESTIMATE_PX,
    overscan: 10,
    // The toolbar and the form sit above the list inside the scrolling pane.
    scrollMargin: list.current?.offsetTop ?? 0,
    initialRect: { width: 0, height: 800 },
    getItemKey: (i) => sessions?.[i]?.id ?? i,
  });

  // The list is one Tab stop (the row last focused, else the open session, else the first); the arrow keys,
  // Home and End move between rows, so the rest of the page is not 14 Tabs further away.
  const [activeId, setActiveId] = useState<string | null>(null);
  const ids = sessions?.map((x) => x.id) ?? [];
  const tabStop = activeId && ids.includes(activeId) ? activeId : selectedId && ids.includes(selectedId) ? selectedId : (ids[0] ?? null);

  function onListKeyDown(e: KeyboardEvent<HTMLUListElement>) {
    const from = (e.target as HTMLElement).closest<HTMLElement>('[data-session-id]')?.dataset.sessionId;
    const i = from ? ids.indexOf(from) : -1;
    if (i < 0) return;
    const next =
      e.key === 'ArrowDown' ? Math.min(i + 1, ids.length - 1) : e.key === 'ArrowUp' ? Math.max(i - 1, 0) : e.key === 'Home' ? 0 : e.key === 'End' ? ids.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    const id = ids[next];
    setActiveId(id);
    if (virtual) virtualizer.scrollToIndex(next);
    // A virtual row may only exist after the scroll renders it.
    const focus = (tries: number) => {
      const el = list.current?.querySelector<HTMLElement>(`[data-testid="session-row"][data-session-id="${id}"]`);
      if (el) el.focus();
      else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
    };
    focus(10);
  }

  const row = (s: SessionListItem) => (
    <button
      type="button"
      className={`session-row${s.id === selectedId ? ' selected' : ''}`}
      data-testid="session-row"
      data-session-id={s.id}
      aria-current={s.id === selectedId ? 'true' : undefined}
      tabIndex={s.id === tabStop ? 0 : -1}
      onFocus={() => setActiveId(s.id)}
      onClick={() => onSelect(s.id)}
    >
      <div className="row-top">
        <span className="row-complaint" data-testid="row-complaint">
          {s.complaint}
        </span>
        <StatusBadge status={s.stage} />
      </div>
      <div className="row-sub">
        <span data-testid="row-customer">{s.customer ?? t('sessions.noCustomer')}</span>
        <span className="sep">·</span>
        <span data-testid="row-unit">{s.unit.make_model ?? t('sessions.unknownUnit')}</span>
      </div>
      <div className="row-foot">
        <span title={s.updated_at} data-testid="row-updated">
          {t('sessions.updated', { when: formatTimestamp(s.updated_at) })}
        </span>
        <span className="photo-count" data-testid="row-photos" data-count={s.artifact_count}>
          {t('sessions.photos', { n: s.artifact_count })}
        </span>
      </div>
    </button>
  );

  return (
    <aside className="sessions-pane" data-testid="sessions-pane" ref={pane}>
      <div className="pane-toolbar">
        <input
          type="search"
          className="search"
          placeholder={t('sessions.searchPlaceholder')}
          aria-label={t('sessions.search')}
          data-testid="session-search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <select
          aria-label={t('sessions.filterStatus')}
          data-testid="status-filter"
          value={status}
          onChange={(e) => setStatus(e.target.value as StatusFilter)}
        >
          <option value="all">{t('sessions.allStatuses')}</option>
          {SESSION_STATUSES.map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn primary"
          data-testid="new-session-button"
          onClick={() => setShowForm((v) => !v)}
          aria-expanded={showForm}
        >
          {showForm ? t('common.close') : t('sessions.new')}
        </button>
      </div>

      {showForm && (
        <NewSessionForm
          onCancel={() => setShowForm(false)}
          onCreated={(s) => {
            setShowForm(false);
            onCreated(s);
          }}
        />
      )}

      <ErrorMessage error={error} testId="sessions-error" />

      <div className="list-meta" aria-live="polite">
        {sessions && (
          <span data-testid="sessions-count">
            {filtered ? t('sessions.countMatch', { n: sessions.length }) : t('sessions.count', { n: sessions.length })}
          </span>
        )}
        {loading && <span className="muted"> · {t('common.loading')}</span>}
      </div>

      {virtual && sessions ? (
        <ul
          className="session-list virtual"
          data-testid="session-list"
          onKeyDown={onListKeyDown}
          ref={list}
          style={{ height: virtualizer.getTotalSize() }}
        >
          {virtualizer.getVirtualItems().map((v) => (
            <li
              key={v.key}
              data-index={v.index}
              ref={virtualizer.measureElement}
              style={{ transform: `translateY(${v.start - virtualizer.options.scrollMargin}px)` }}
            >
              {row(sessions[v.index])}
            </li>
          ))}
        </ul>
      ) : (
        <ul className="session-list" data-testid="session-list" ref={list} onKeyDown={onListKeyDown}>
          {sessions?.map((s) => <li key={s.id}>{row(s)}</li>)}
        </ul>
      )}
      {sessions && sessions.length === 0 && (
        <p className="empty" data-testid="sessions-empty">
          {filtered ? t('sessions.noMatch') : t('sessions.empty')}
        </p>
      )}
    </aside>
  );
}
