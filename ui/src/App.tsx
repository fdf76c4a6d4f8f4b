import { useCallback, useEffect, useState } from 'react';
import type { Session } from './api';
import { onSessionsChanged } from './events';
import { Header } from './components/Header';
import { SessionDetailView } from './components/SessionDetail';
import { SessionsPane } from './components/SessionsPane';

export function App() {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [listVersion, setListVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);

  const refreshList = useCallback(() => setListVersion((v) => v + 1), []);

  useEffect(() => onSessionsChanged(refreshList), [refreshList]);

  // A file dropped outside the photos area must not navigate the window away.
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
      <Header />
      <main className="panes">
        <SessionsPane
          selectedId={selectedId}
          onSelect={(id) => {
            setNotice(null);
            setSelectedId(id);
          }}
          listVersion={listVersion}
          onCreated={onCreated}
        />
        <section className="detail-pane" aria-label="Session detail">
          {notice && (
            <div className="note" role="status" data-testid="notice">
              {notice}
            </div>
          )}
          {selectedId ? (
            <SessionDetailView key={selectedId} sessionId={selectedId} onChanged={refreshList} onDeleted={onDeleted} />
          ) : (
            <div className="placeholder" data-testid="no-selection">
              <h2>No session selected</h2>
              <p>Pick a session on the left, or start a new one for the unit that just came in.</p>
            </div>
          )}
        </section>
      </main>
    </div>
  );
}
