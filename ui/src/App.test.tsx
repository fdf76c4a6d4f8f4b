import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { act } from 'react';
import type { CommandRequest } from './api';
import { App } from './App';
import { primeSessionList } from './components/SessionsPane';
import { notifySessionsChanged } from './events';
import { MAX_FILE_BYTES } from './files';
import { appError, installFakeBackend, listed, makeArtifact, makeSession, makeState, type Handlers } from './test/fakeBackend';
import { allByTestId, byTestId, click, render, typeInto, waitFor, type Rendered } from './test/render';

const INFO = { name: 'RV Service Desk', version: '9.9.9', data_dir: '/data/desk', schema_version: 1, sessions: 0, artifacts: 0 };

let view: Rendered | null = null;

beforeEach(() => {
  window.history.replaceState(null, '', '/');
});

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
});

function mount(handlers: Handlers) {
  const backend = installFakeBackend({ app_info: () => INFO, session_list: () => ({ sessions: [] }), ...handlers });
  view = render(<App />);
  return { backend, root: view.container };
}

function setFiles(input: HTMLInputElement, files: File[]) {
  Object.defineProperty(input, 'files', { configurable: true, value: files });
  act(() => {
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

describe('header and list', () => {
  it('shows app_info and the sessions with complaint, customer, unit, status and photo count', async () => {
    const s = makeSession({
      complaint: 'Furnace blows cold air',
      customer: 'Jane Doe',
      status: 'escalated',
      unit: { vin: null, plate: null, make_model: 'Winnebago View 24D', model_year: null, odometer: null, odometer_unit: null, engine_hours: null, manufacturer: null },
      artifact_count: 3,
    });
    const { root } = mount({ session_list: () => ({ sessions: [listed(s)] }) });
    await waitFor(() => byTestId(root, 'app-version'));
    expect(byTestId(root, 'app-version')!.textContent).toBe('v9.9.9');
    // The data folder is in the About dialog, not in the header.
    expect(byTestId(root, 'app-data-dir')).toBeNull();
    act(() => byTestId(root, 'open-about')!.click());
    expect(byTestId(root, 'app-data-dir')!.textContent).toBe('/data/desk');
    expect(byTestId(root, 'app-transport')!.textContent).toBe('Browser');
    act(() => byTestId(root, 'modal-close')!.click());

    const row = await waitFor(() => byTestId(root, 'session-row'));
    expect(byTestId(row, 'row-complaint')!.textContent).toBe('Furnace blows cold air');
    expect(byTestId(row, 'row-customer')!.textContent).toBe('Jane Doe');
    expect(byTestId(row, 'row-unit')!.textContent).toBe('Winnebago View 24D');
    expect(byTestId(row, 'status-badge')!.textContent).toBe('Escalated');
    expect(byTestId(row, 'row-photos')!.textContent).toBe('3 photos');
  });

  it('takes the session list asked for before the first render instead of asking again', async () => {
    const s = makeSession({ complaint: 'Water pump cycles' });
    const backend = installFakeBackend({ app_info: () => INFO, session_list: () => ({ sessions: [listed(s)] }) });
    primeSessionList();
    expect(backend.callsOf('session_list')).toEqual([{}]);
    view = render(<App />);
    const row = await waitFor(() => byTestId(view!.container, 'session-row'));
    expect(byTestId(row, 'row-complaint')!.textContent).toBe('Water pump cycles');
    expect(backend.callsOf('session_list')).toHaveLength(1);
  });

  it('shows a failed early session list next to the list, and asks again when the list changes', async () => {
    let fail = true;
    const s = makeSession({ complaint: 'Slide stuck' });
    installFakeBackend({
      app_info: () => INFO,
      session_list: () => {
        if (fail) throw appError('storage', 'database is locked');
        return { sessions: [listed(s)] };
      },
    });
    primeSessionList();
    view = render(<App />);
    const error = await waitFor(() => byTestId(view!.container, 'sessions-error'));
    expect(error.textContent).toContain('database is locked');
    fail = false;
    act(() => notifySessionsChanged());
    await waitFor(() => byTestId(view!.container, 'session-row'));
    expect(byTestId(view!.container, 'sessions-error')).toBeNull();
  });

  it('shows where each session stands: report ready, synced, or its status', async () => {
    const ready = listed(makeSession({ complaint: 'Fan dead', status: 'open' }), 'report_ready');
    const synced = listed(makeSession({ complaint: 'Fridge warm', status: 'finalized' }), 'synced');
    const plain = listed(makeSession({ complaint: 'Awning stuck', status: 'open' }));
    const { root } = mount({ session_list: () => ({ sessions: [ready, synced, plain] }) });
    await waitFor(() => (allByTestId(root, 'session-row').length === 3 ? true : null));
    const badges = allByTestId(root, 'status-badge').map((b) => b.textContent);
    expect(badges).toEqual(['Report ready', 'Synced', 'Open']);
  });

  it('renders only the rows in view of a long session list', async () => {
    // jsdom lays nothing out: give every element a size, as a window would.
    const sizes = [
      vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(78),
      vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(800),
      vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(320),
    ];
    onTestFinished(() => sizes.forEach((s) => s.mockRestore()));
    const many = Array.from({ length: 1000 }, (_, i) => listed(makeSession({ complaint: `Unit ${i} fan dead` })));
    const { root } = mount({ session_list: () => ({ sessions: many }) });
    await waitFor(() => byTestId(root, 'session-row'));
    expect(byTestId(root, 'sessions-count')!.textContent).toContain('1000');
    const rendered = allByTestId(root, 'session-row');
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(60);
    expect(byTestId(rendered[0], 'row-complaint')!.textContent).toBe('Unit 0 fan dead');
  });

  it('shows a backend error instead of an empty list', async () => {
    const { root } = mount({
      session_list: () => {
        throw appError('storage', 'database is locked');
      },
    });
    const err = await waitFor(() => byTestId(root, 'sessions-error'));
    expect(err.textContent).toContain('database is locked');
    expect(err.getAttribute('data-code')).toBe('storage');
    expect(byTestId(root, 'sessions-empty')).toBeNull();
  });

  it('debounces the search and sends the status filter', async () => {
    const { root, backend } = mount({});
    await waitFor(() => backend.callsOf('session_list').length === 1);
    const search = byTestId(root, 'session-search')!;
    typeInto(search, 'f');
    typeInto(search, 'fu');
    typeInto(search, 'fur ');
    await waitFor(() => backend.callsOf('session_list').length === 2, 2000);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 400));
    });
    expect(backend.callsOf('session_list')).toEqual([{}, { query: 'fur' }]);

    typeInto(byTestId(root, 'status-filter')!, 'finalized');
    await waitFor(() => backend.callsOf('session_list').length === 3);
    expect(backend.callsOf('session_list')[2]).toEqual({ query: 'fur', status: 'finalized' });
  });
});

