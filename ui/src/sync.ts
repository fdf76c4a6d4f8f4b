// View logic for portal sync (sync_status, the outbox): pure functions, no
// React, no backend calls (unit-tested in sync.test.ts).

import type { OutboxItem, OutboxKind, OutboxStatus, SyncStatus } from './api';
import { t, type MessageKey } from './i18n';

export type SyncTone = 'ok' | 'busy' | 'warn' | 'bad' | 'off';

export interface SyncSummary {
  /** What the indicator says first (the most pressing thing). */
  label: string;
  tone: SyncTone;
  /** One word for tests and styling: online, offline, paused, syncing, failed, conflicts, not_configured, unknown. */
  kind: string;
  /** The other counts worth a glance ("3 pending · 1 failed"). */
  extra: string[];
}

/** What the header indicator shows for a sync_status answer. */
export function syncSummary(s: SyncStatus): SyncSummary {
  const extra: string[] = [];
  if (s.conflicts > 0) extra.push(t('sync.count.conflicts', { n: s.conflicts }));
  if (s.failed > 0) extra.push(t('sync.count.failed', { n: s.failed }));
  if (s.pending > 0) extra.push(t('sync.count.pending', { n: s.pending }));
  const rest = (k: string) => extra.filter((e) => e !== k);

  if (s.state === 'not_configured') return { label: t('sync.notConfigured'), tone: 'off', kind: 'not_configured', extra };
  if (s.conflicts > 0) {
    const label = t('sync.count.conflicts', { n: s.conflicts });
    return { label, tone: 'bad', kind: 'conflicts', extra: rest(label) };
  }
  if (s.failed > 0) {
    const label = t('sync.count.failed', { n: s.failed });
    return { label, tone: 'bad', kind: 'failed', extra: rest(label) };
  }
  if (s.state === 'paused') return { label: t('sync.paused'), tone: 'warn', kind: 'paused', extra };
  if (s.state === 'offline') return { label: t('sync.offline'), tone: 'warn', kind: 'offline', extra };
  if (s.pending > 0) {
    const label = t('sync.syncing', { n: s.pending });
    return { label, tone: 'busy', kind: 'syncing', extra: rest(t('sync.count.pending', { n: s.pending })) };
  }
  if (s.state === 'online') return { label: t('sync.online'), tone: 'ok', kind: 'online', extra };
  return { label: t('sync.unknown'), tone: 'off', kind: 'unknown', extra };
}

/** A conflict's `last_error`: `{"message", "local_revision", "portal": {"stored_revision": M}}`. */
export interface ConflictInfo {
  message: string | null;
  local: unknown;
  portal: unknown;
}

export function parseConflict(lastError: string | null | undefined): ConflictInfo | null {
  if (!lastError) return null;
  const text = lastError.trim();
  if (!text.startsWith('{')) return null;
  try {
    const v = JSON.parse(text) as { message?: unknown; local_revision?: unknown; portal?: unknown };
    if (typeof v !== 'object' || v === null) return null;
    if (!('local_revision' in v) && !('portal' in v)) return null;
    return { message: typeof v.message === 'string' ? v.message : null, local: v.local_revision ?? null, portal: v.portal ?? null };
  } catch {
    return null;
  }
}

/** A revision value (a number, or an object with stored_revision/revision) as text. */
export function revisionText(v: unknown): string {
  if (v == null) return '—';
  if (typeof v === 'number' || typeof v === 'string') return String(v);
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of ['stored_revision', 'revision', 'local_revision']) {
      if (typeof o[k] === 'number' || typeof o[k] === 'string') return String(o[k]);
    }
    return JSON.stringify(v);
  }
  return String(v);
}

/** The reason an outbox item is shown: its error (a conflict's message), with the HTTP status. */
export function itemReason(item: OutboxItem): string {
  const conflict = parseConflict(item.last_error);
  const base = conflict ? conflict.message ?? t('outbox.conflictReason') : item.last_error ?? '';
  return item.http_status != null ? (base ? `HTTP ${item.http_status}: ${base}` : `HTTP ${item.http_status}`) : base;
}

const KIND_KEYS: Record<OutboxKind, MessageKey> = {
  report: 'outbox.kind.report',
  attachment: 'outbox.kind.attachment',
  labor_draft: 'outbox.kind.labor_draft',
  escalation: 'outbox.kind.escalation',
};

export function itemKindLabel(kind: OutboxKind): string {
  return t(KIND_KEYS[kind]);
}

const STATUS_KEYS: Record<OutboxStatus, MessageKey> = {
  pending: 'outbox.status.pending',
  failed: 'outbox.status.failed',
  conflict: 'outbox.status.conflict',
  done: 'outbox.status.done',
};

export function itemStatusLabel(status: OutboxStatus): string {
  return t(STATUS_KEYS[status]);
}

/** Items a person can retry (sync_retry takes only failed or conflicting ones). */
export function canRetry(item: OutboxItem): boolean {
  return item.status === 'failed' || item.status === 'conflict';
}

/** Problems in the order they need attention: conflicts, failed, then pending with an error; oldest first within. */
export function sortProblems(items: OutboxItem[]): OutboxItem[] {
  const rank = (s: string) => (s === 'conflict' ? 0 : s === 'failed' ? 1 : 2);
  return [...items].sort((a, b) => rank(a.status) - rank(b.status) || a.created_at.localeCompare(b.created_at));
}

/** The origin (scheme://host:port) of a URL, or the text as given when it does not parse. */
export function urlOrigin(url: string | null | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
