import { useEffect, useState } from 'react';
import { api, type AppInfo } from '../api';
import { t } from '../i18n';
import { toApiError, transportKind, type ApiError } from '../transport';
import { hashForWorkspace, WORKSPACES, type Workspace } from '../workspace';
import { ErrorMessage, Modal } from './common';
import { OutboxDialog, SyncIndicator, useSyncStatus } from './Sync';

export function Header({
  workspace,
  onWorkspace,
  onOpenSettings,
}: {
  workspace: Workspace;
  onWorkspace: (w: Workspace) => void;
  onOpenSettings: () => void;
}) {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [outboxOpen, setOutboxOpen] = useState(false);
  const [aboutOpen, setAboutOpen] = useState(false);
  const sync = useSyncStatus();

  useEffect(() => {
    let alive = true;
    api.appInfo().then(
      (i) => alive && setInfo(i),
      (e) => alive && setError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, []);

  return (
    <header className="app-header" data-testid="app-header">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          RV
        </span>
        <h1 data-testid="app-name">{info?.name ?? 'RV Service Desk'}</h1>
        {info && (
          <span className="version" data-testid="app-version">
            v{info.version}
          </span>
        )}
      </div>
      <nav className="workspace-nav" aria-label={t('header.workspaces')} data-testid="workspace-nav">
        <ul>
          {WORKSPACES.map((w) => (
            <li key={w.id}>
              <a
                href={hashForWorkspace(w.id) || '#'}
                className={`workspace-link${workspace === w.id ? ' current' : ''}`}
                aria-current={workspace === w.id ? 'page' : undefined}
                aria-keyshortcuts={w.shortcut}
                title={`${t(w.labelKey)} (${w.shortcut})`}
                data-testid={`nav-${w.id}`}
                onClick={(e) => {
                  e.preventDefault();
                  onWorkspace(w.id);
                }}
              >
                {t(w.labelKey)} <kbd className="shortcut" aria-hidden="true">{w.shortcut}</kbd>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="header-meta">
        <SyncIndicator status={sync.status} error={sync.error} onOpen={() => setOutboxOpen(true)} />
        <button
          type="button"
          className="btn settings-button"
          onClick={() => setAboutOpen(true)}
          aria-haspopup="dialog"
          data-testid="open-about"
        >
          {t('about.open')}
        </button>
        <button
          type="button"
          className="btn settings-button"
          onClick={onOpenSettings}
          aria-haspopup="dialog"
          aria-keyshortcuts="Control+Comma"
          title={`${t('settings.title')} (Ctrl+,)`}
          data-testid="open-settings"
        >
          <span aria-hidden="true">⚙</span> {t('settings.title')}
        </button>
      </div>
      <ErrorMessage error={error} testId="app-info-error" />
      {aboutOpen && (
        <Modal title={t('about.title')} onClose={() => setAboutOpen(false)} closeLabel={t('common.close')} testId="about-dialog">
          <dl className="about-facts">
            <dt>{t('about.version')}</dt>
            <dd data-testid="app-version-about">{info ? `v${info.version}` : '—'}</dd>
            <dt>{t('about.dataDir')}</dt>
            <dd>
              <code data-testid="app-data-dir" title={t('about.dataDirHint')}>
                {info?.data_dir ?? '—'}
              </code>
            </dd>
            <dt>{t('about.runningIn')}</dt>
            <dd data-testid="app-transport">{transportKind() === 'tauri-ipc' ? t('header.desktop') : t('header.browser')}</dd>
            <dt>{t('about.sessions')}</dt>
            <dd data-testid="app-sessions">{info?.sessions ?? '—'}</dd>
          </dl>
        </Modal>
      )}
      {outboxOpen && (
        <OutboxDialog
          status={sync.status}
          error={sync.error}
          onRefresh={sync.refresh}
          onClose={() => setOutboxOpen(false)}
          onOpenSettings={() => {
            setOutboxOpen(false);
            onOpenSettings();
          }}
        />
      )}
    </header>
  );
}
