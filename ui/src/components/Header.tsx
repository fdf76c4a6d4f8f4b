import { useEffect, useState } from 'react';
import { api, type AppInfo } from '../api';
import { toApiError, transportKind, type ApiError } from '../transport';
import { hashForWorkspace, WORKSPACES, type Workspace } from '../workspace';
import { ErrorMessage } from './common';

export function Header({ workspace, onWorkspace }: { workspace: Workspace; onWorkspace: (w: Workspace) => void }) {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

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
      <nav className="workspace-nav" aria-label="Workspaces" data-testid="workspace-nav">
        <ul>
          {WORKSPACES.map((w) => (
            <li key={w.id}>
              <a
                href={hashForWorkspace(w.id) || '#'}
                className={`workspace-link${workspace === w.id ? ' current' : ''}`}
                aria-current={workspace === w.id ? 'page' : undefined}
                aria-controls={`workspace-${w.id}`}
                aria-keyshortcuts={w.shortcut}
                title={`${w.label} (${w.shortcut})`}
                data-testid={`nav-${w.id}`}
                onClick={(e) => {
                  e.preventDefault();
                  onWorkspace(w.id);
                }}
              >
                {w.label} <kbd className="shortcut" aria-hidden="true">{w.shortcut}</kbd>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="header-meta">
        {info && (
          <span className="data-dir" title="Where the database and photos are stored">
            Data: <code data-testid="app-data-dir">{info.data_dir}</code>
          </span>
        )}
        <span className="transport" title="How this window talks to the backend">
          {transportKind() === 'tauri-ipc' ? 'Desktop' : 'Browser'}
        </span>
      </div>
      <ErrorMessage error={error} testId="app-info-error" />
    </header>
  );
}
