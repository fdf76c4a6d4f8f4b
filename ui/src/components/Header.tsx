import { useEffect, useState } from 'react';
import { api, type AppInfo } from '../api';
import { toApiError, transportKind, type ApiError } from '../transport';
import { ErrorMessage } from './common';

export function Header() {
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