describe('new session form', () => {
  it('refuses an empty complaint inline without calling the backend', async () => {
    const { root, backend } = mount({ session_new: () => makeSession() });
    click(byTestId(root, 'new-session-button'));
    typeInto(byTestId(root, 'new-complaint')!, '   ');
    click(byTestId(root, 'create-session'));
    const err = await waitFor(() => byTestId(root, 'complaint-error'));
    expect(err.textContent).toMatch(/Complaint is required/);
    expect(backend.callsOf('session_new')).toHaveLength(0);
  });

  it('sends numbers as numbers, drops blank fields, and selects the new session', async () => {
    const created = makeSession({ complaint: 'Slide stuck' });
    const { root, backend } = mount({
      session_new: () => created,
      session_show: () => ({ session: created, turns: [], artifacts: [], state: makeState(), edits: [], earlier_visits: [] }),
    });
    click(byTestId(root, 'new-session-button'));
    typeInto(byTestId(root, 'new-complaint')!, '  Slide stuck ');
    typeInto(byTestId(root, 'new-customer')!, 'Bob');
    typeInto(byTestId(root, 'new-language')!, 'ru');
    typeInto(byTestId(root, 'new-odometer')!, '41250');
    typeInto(byTestId(root, 'new-engine-hours')!, '12.5');
    click(byTestId(root, 'create-session'));
    await waitFor(() => byTestId(root, 'detail-complaint'));
    expect(backend.callsOf('session_new')).toEqual([
      { complaint: 'Slide stuck', customer: 'Bob', language: 'ru', odometer: 41250, odometer_unit: 'mi', engine_hours: 12.5 },
    ]);
    expect(byTestId(root, 'detail-complaint')!.textContent).toBe('Slide stuck');
    expect(byTestId(root, 'new-session-form')).toBeNull();
  });

  it('rejects a fractional odometer inline', async () => {
    const { root, backend } = mount({ session_new: () => makeSession() });
    click(byTestId(root, 'new-session-button'));
    typeInto(byTestId(root, 'new-complaint')!, 'x');
    typeInto(byTestId(root, 'new-odometer')!, '12.5');
    click(byTestId(root, 'create-session'));
    await waitFor(() => byTestId(root, 'odometer-error'));
    expect(backend.callsOf('session_new')).toHaveLength(0);
  });

  it('shows the backend error message and keeps the form', async () => {
    const { root } = mount({
      session_new: () => {
        throw appError('storage', 'cannot write the database: disk full');
      },
    });
    click(byTestId(root, 'new-session-button'));
    typeInto(byTestId(root, 'new-complaint')!, 'Fridge warm');
    click(byTestId(root, 'create-session'));
    const err = await waitFor(() => byTestId(root, 'new-session-error'));
    expect(err.textContent).toContain('disk full');
    expect(err.getAttribute('data-code')).toBe('storage');
    expect((byTestId(root, 'new-complaint') as HTMLTextAreaElement).value).toBe('Fridge warm');
  });
});

