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
