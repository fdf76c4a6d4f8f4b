import { describe, expect, it } from 'vitest';
import type { SyncStatus } from './api';
import { canRetry, itemReason, parseConflict, revisionText, sortProblems, syncSummary, urlOrigin } from './sync';
import { makeOutboxItem } from './test/fakeBackend';

const base: SyncStatus = {
  state: 'online',
  online: true,
  paused: null,
  portal_url: 'http://127.0.0.1:9000/',
  token_set: true,
  pending: 0,
  syncing: 0,
  waiting: 0,
  blocked: 0,
  failed: 0,
  conflicts: 0,
  done: 4,
  last_success: '2026-11-23T10:00:00Z',
  problems: [],
};

describe('syncSummary', () => {
  it('names the most pressing state first', () => {
    expect(syncSummary(base)).toMatchObject({ kind: 'online', label: 'Online', tone: 'ok' });
    expect(syncSummary({ ...base, pending: 3, syncing: 3 })).toMatchObject({ kind: 'syncing', label: 'Syncing 3', tone: 'busy', extra: [] });
    expect(syncSummary({ ...base, state: 'offline', online: false, pending: 2 })).toMatchObject({ kind: 'offline', label: 'Offline', extra: ['2 pending'] });
    expect(syncSummary({ ...base, state: 'paused', paused: '401 from the portal' })).toMatchObject({ kind: 'paused', tone: 'warn' });
    expect(syncSummary({ ...base, failed: 1, pending: 2 })).toMatchObject({ kind: 'failed', label: '1 failed', tone: 'bad', extra: ['2 pending'] });
    expect(syncSummary({ ...base, failed: 2, conflicts: 1 })).toMatchObject({ kind: 'conflicts', label: '1 conflict', extra: ['2 failed'] });
    expect(syncSummary({ ...base, state: 'not_configured', portal_url: null, token_set: false })).toMatchObject({ kind: 'not_configured', tone: 'off' });
    expect(syncSummary({ ...base, state: 'unknown', online: null })).toMatchObject({ kind: 'unknown' });
  });
});

describe('outbox items', () => {
  it('reads a conflict with both revisions', () => {
    const c = parseConflict(JSON.stringify({ message: 'revision conflict', local_revision: 3, portal: { stored_revision: 5 } }));
    expect(c).toEqual({ message: 'revision conflict', local: 3, portal: { stored_revision: 5 } });
    expect(revisionText(c!.local)).toBe('3');
    expect(revisionText(c!.portal)).toBe('5');
    expect(parseConflict('HTTP 500: boom')).toBeNull();
    expect(parseConflict('{"other": 1}')).toBeNull();
    expect(parseConflict(null)).toBeNull();
  });

  it('gives the reason with the HTTP status; only failed and conflicting items can be retried', () => {
    const failed = makeOutboxItem({ status: 'failed', http_status: 422, last_error: 'complaint is empty' });
    expect(itemReason(failed)).toBe('HTTP 422: complaint is empty');
    const conflict = makeOutboxItem({ status: 'conflict', http_status: 409, last_error: '{"message":"stale","local_revision":2,"portal":{"stored_revision":4}}' });
    expect(itemReason(conflict)).toBe('HTTP 409: stale');
    const pending = makeOutboxItem({ status: 'pending', http_status: null, last_error: 'connection refused' });
    expect(itemReason(pending)).toBe('connection refused');
    expect([failed, conflict, pending].map(canRetry)).toEqual([true, true, false]);
    expect(sortProblems([pending, failed, conflict]).map((i) => i.status)).toEqual(['conflict', 'failed', 'pending']);
  });

  it('shows a URL by its origin', () => {
    expect(urlOrigin('https://portal.example.com/api/v1?x=1')).toBe('https://portal.example.com');
    expect(urlOrigin('not a url')).toBe('not a url');
    expect(urlOrigin(null)).toBe('');
  });
});
