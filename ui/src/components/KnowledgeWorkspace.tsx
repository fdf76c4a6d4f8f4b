// The knowledge workspace: search with filters, a cited answer, ingest by
// drag and drop with the import report, and the stored sources.

import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type KnowledgeSource } from '../api';
import { toApiError, type ApiError } from '../transport';
import { KnowledgeAsk } from './KnowledgeAsk';
import { KnowledgeIngest } from './KnowledgeIngest';
import { KnowledgeSearch } from './KnowledgeSearch';
import { KnowledgeSources } from './KnowledgeSources';
import { t } from '../i18n';

export function KnowledgeWorkspace({ showSource }: { showSource: { sourceId: string; seq: number } | null }) {
  const [sources, setSources] = useState<KnowledgeSource[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(false);
  const [version, setVersion] = useState(0);
  /** Source ids the last import brought in (marked "new" in the table). */
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    api.knowledgeSources().then(
      (r) => {
        if (mine !== seq.current) return;
        setSources(r.sources);
        setError(null);
        setLoading(false);
      },
      (e) => {
        if (mine !== seq.current) return;
        setError(toApiError(e));
        setLoading(false);
      },
    );
  }, [version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);

  return (
    <div className="knowledge" data-testid="knowledge-workspace">
      <div className="knowledge-head">
        <h2>{t('workspace.knowledge')}</h2>
        <p className="muted small">
          {t('knowledge.intro')}
        </p>
      </div>
      <div className="knowledge-grid">
        <KnowledgeSearch />
        <KnowledgeAsk />
      </div>
      <KnowledgeIngest
        onImported={(ids) => {
          setFresh(new Set(ids));
          reload();
        }}
      />
      <KnowledgeSources
        sources={sources}
        error={error}
        loading={loading}
        onReload={reload}
        fresh={fresh}
        showSource={showSource}
      />
    </div>
  );
}
