import { describe, expect, it } from 'vitest';
import { isSettingsKey, urlForWorkspace, workspaceForKey, workspaceFromHash } from './workspace';

const key = (over: Partial<Parameters<typeof workspaceForKey>[0]>) => ({
  altKey: true,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  key: '',
  code: '',
  ...over,
});

describe('workspaces', () => {
  it('Alt+1 / Alt+2 / Alt+3 pick a workspace, by key or by physical key (macOS Option)', () => {
    expect(workspaceForKey(key({ key: '1', code: 'Digit1' }))).toBe('sessions');
    expect(workspaceForKey(key({ key: '2', code: 'Digit2' }))).toBe('knowledge');
    expect(workspaceForKey(key({ key: '™', code: 'Digit2' }))).toBe('knowledge');
    expect(workspaceForKey(key({ key: '2', code: 'Numpad2' }))).toBe('knowledge');
    expect(workspaceForKey(key({ key: '3', code: 'Digit3' }))).toBe('billing');
    expect(workspaceForKey(key({ key: '£', code: 'Digit3' }))).toBe('billing');
    expect(workspaceForKey(key({ key: '4', code: 'Digit4' }))).toBe('export');
  });

  it('ignores other combinations', () => {
    expect(workspaceForKey(key({ altKey: false, key: '2', code: 'Digit2' }))).toBeNull();
    expect(workspaceForKey(key({ ctrlKey: true, key: '2', code: 'Digit2' }))).toBeNull();
    expect(workspaceForKey(key({ shiftKey: true, key: '2', code: 'Digit2' }))).toBeNull();
    expect(workspaceForKey(key({ key: '5', code: 'Digit5' }))).toBeNull();
  });

  it('reads and writes the hash, keeping the query (a ?token= survives)', () => {
    expect(workspaceFromHash('#knowledge')).toBe('knowledge');
    expect(workspaceFromHash('')).toBe('sessions');
    expect(workspaceFromHash('#sessions')).toBe('sessions');
    expect(workspaceFromHash('#billing')).toBe('billing');
    expect(workspaceFromHash('#export')).toBe('export');
    expect(workspaceFromHash('#cite-faq')).toBeNull();
    expect(urlForWorkspace({ pathname: '/', search: '' }, 'billing')).toBe('/#billing');
    expect(urlForWorkspace({ pathname: '/', search: '?token=abc' }, 'knowledge')).toBe('/?token=abc#knowledge');
    expect(urlForWorkspace({ pathname: '/', search: '?token=abc' }, 'sessions')).toBe('/?token=abc');
  });

  it('Ctrl+, (Cmd+, on macOS) is Settings', () => {
    expect(isSettingsKey(key({ altKey: false, ctrlKey: true, key: ',', code: 'Comma' }))).toBe(true);
    expect(isSettingsKey(key({ altKey: false, metaKey: true, key: ',', code: 'Comma' }))).toBe(true);
    expect(isSettingsKey(key({ altKey: false, key: ',', code: 'Comma' }))).toBe(false);
    expect(isSettingsKey(key({ key: ',', code: 'Comma' }))).toBe(false);
  });
});
