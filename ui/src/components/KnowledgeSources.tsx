// The stored knowledge sources: one row per source version, filterable by
// doc_type and by title / id.

import { useEffect, useId, useRef, useState } from 'react';
import type { KnowledgeSource } from '../api';
import { formatTimestamp } from '../files';
import { countByDocType, docTypeLabel, filterSources, formatScope, formatValidity, sourceState } from '../knowledge';
import type { ApiError } from '../transport';
import { ErrorMessage } from './common';
import { t, type MessageKey } from '../i18n';

const STATE_LABEL: Record<string, MessageKey> = { active: 'sources.active', superseded: 'sources.superseded', inactive: 'sources.inactive' };

export function KnowledgeSources({
  sources,
  error,
  loading,
  onReload,
  fresh,
  showSource,
}: {
  sources: KnowledgeSource[] | null;
  error: ApiError | null;
  loading: boolean;
  onReload: () => void;
  fresh: Set<string>;
  showSource: { sourceId: string; seq: number } | null;
}) {
  const [docType, setDocType] = useState('');
  const [text, setText] = useState('');
  const id = useId();
  const card = useRef<HTMLElement>(null);

  // A citation chip asked for a source: filter to it and bring the table into view.
  useEffect(() => {
    if (!showSource) return;
    setDocType('');
    setText(showSource.sourceId);
    setTimeout(() => card.current?.scrollIntoView?.({ block: 'start' }), 0);
  }, [showSource]);

  const all = sources ?? [];
  const counts = countByDocType(all);
  const shown = filterSources(all, docType, text);

  return (
    <section ref={card} className="card knowledge-sources" aria-labelledby={`${id}-h`} data-testid="knowledge-sources">
      <div className="card-head">
        <h3 id={`${id}-h`}>
          {t('knowledge.sources')}{' '}
          <span className="muted" data-testid="sources-count">
            ({shown.length === all.length ? all.length : t('common.xOfY', { x: shown.length, y: all.length })})
          </span>
        </h3>
        <button type="button" className="btn link" onClick={onReload} disabled={loading} aria-busy={loading} data-testid="sources-reload">
          {loading ? t('common.loadingCap') : t('common.reload')}
        </button>
      </div>
      <div className="sources-filters">
        <label className="field inline">
          <span>{t('knowledge.type')}</span>
          <select value={docType} onChange={(e) => setDocType(e.target.value)} data-testid="sources-doc-type">
            <option value="">{t('sources.allTypes', { n: all.length })}</option>
            {[...counts.entries()].map(([dt, n]) => (
              <option key={dt} value={dt}>
                {docTypeLabel(dt)} ({n})
              </option>
            ))}
          </select>
        </label>
        <label className="field inline grow">
          <span>{t('sources.find')}</span>
          <input
            type="search"
            value={text}
            placeholder={t('sources.findPlaceholder')}
            onChange={(e) => setText(e.target.value)}
            data-testid="sources-filter"
          />
        </label>
      </div>
      <ErrorMessage error={error} testId="sources-error" />
      {sources === null && !error ? (
        <p className="muted">{t('sources.loading')}</p>
      ) : shown.length === 0 ? (
        <p className="empty" data-testid="sources-empty">
          {all.length === 0 ? t('sources.empty') : t('sources.noMatch')}
        </p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t('sources.table')}>
          <table className="sources-table" data-testid="sources-table">
            <thead>
              <tr>
                <th scope="col">{t('sources.col.title')}</th>
                <th scope="col">{t('sources.col.id')}</th>
                <th scope="col">{t('sources.col.version')}</th>
                <th scope="col">{t('knowledge.type')}</th>
                <th scope="col">{t('sources.col.lang')}</th>
                <th scope="col">{t('sources.col.scope')}</th>
                <th scope="col">{t('sources.col.valid')}</th>
                <th scope="col">{t('sources.col.state')}</th>
                <th scope="col" title={t('sources.col.asksFirstTitle')}>
                  {t('sources.col.asksFirst')}
                </th>
                <th scope="col">{t('knowledge.handoff')}</th>
                <th scope="col">{t('sources.col.chunks')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((s) => {
                const state = sourceState(s);
                const isNew = fresh.has(s.source_id);
                return (
                  <tr
                    key={`${s.source_id}@${s.version}`}
                    className={`state-${state}${isNew ? ' is-new' : ''}`}
                    data-testid="source-row"
                    data-source-id={s.source_id}
                    data-version={s.version}
                    data-state={state}
                  >
                    <th scope="row" className="source-title">
                      {s.title}
                      {isNew && <span className="badge new-badge">{t('ingest.new')}</span>}
                      <div className="muted small" title={t('sources.ingested', { when: formatTimestamp(s.ingested_at) })}>
                        {s.origin}
                      </div>
                    </th>
                    <td>
                      <code className="source-id">{s.source_id}</code>
                    </td>
                    <td>v{s.version}</td>
                    <td>
                      <span className={`badge doc-type doc-${s.doc_type}`}>{docTypeLabel(s.doc_type)}</span>
                    </td>
                    <td>{s.language}</td>
                    <td data-testid="source-scope">{formatScope(s)}</td>
                    <td className="nowrap" data-testid="source-validity">
                      {formatValidity(s)}
                    </td>
                    <td>
                      <span
                        className={`badge source-state ${state}`}
                        data-testid="source-state"
                        title={s.superseded_at ? t('sources.supersededAt', { when: formatTimestamp(s.superseded_at) }) : undefined}
                      >
                        {t(STATE_LABEL[state])}
                      </span>
                    </td>
                    <td data-testid="source-questions">{s.clarifying_questions > 0 ? s.clarifying_questions : '—'}</td>
                    <td>
                      {s.requires_handoff ? (
                        <span className="badge handoff" data-testid="source-handoff" title={t('sources.handoffTitle')}>
                          {t('knowledge.handoff')}
                        </span>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>{s.chunks}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
