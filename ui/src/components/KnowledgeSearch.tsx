// Search the knowledge store with filters; results show the snippet with the
// query's words marked, the chunk id and the title.

import { useId, useRef, useState } from 'react';
import { api, DOC_TYPES, LANGUAGES, type KnowledgeHit } from '../api';
import { docTypeLabel, EMPTY_SEARCH, highlight, queryTerms, searchPayload, type SearchForm } from '../knowledge';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { t } from '../i18n';

const SEARCH_LANGUAGES = [...LANGUAGES, { value: 'zh', label: '中文' }];

/** The snippet with the query's words in <mark>. */
export function Highlighted({ text, query, testId }: { text: string; query: string; testId?: string }) {
  const terms = queryTerms(query);
  return (
    <span data-testid={testId}>
      {highlight(text, terms).map((s, i) => (s.mark ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}
    </span>
  );
}

export function KnowledgeSearch() {
  const [form, setForm] = useState<SearchForm>(EMPTY_SEARCH);
  const [results, setResults] = useState<{ query: string; hits: KnowledgeHit[] } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [searching, setSearching] = useState(false);
  const [showFilters, setShowFilters] = useState(true);
  const seq = useRef(0);
  const id = useId();

  const set = <K extends keyof SearchForm>(k: K, v: SearchForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const activeFilters = [form.doc_type, form.city_code, form.lot_code, form.at_time, form.language].filter((v) => v.trim() !== '').length + (form.include_inactive ? 1 : 0);

  async function search() {
    const payload = searchPayload(form);
    if (payload.query === '') {
      setResults(null);
      setError(toApiError({ code: 'invalid_input', message: t('knowledge.typeQuery') }));
      return;
    }
    const mine = ++seq.current;
    setSearching(true);
    setError(null);
    try {
      const r = await api.knowledgeSearch(payload);
      if (mine !== seq.current) return;
      setResults({ query: payload.query ?? '', hits: r.results });
    } catch (e) {
      if (mine !== seq.current) return;
      setError(toApiError(e));
    } finally {
      if (mine === seq.current) setSearching(false);
    }
  }

  return (
    <section className="card knowledge-search" aria-labelledby={`${id}-h`} data-testid="knowledge-search">
      <div className="card-head">
        <h3 id={`${id}-h`}>{t('knowledge.search')}</h3>
      </div>
      <form
        className="search-form"
        role="search"
        aria-label={t('knowledge.searchStore')}
        onSubmit={(e) => {
          e.preventDefault();
          void search();
        }}
      >
        <div className="search-row">
          <label htmlFor={`${id}-q`} className="sr-only">
            {t('knowledge.searchWords')}
          </label>
          <input
            id={`${id}-q`}
            type="search"
            value={form.query}
            placeholder={t('knowledge.searchPlaceholder')}
            onChange={(e) => set('query', e.target.value)}
            aria-describedby={error ? `${id}-err` : undefined}
            aria-invalid={error ? true : undefined}
            data-testid="knowledge-query"
          />
          <button type="submit" className="btn primary" disabled={searching} aria-busy={searching} data-testid="knowledge-search-button">
            {searching ? t('knowledge.searching') : t('knowledge.search')}
          </button>
          <button
            type="button"
            className="btn"
            aria-expanded={showFilters}
            aria-controls={`${id}-filters`}
            onClick={() => setShowFilters((s) => !s)}
            data-testid="knowledge-filters-toggle"
          >
            {t('knowledge.filters')}{activeFilters > 0 ? ` (${activeFilters})` : ''}
          </button>
        </div>
        <fieldset id={`${id}-filters`} className="search-filters" hidden={!showFilters}>
          <legend className="sr-only">{t('knowledge.filters')}</legend>
          <label className="field">
            <span>{t('knowledge.type')}</span>
            <select value={form.doc_type} onChange={(e) => set('doc_type', e.target.value)} data-testid="filter-doc-type">
              <option value="">{t('common.any')}</option>
              {DOC_TYPES.map((dt) => (
                <option key={dt} value={dt}>
                  {docTypeLabel(dt)}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>{t('knowledge.city')}</span>
            <input value={form.city_code} placeholder={t('knowledge.cityPlaceholder')} maxLength={12} onChange={(e) => set('city_code', e.target.value)} data-testid="filter-city" />
          </label>
          <label className="field">
            <span>{t('knowledge.lot')}</span>
            <input value={form.lot_code} placeholder={t('knowledge.lotPlaceholder')} maxLength={12} onChange={(e) => set('lot_code', e.target.value)} data-testid="filter-lot" />
          </label>
          <label className="field">
            <span>{t('knowledge.inEffectOn')}</span>
            <input type="date" value={form.at_time} onChange={(e) => set('at_time', e.target.value)} data-testid="filter-at" />
          </label>
          <label className="field">
            <span>{t('newSession.language')}</span>
            <select value={form.language} onChange={(e) => set('language', e.target.value)} data-testid="filter-language">
              <option value="">{t('common.any')}</option>
              {SEARCH_LANGUAGES.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>{t('knowledge.results')}</span>
            <select value={form.top_k} onChange={(e) => set('top_k', Number(e.target.value))} data-testid="filter-top-k">
              {[5, 10, 20, 50].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={form.include_inactive} onChange={(e) => set('include_inactive', e.target.checked)} data-testid="filter-inactive" />
            {t('knowledge.includeInactive')}
          </label>
          {activeFilters > 0 && (
            <button type="button" className="btn link" onClick={() => setForm((f) => ({ ...EMPTY_SEARCH, query: f.query, top_k: f.top_k }))}>
              {t('knowledge.clearFilters')}
            </button>
          )}
        </fieldset>
        <div id={`${id}-err`}>
          <ErrorMessage error={error} testId="search-error" />
        </div>
      </form>

      <div className="search-results" aria-live="polite" aria-busy={searching} data-testid="search-results">
        {results && (
          <p className="muted small" data-testid="search-count">
            {results.hits.length === 0
              ? t('knowledge.nothingFound', { query: results.query })
              : t('knowledge.resultsFor', { n: results.hits.length, query: results.query })}
          </p>
        )}
        {results && results.hits.length > 0 && (
          <ol className="hit-list">
            {results.hits.map((h) => (
              <li key={h.chunk_id} className="hit" data-testid="search-result" data-chunk-id={h.chunk_id} data-source-id={h.source_id}>
                <div className="hit-head">
                  <strong className="hit-title" data-testid="result-title">
                    <Highlighted text={h.title} query={results.query} />
                  </strong>
                  <span className={`badge doc-type doc-${h.doc_type}`}>{docTypeLabel(h.doc_type)}</span>
                </div>
                <div className="hit-meta muted small">
                  <code data-testid="result-chunk-id">{h.chunk_id}</code>
                  {h.heading && <span> · {h.heading}</span>}
                  {h.page != null && <span data-testid="result-page"> · {t('knowledge.page', { page: h.page })}</span>}
                  <span data-testid="result-source"> · {t(h.source === 'shop' ? 'knowledge.source.shop' : 'knowledge.source.default')}</span>
                  <span> · {h.language}</span>
                  <span title={t('knowledge.scoreTitle')}> · {t('knowledge.score', { score: h.score.toFixed(2) })}</span>
                </div>
                <p className="hit-snippet">
                  <Highlighted text={h.snippet} query={results.query} testId="result-snippet" />
                </p>
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}
