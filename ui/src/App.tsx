import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import type { Session } from './api';
import { onOpenBillingRule, onOpenKnowledgeSource, onSessionsChanged, type RuleTarget } from './events';
import { BillingWorkspace } from './components/BillingWorkspace';
import { Header } from './components/Header';
import { KnowledgeWorkspace } from './components/KnowledgeWorkspace';
import { SessionDetailView } from './components/SessionDetail';
import { SessionsPane } from './components/SessionsPane';
import { ExportWorkspace } from './components/ExportWorkspace';
import { t, useLocale } from './i18n';
import { isSettingsKey, urlForWorkspace, workspaceForKey, workspaceFromHash, type Workspace } from './workspace';

// Settings load when first opened: the app's first screen never needs them
// (and the main bundle stays under 500 kB).
const SettingsDialog = lazy(() => import('./components/Settings').then((m) => ({ default: m.SettingsDialog })));

/** The skip link's target: in an open session the chat input, else the workspace itself. */
function skipToContent(workspace: Workspace) {
  if (workspace === 'sessions') {
    const chat = document.querySelector<HTMLElement>('[data-testid="chat-input"]');
    if (chat && chat.offsetParent !== null) {
      chat.focus();
      return;
    }
  }
  document.getElementById(`workspace-${workspace}`)?.focus();
}

