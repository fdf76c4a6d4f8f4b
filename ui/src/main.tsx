import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { App } from './App';
import { primeSessionList } from './components/SessionsPane';
import { runSmoke, SCRIPT_READY_MARK, smokeRequested } from './smoke';
import { applyTheme } from './theme';
import { getLocale } from './i18n';
import './styles.css';

// Every module is evaluated by now: the smoke report times the launch's
// stages from this mark and the page's navigation start.
performance.mark(SCRIPT_READY_MARK);

// The theme and language picked in Settings, before the first paint.
applyTheme();
document.documentElement.lang = getLocale();

// The session list is what the window waits for: ask before rendering.
primeSessionList();

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

const root = createRoot(container);
// Render synchronously so the app is mounted before the smoke routine starts.
flushSync(() => {
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});

if (smokeRequested()) {
  void runSmoke().catch((e) => console.error('smoke routine failed to report', e));
}
