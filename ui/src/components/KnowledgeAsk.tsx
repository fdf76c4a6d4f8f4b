// One-shot question to the knowledge store: the cited answer (conclusion,
// key points with [n] markers, the citations), and the questions a document
// asks first (the chat asks those one by one).

import { useId, useState, type KeyboardEvent } from 'react';
import { api, type KnowledgeAnswer } from '../api';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { useSourceFile } from './SourceFile';
import { Highlighted } from './KnowledgeSearch';
import { t } from '../i18n';

export function KnowledgeAsk() {
  const [question, setQuestion] = useState('');
  const [asked, setAsked] = useState<{ question: string; answer: KnowledgeAnswer } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [asking, setAsking] = useState(false);
  const id = useId();
  const file = useSourceFile();
  const shownError = error ?? file.error;

  function openFile(sourceId: string, version: number, page: number) {
    setError(null);
    return file.open(sourceId, version, { page });
  }

  async function ask() {
    const q = question.trim();
    if (asking) return;
    if (q === '') {
      setError(toApiError({ code: 'invalid_input', message: t('knowledge.typeQuestion') }));
      return;
    }
    setAsking(true);
    setError(null);
    try {
      const answer = await api.knowledgeAsk({ question: q });
      setAsked({ question: q, answer });
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setAsking(false);
    }
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void ask();
    }
  }

  return (
    <section className="card knowledge-ask" aria-labelledby={`${id}-h`} data-testid="knowledge-ask">
      <div className="card-head">
        <h3 id={`${id}-h`}>{t('knowledge.ask')}</h3>
      </div>
      <form
        className="ask-form"
        onSubmit={(e) => {
          e.preventDefault();
          void ask();
        }}
      >
        <label htmlFor={`${id}-q`} className="sr-only">
          {t('knowledge.question')}
        </label>
        <textarea
          id={`${id}-q`}
          rows={2}
          value={question}
          placeholder={t('knowledge.askPlaceholder')}
          onChange={(e) => setQuestion(e.target.value)}
          onKeyDown={onKeyDown}
          aria-describedby={shownError ? `${id}-err` : undefined}
          aria-invalid={shownError ? true : undefined}
          data-testid="ask-input"
        />
        <button type="submit" className="btn primary" disabled={asking} aria-busy={asking} data-testid="ask-button">
          {asking ? t('knowledge.asking') : t('knowledge.ask')}
        </button>
      </form>
      <div id={`${id}-err`}>
        <ErrorMessage error={shownError} testId="ask-error" />
      </div>
      <div aria-live="polite" aria-busy={asking}>
        {asked && <AnswerView answer={asked.answer} question={asked.question} onOpen={openFile} />}
      </div>
      {file.dialog}
    </section>
  );
}

function AnswerView({
  answer,
  question,
  onOpen,
}: {
  answer: KnowledgeAnswer;
  question: string;
  onOpen: (sourceId: string, version: number, page: number) => Promise<void>;
}) {
  const { conclusion, key_points, citations } = answer;
  const questions = answer.clarifying_questions ?? [];
  const cite = (i: number) => (i >= 0 && i < citations.length ? i + 1 : null);
  return (
    <article className="answer" data-testid="ask-answer" data-found={citations.length > 0 ? 'true' : 'false'}>
      <p className="answer-conclusion" data-testid="ask-conclusion">
        {conclusion}
      </p>
      {(answer.did_you_mean ?? []).length > 0 && (
        <div className="answer-did-you-mean" data-testid="ask-did-you-mean">
          <strong>{t('knowledge.didYouMean')}</strong>
          <ul>
            {(answer.did_you_mean ?? []).map((title) => (
              <li key={title} data-testid="ask-near-title">
                {title}
              </li>
            ))}
          </ul>
        </div>
      )}
      {questions.length > 0 && (
        <div className="answer-asks-first" data-testid="ask-clarifying">
          <p>
            <strong>{t('knowledge.asksFirst')}</strong>
          </p>
          <ol>
            {questions.map((q, i) => (
              <li key={i} data-testid="ask-clarifying-question">
                {q}
              </li>
            ))}
          </ol>
          <p className="muted small">
            {t('knowledge.asksFirstNote')}
          </p>
        </div>
      )}
      {answer.requires_handoff && (
        <p className="answer-handoff" data-testid="ask-handoff">
          <span className="badge handoff">{t('knowledge.handoff')}</span> {t('knowledge.handoffNote')}
        </p>
      )}
      {key_points.length > 0 && (
        <>
          <h4>{t('knowledge.keyPoints')}</h4>
          <ul className="key-points">
            {key_points.map((k, i) => {
              const n = cite(k.citation);
              return (
                <li key={i} data-testid="ask-key-point">
                  {k.text}{' '}
                  {n != null && (
                    <a
                      href={`#${idFor(citations[k.citation].chunk_id)}`}
                      className="cite-marker"
                      aria-label={t('knowledge.sourceN', { n })}
                      data-testid="cite-marker"
                      onClick={(e) => {
                        // Not a hash change (the hash picks the workspace): scroll to the source and focus it.
                        e.preventDefault();
                        const el = document.getElementById(idFor(citations[k.citation].chunk_id));
                        el?.scrollIntoView?.({ block: 'nearest' });
                        el?.focus();
                      }}
                    >
                      [{n}]
                    </a>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {citations.length > 0 && (
        <>
          <h4>{t('knowledge.sources')}</h4>
          <ol className="citation-list" data-testid="ask-citations">
            {citations.map((c, i) => (
              <li key={c.chunk_id} id={idFor(c.chunk_id)} tabIndex={-1} data-testid="ask-citation" data-chunk-id={c.chunk_id}>
                <span className="cite-n" aria-hidden="true">
                  [{i + 1}]
                </span>{' '}
                <strong>{c.title}</strong> <code className="muted small">{c.chunk_id}</code>
                {c.page != null && (
                  <>
                    <span className="muted small" data-testid="citation-page">
                      {' '}
                      · {t('knowledge.page', { page: c.page })}
                    </span>{' '}
                    <button
                      type="button"
                      className="btn link"
                      data-testid="citation-open"
                      onClick={() => void onOpen(c.source_id, c.version, c.page ?? 1)}
                    >
                      {t('knowledge.openAtPage', { page: c.page })}
                    </button>
                  </>
                )}{' '}
                <span className={`badge source-${c.source}`} data-testid="citation-source">
                  {t(c.source === 'shop' ? 'knowledge.source.shop' : 'knowledge.source.default')}
                </span>
                <div className="muted small citation-snippet">
                  <Highlighted text={c.snippet} query={question} />
                </div>
              </li>
            ))}
          </ol>
        </>
      )}
    </article>
  );
}

function idFor(chunkId: string): string {
  return `cite-${chunkId.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}