describe('session detail', () => {
  async function openDetail(handlers: Handlers, artifacts: ReturnType<typeof makeArtifact>[] = []) {
    const s = makeSession({ complaint: 'Water pump cycles', artifact_count: artifacts.length });
    const ctx = mount({
      session_list: () => ({ sessions: [listed(s)] }),
      session_show: () => ({ session: s, turns: [], artifacts, state: makeState(), edits: [], earlier_visits: [] }),
      ...handlers,
    });
    click(await waitFor(() => byTestId(ctx.root, 'session-row')));
    await waitFor(() => byTestId(ctx.root, 'session-detail'));
    return { ...ctx, s };
  }

  it('badges a photo whose thumbnail is missing, and asks no thumbnail for a document', async () => {
    const s0 = 'sess';
    const photo = makeArtifact(s0, { file_name: 'gone.jpg' });
    const pdf = makeArtifact(s0, { file_name: 'invoice.pdf', mime: 'application/pdf', kind: 'document', thumbnail: 'none' });
    const { root, backend } = await openDetail(
      {
        artifact_content: () => {
          throw appError('artifact_missing', 'blob abc is missing');
        },
      },
      [photo, pdf],
    );
    const badge = await waitFor(() => byTestId(root, 'photo-badge'));
    expect(badge.textContent).toBe('Missing');
    expect(badge.getAttribute('data-code')).toBe('artifact_missing');
    expect(allByTestId(root, 'photo-doc')).toHaveLength(1);
    expect(backend.callsOf('artifact_content')).toEqual([{ artifact_id: photo.id, thumbnail: true }]);
  });

  it('uploads picked files as base64 with the caption, and refuses an oversized file before sending', async () => {
    let uploaded: CommandRequest<'artifact_upload'> | null = null;
    const { root, backend, s } = await openDetail({
      artifact_upload: (p) => {
        uploaded = p;
        return makeArtifact(p.session_id, { file_name: p.file_name });
      },
    });
    typeInto(byTestId(root, 'photo-caption')!, 'burnt connector');
    const small = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3])], 'a.jpg', { type: 'image/jpeg' });
    const huge = new File([new Uint8Array(MAX_FILE_BYTES + 1)], 'huge.jpg', { type: 'image/jpeg' });
    setFiles(byTestId(root, 'photo-input') as HTMLInputElement, [small, huge]);

    await waitFor(() =>
      allByTestId(root, 'upload-item').every((el) => ['done', 'error'].includes(el.getAttribute('data-status')!)),
    );
    const [first, second] = allByTestId(root, 'upload-item');
    expect(first.getAttribute('data-status')).toBe('done');
    expect(second.getAttribute('data-status')).toBe('error');
    expect(byTestId(second, 'upload-error')!.getAttribute('data-code')).toBe('too_large');
    expect(byTestId(second, 'upload-error')!.textContent).toContain('huge.jpg');

    expect(backend.callsOf('artifact_upload')).toHaveLength(1);
    expect(uploaded).toEqual({
      session_id: s.id,
      file_name: 'a.jpg',
      content_base64: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).toString('base64'),
      caption: 'burnt connector',
    });
    // The detail reloads after an upload.
    await waitFor(() => backend.callsOf('session_show').length >= 2);
  });

  it('shows the per-file backend error of a failed upload', async () => {
    const { root } = await openDetail({
      artifact_upload: () => {
        throw appError('unsupported_type', 'notes.txt is not a supported file type (looks like text)');
      },
    });
    setFiles(byTestId(root, 'photo-input') as HTMLInputElement, [new File(['hello'], 'notes.txt')]);
    const err = await waitFor(() => byTestId(root, 'upload-error'));
    expect(err.getAttribute('data-code')).toBe('unsupported_type');
    expect(err.textContent).toContain('looks like text');
  });

  it('offers purge after has_artifacts and deletes with purge: true', async () => {
    const { root, backend, s } = await openDetail({
      session_delete: (p) => {
        if (!p.purge) throw appError('has_artifacts', `session ${p.session_id} has 2 photo(s)/file(s)`);
        return { deleted: true, purged_artifacts: 2 };
      },
    });
    click(byTestId(root, 'delete-button'));
    click(byTestId(root, 'delete-confirm-button'));
    const err = await waitFor(() => byTestId(root, 'delete-error'));
    expect(err.getAttribute('data-code')).toBe('has_artifacts');
    click(byTestId(root, 'delete-purge-button'));
    await waitFor(() => byTestId(root, 'notice'));
    expect(backend.callsOf('session_delete')).toEqual([
      { session_id: s.id, purge: false },
      { session_id: s.id, purge: true },
    ]);
    expect(byTestId(root, 'session-detail')).toBeNull();
  });

  it('shows verify results per file', async () => {
    const a1 = makeArtifact('x', { file_name: 'ok.jpg' });
    const a2 = makeArtifact('x', { file_name: 'bad.jpg' });
    const { root } = await openDetail(
      {
        artifact_content: () => ({ mime: 'image/png', content_base64: 'iVBORw0KGgo=' }),
        artifact_verify: () => ({
          checked: 2,
          ok: 1,
          results: [
            { artifact_id: a1.id, session_id: a1.session_id, sha256: a1.sha256, file_name: 'ok.jpg', status: 'ok' },
            { artifact_id: a2.id, session_id: a2.session_id, sha256: a2.sha256, file_name: 'bad.jpg', status: 'corrupt' },
          ],
        }),
      },
      [a1, a2],
    );
    click(byTestId(root, 'verify-button'));
    await waitFor(() => byTestId(root, 'verify-summary'));
    expect(byTestId(root, 'verify-summary')!.textContent).toBe('1 of 2 damaged');
    expect(allByTestId(root, 'verify-result').map((r) => r.getAttribute('data-status'))).toEqual(['ok', 'corrupt']);
    const badges = allByTestId(root, 'photo-badge');
    expect(badges.map((b) => b.textContent)).toEqual(['Corrupt']);
  });
});
