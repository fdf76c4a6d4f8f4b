// The header's sync indicator (sync_status, polled) and the outbox view it
// opens: failed and conflicting items with their reasons and a Retry each.

import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { api, type OutboxItem, type SyncStatus } from '../api';
import { onSyncChanged } from '../events';
import { formatTimestamp } from '../files';
import { t } from '../i18n';
import { canRetry, itemKindLabel, itemReason, itemStatusLabel, parseConflict, revisionText, sortProblems, syncSummary, urlOrigin } from '../sync';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage, Modal } from './common';

export const SYNC_POLL_MS = 4000;

/** sync_status every few seconds (and right after something queued work), keeping the last good answer on an error. */
export function useSyncStatus(intervalMs = SYNC_POLL_MS): { status: SyncStatus | null; error: ApiError | null; refresh: () => void } {
  const [status, setStatus] = useState<SyncStatus | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);

  useEffect(() => onSyncChanged(refresh), [refresh]);

  useEffect(() => {
    let alive = true;
    api.syncStatus().then(
      (s) => {
        if (!alive) return;
        setStatus(s);
        setError(null);
      },
      (e) => alive && setError(toApiError(e)),
    );
    const timer = setTimeout(() => alive && setTick((n) => n + 1), intervalMs);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [tick, intervalMs]);

  return { status, error, refresh };
}

export function SyncIndicator({
  status,
  error,
  onOpen,
}: {
  status: SyncStatus | null;
  error: ApiError | null;
  onOpen: () => void;
}) {
  const summary = status ? syncSummary(status) : null;
  const kind = summary?.kind ?? (error ? 'error' : 'loading');
  const tone = summary?.tone ?? (error ? 'bad' : 'off');
  const label = summary?.label ?? (error ? t('sync.unavailable') : t('sync.checking'));
  const last = status?.last_success ? t('sync.lastSuccess', { when: formatTimestamp(status.last_success) }) : t('sync.neverSynced');
  const extra = summary?.extra.join(' · ') ?? '';
  const descriptionId = useId();
  const title = [label, extra, status?.portal_url ? urlOrigin(status.portal_url) : '', status ? last : error?.message ?? '']
    .filter(Boolean)
    .join(' — ');
  return (
    <>
      <button
        type="button"
        className={`sync-indicator tone-${tone}`}
        onClick={onOpen}
        title={title}
        // The name is the visible text (so voice control can say it); the rest is its description.
        aria-describedby={descriptionId}
        aria-haspopup="dialog"
        data-testid="sync-indicator"
        data-kind={kind}
        data-pending={status?.pending ?? ''}
      >
        <span className="sync-dot" aria-hidden="true" />
        <span className="sync-text">
          <span className="sync-label" data-testid="sync-label">
            {label}
          </span>
          <span className="sync-last muted" data-testid="sync-last">
            {status ? last : error ? t('sync.retrying') : '\u00a0'}
          </span>
        </span>
      </button>
      {/* Outside the button, so it describes it without becoming part of its name. */}
      <span id={descriptionId} className="sr-only">
        {`${t('sync.indicatorLabel')}: ${title}. ${t('sync.openOutbox')}`}
      </span>
      {/* A change of state ("Offline", "1 failed") is announced; the every-poll details are not. */}
      <span className="sr-only" role="status" data-testid="sync-announce">
        {summary ? `${t('sync.indicatorLabel')}: ${label}` : ''}
      </span>
    </>
  );
}