export function App() {
  // Re-renders the whole tree when the interface language changes.
  const locale = useLocale();
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [listVersion, setListVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [workspace, setWorkspaceState] = useState<Workspace>(() => workspaceFromHash(window.location.hash) ?? 'sessions');
  // The knowledge workspace is mounted on first visit and then kept (hidden), so its search and report survive a switch.
  const [knowledgeOpened, setKnowledgeOpened] = useState(workspace === 'knowledge');
  const [billingOpened, setBillingOpened] = useState(workspace === 'billing');
  const [exportOpened, setExportOpened] = useState(workspace === 'export');
  const [showSource, setShowSource] = useState<{ sourceId: string; seq: number } | null>(null);
  const [showRule, setShowRule] = useState<(RuleTarget & { seq: number }) | null>(null);
  const sessionsMain = useRef<HTMLElement>(null);
  const knowledgeMain = useRef<HTMLElement>(null);
  const billingMain = useRef<HTMLElement>(null);
  const exportMain = useRef<HTMLElement>(null);

  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  const refreshList = useCallback(() => setListVersion((v) => v + 1), []);

  useEffect(() => onSessionsChanged(refreshList), [refreshList]);

  const setWorkspace = useCallback((w: Workspace, focus = false) => {
    setWorkspaceState(w);
    if (w === 'knowledge') setKnowledgeOpened(true);
    if (w === 'billing') setBillingOpened(true);
    if (w === 'export') setExportOpened(true);
    try {
      window.history.replaceState(window.history.state, '', urlForWorkspace(window.location, w));
    } catch {
      // a webview without history: the switch still works
    }
    if (focus) {
      // After the switch renders: move focus into the workspace so a screen reader announces it.
      setTimeout(() => ({ sessions: sessionsMain, knowledge: knowledgeMain, billing: billingMain, export: exportMain })[w].current?.focus(), 0);
    }
  }, []);

  // Alt+1 … Alt+4 switch workspaces from anywhere (also from inside inputs); Ctrl+, opens Settings.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isSettingsKey(e)) {
        e.preventDefault();
        setSettingsOpen(true);
        return;
      }
      const w = workspaceForKey(e);
      if (!w) return;
      e.preventDefault();
      setWorkspace(w, true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setWorkspace]);

  useEffect(() => {
    const onHash = () => {
      const w = workspaceFromHash(window.location.hash);
      if (w) setWorkspace(w);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [setWorkspace]);

  // A citation chip in the chat: show that source in the knowledge workspace.
  useEffect(
    () =>
      onOpenKnowledgeSource((sourceId) => {
        setShowSource((prev) => ({ sourceId, seq: (prev?.seq ?? 0) + 1 }));
        setWorkspace('knowledge');
      }),
    [setWorkspace],
  );

  // A rule citation chip in the chat: show that rule (and version) in the billing workspace.
  useEffect(
    () =>
      onOpenBillingRule((target) => {
        setShowRule((prev) => ({ ...target, seq: (prev?.seq ?? 0) + 1 }));
        setWorkspace('billing');
      }),
    [setWorkspace],
  );

  // A file dropped outside a drop zone must not navigate the window away.
  useEffect(() => {
    const stop = (e: DragEvent) => {
      if (e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files')) e.preventDefault();
    };
    window.addEventListener('dragover', stop);
    window.addEventListener('drop', stop);
    return () => {
      window.removeEventListener('dragover', stop);
      window.removeEventListener('drop', stop);
    };
  }, []);

  const onCreated = useCallback(
    (s: Session) => {
      setNotice(null);
      setSelectedId(s.id);
      refreshList();
    },
    [refreshList],
  );

  const onDeleted = useCallback(
    (message: string) => {
      setSelectedId(null);
      setNotice(message);
      refreshList();
    },
    [refreshList],
  );

  return (
    <div className="app">
      <a
        href="#workspace-sessions"
        className="skip-link"
        data-testid="skip-link"
        onClick={(e) => {
          e.preventDefault();
          skipToContent(workspace);
        }}
      >
        {t('app.skipToContent')}
      </a>
      <Header workspace={workspace} onWorkspace={(w) => setWorkspace(w)} onOpenSettings={() => setSettingsOpen(true)} />
      {settingsOpen && (
        <Suspense fallback={null}>
          <SettingsDialog onClose={() => setSettingsOpen(false)} />
        </Suspense>
      )}
      <main
        ref={sessionsMain}
        className={`panes${selectedId ? ' has-selection' : ''}`}
        id="workspace-sessions"
        aria-label={t('workspace.sessions')}
        tabIndex={-1}
        hidden={workspace !== 'sessions'}
        data-testid="sessions-workspace"
      >
        <SessionsPane
          selectedId={selectedId}
          onSelect={(id) => {
            setNotice(null);
            setSelectedId(id);
          }}
          listVersion={listVersion}
          onCreated={onCreated}
        />
        <section className="detail-pane" aria-label={t('app.sessionDetail')}>
          {notice && (
            <div className="note" role="status" data-testid="notice">
              {notice}
            </div>
          )}
          {selectedId ? (
            <SessionDetailView
              key={selectedId}
              sessionId={selectedId}
              onChanged={refreshList}
              onDeleted={onDeleted}
              onBack={() => {
                const id = selectedId;
                setSelectedId(null);
                // Back where the person left the list: on the row of the session they had open.
                setTimeout(() => document.querySelector<HTMLElement>(`[data-testid="session-row"][data-session-id="${id}"]`)?.focus(), 0);
              }}
            />
          ) : (
            <div className="placeholder" data-testid="no-selection">
              <h2>{t('app.noSelection')}</h2>
              <p>{t('app.noSelectionHint')}</p>
            </div>
          )}
        </section>
      </main>
      {knowledgeOpened && (
        <main
          ref={knowledgeMain}
          className="knowledge-pane"
          id="workspace-knowledge"
          aria-label={t('workspace.knowledge')}
          tabIndex={-1}
          hidden={workspace !== 'knowledge'}
        >
          <KnowledgeWorkspace showSource={showSource} />
        </main>
      )}
      {billingOpened && (
        <main
          ref={billingMain}
          className="knowledge-pane billing-pane"
          id="workspace-billing"
          aria-label={t('workspace.billing')}
          tabIndex={-1}
          hidden={workspace !== 'billing'}
        >
          <BillingWorkspace showRule={showRule} />
        </main>
      )}
      {exportOpened && (
        <main
          ref={exportMain}
          className="knowledge-pane export-pane"
          id="workspace-export"
          aria-label={t('workspace.export')}
          tabIndex={-1}
          hidden={workspace !== 'export'}
        >
          <ExportWorkspace />
        </main>
      )}
    </div>
  );
}
