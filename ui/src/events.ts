// A tiny app-wide signal: "the sessions changed, reload the list".
// Used by code outside React (the desktop smoke routine) and by components.

const EVENT = 'servicedesk:sessions-changed';

export function notifySessionsChanged(): void {
  window.dispatchEvent(new Event(EVENT));
}

/** Subscribes; returns the unsubscribe function. */
export function onSessionsChanged(handler: () => void): () => void {
  window.addEventListener(EVENT, handler);
  return () => window.removeEventListener(EVENT, handler);
}

const OPEN_SOURCE = 'servicedesk:open-knowledge-source';

/** "Show this knowledge source": the app switches to the Knowledge workspace and finds it. */
export function openKnowledgeSource(sourceId: string): void {
  window.dispatchEvent(new CustomEvent<string>(OPEN_SOURCE, { detail: sourceId }));
}

export function onOpenKnowledgeSource(handler: (sourceId: string) => void): () => void {
  const listener = (e: Event) => handler((e as CustomEvent<string>).detail);
  window.addEventListener(OPEN_SOURCE, listener);
  return () => window.removeEventListener(OPEN_SOURCE, listener);
}