export function OutboxDialog({
  status,
  error,
  onRefresh,
  onClose,
  onOpenSettings,
}: {
  status: SyncStatus | null;
  error: ApiError | null;
  onRefresh: () => void;
  onClose: () => void;
  onOpenSettings: () => void;
}) {
  const summary = status ? syncSummary(status) : null;
  const problems = status ? sortProblems(status.problems) : [];
  return (
    <Modal title={t('outbox.title')} onClose={onClose} closeLabel={t('common.close')} testId="outbox-dialog" wide>
      <ErrorMessage error={error} testId="outbox-error" />
      {status && summary && (
        <div className="outbox-summary" data-testid="outbox-summary" data-state={status.state}>
          <p>
            <span className={`badge sync-badge tone-${summary.tone}`} data-testid="outbox-state">
              {summary.label}
            </span>{' '}
            {status.portal_url ? (
              <span className="muted">
                {t('outbox.portal')}: <code data-testid="outbox-portal">{urlOrigin(status.portal_url)}</code>
              </span>
            ) : (
              <span className="muted">{t('outbox.noPortal')}</span>
            )}
          </p>
          {status.paused && (
            <p className="warn-text" data-testid="outbox-paused">
              {t('outbox.pausedBecause', { reason: status.paused })}
            </p>
          )}
          <dl className="outbox-counts">
            {(
              [
                ['pending', status.pending],
                ['syncing', status.syncing],
                ['waiting', status.waiting],
                ['failed', status.failed],
                ['conflicts', status.conflicts],
                ['done', status.done],
              ] as const
            ).map(([k, v]) => (
              <div key={k} data-testid={`outbox-count-${k}`} data-value={v}>
                <dt>{t(`outbox.count.${k}`)}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
          <p className="muted small" data-testid="outbox-last-success">
            {status.last_success ? t('sync.lastSuccess', { when: formatTimestamp(status.last_success) }) : t('sync.neverSynced')}
          </p>
        </div>
      )}
      <div className="outbox-actions">
        <button type="button" className="btn" onClick={onRefresh} data-testid="outbox-refresh">
          {t('common.refresh')}
        </button>
        <button type="button" className="btn link" onClick={onOpenSettings} data-testid="outbox-settings">
          {t('outbox.portalSettings')}
        </button>
      </div>
      <h3 className="outbox-heading">{t('outbox.problems')}</h3>
      {problems.length === 0 ? (
        <p className="muted" data-testid="outbox-empty">
          {t('outbox.empty')}
        </p>
      ) : (
        <ul className="outbox-list" data-testid="outbox-list">
          {problems.map((item) => (
            <OutboxRow key={item.id} item={item} onRetried={onRefresh} />
          ))}
        </ul>
      )}
    </Modal>
  );
}

function OutboxRow({ item, onRetried }: { item: OutboxItem; onRetried: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const conflict = item.status === 'conflict' ? parseConflict(item.last_error) : null;
  const reason = itemReason(item);

  async function retry() {
    setBusy(true);
    setError(null);
    try {
      await api.syncRetry(item.id);
      if (!alive.current) return;
      setDone(true);
      onRetried();
    } catch (e) {
      if (alive.current) setError(toApiError(e));
    } finally {
      if (alive.current) setBusy(false);
    }
  }

  const errId = `outbox-err-${item.id}`;
  return (
    <li className={`outbox-item status-${item.status}`} data-testid="outbox-item" data-status={item.status} data-kind={item.kind} data-item={item.id}>
      <div className="outbox-item-head">
        <span className={`badge outbox-status status-${item.status}`}>{itemStatusLabel(item.status)}</span>
        <strong>{itemKindLabel(item.kind)}</strong>
        <code className="muted small outbox-target">{item.target}</code>
        <span className="muted small">
          {t('outbox.attempts', { n: item.attempts })} · {formatTimestamp(item.created_at)}
        </span>
      </div>
      {reason && (
        <p className="outbox-reason" data-testid="outbox-reason">
          {reason}
        </p>
      )}
      {conflict && (
        <dl className="outbox-conflict" data-testid="outbox-conflict">
          <div>
            <dt>{t('outbox.localRevision')}</dt>
            <dd data-testid="conflict-local">{revisionText(conflict.local)}</dd>
          </div>
          <div>
            <dt>{t('outbox.portalRevision')}</dt>
            <dd data-testid="conflict-portal">{revisionText(conflict.portal)}</dd>
          </div>
        </dl>
      )}
      {item.status === 'pending' && item.next_attempt_at && (
        <p className="muted small">{t('outbox.nextAttempt', { when: formatTimestamp(item.next_attempt_at) })}</p>
      )}
      {canRetry(item) && (
        <div className="outbox-item-actions">
          <button
            type="button"
            className="btn"
            onClick={retry}
            disabled={busy || done}
            aria-busy={busy}
            aria-describedby={error ? errId : undefined}
            data-testid="outbox-retry"
          >
            {busy ? t('outbox.retrying') : done ? t('outbox.requeued') : t('outbox.retry')}
          </button>
        </div>
      )}
      <div id={errId}>
        <ErrorMessage error={error} testId="outbox-retry-error" />
      </div>
    </li>
  );
}
