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

const OPEN_RULE = 'servicedesk:open-billing-rule';

export interface RuleTarget {
  rule_code: string;
  version_no?: number;
}

/** "Show this billing rule": the app switches to the Billing workspace and selects it (and the version). */
export function openBillingRule(target: RuleTarget): void {
  window.dispatchEvent(new CustomEvent<RuleTarget>(OPEN_RULE, { detail: target }));
}

export function onOpenBillingRule(handler: (target: RuleTarget) => void): () => void {
  const listener = (e: Event) => handler((e as CustomEvent<RuleTarget>).detail);
  window.addEventListener(OPEN_RULE, listener);
  return () => window.removeEventListener(OPEN_RULE, listener);
}

const SYNC_CHANGED = 'servicedesk:sync-changed';

/** "Something was queued for the portal": the sync indicator asks again now instead of at its next poll. */
export function notifySyncChanged(): void {
  window.dispatchEvent(new Event(SYNC_CHANGED));
}

export function onSyncChanged(handler: () => void): () => void {
  window.addEventListener(SYNC_CHANGED, handler);
  return () => window.removeEventListener(SYNC_CHANGED, handler);
}
