// The stored knowledge sources: one row per source version, filterable by
// doc_type and by title / id.

import { useEffect, useId, useRef, useState } from 'react';
import type { KnowledgeSource } from '../api';
import { formatTimestamp } from '../files';
import { countByDocType, docTypeLabel, filterSources, formatScope, formatValidity, sourceState } from '../knowledge';
import type { ApiError } from '../transport';
import { ErrorMessage } from './common';

const STATE_LABEL = { active: 'Active', superseded: 'Superseded', inactive: 'Not in effect' } as const;

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
          Sources{' '}
          <span className="muted" data-testid="sources-count">
            ({shown.length === all.length ? all.length : `${shown.length} of ${all.length}`})
          </span>
        </h3>
        <button type="button" className="btn link" onClick={onReload} disabled={loading} aria-busy={loading} data-testid="sources-reload">
          {loading ? 'Loading…' : 'Reload'}
        </button>
      </div>
      <div className="sources-filters">
        <label className="field inline">
          <span>Type</span>
          <select value={docType} onChange={(e) => setDocType(e.target.value)} data-testid="sources-doc-type">
            <option value="">All types ({all.length})</option>
            {[...counts.entries()].map(([t, n]) => (
              <option key={t} value={t}>
                {docTypeLabel(t)} ({n})
              </option>
            ))}
          </select>
        </label>
        <label className="field inline grow">
          <span>Find</span>
          <input
            type="search"
            value={text}
            placeholder="Title or source id"
            onChange={(e) => setText(e.target.value)}
            data-testid="sources-filter"
          />
        </label>
      </div>
      <ErrorMessage error={error} testId="sources-error" />
      {sources === null && !error ? (
        <p className="muted">Loading sources…</p>
      ) : shown.length === 0 ? (
        <p className="empty" data-testid="sources-empty">
          {all.length === 0 ? 'No documents yet. Drop some in above.' : 'No source matches these filters.'}
        </p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Sources table">
          <table className="sources-table" data-testid="sources-table">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Source id</th>
                <th scope="col">Ver.</th>
                <th scope="col">Type</th>
                <th scope="col">Lang.</th>
                <th scope="col">Scope</th>
                <th scope="col">Valid</th>
                <th scope="col">State</th>
                <th scope="col" title="Clarifying questions the document asks before it is applied">
                  Asks first
                </th>
                <th scope="col">Hand-off</th>
                <th scope="col">Chunks</th>
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
                      {isNew && <span className="badge new-badge">New</span>}
                      <div className="muted small" title={`Ingested ${formatTimestamp(s.ingested_at)}`}>
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
                        title={s.superseded_at ? `Superseded ${formatTimestamp(s.superseded_at)}` : undefined}
                      >
                        {STATE_LABEL[state]}
                      </span>
                    </td>
                    <td data-testid="source-questions">{s.clarifying_questions > 0 ? s.clarifying_questions : '—'}</td>
                    <td>
                      {s.requires_handoff ? (
                        <span className="badge handoff" data-testid="source-handoff" title="The session is escalated after an answer from this document">
                          Hand-off
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
