import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { App } from '../App';
import { appError, installFakeBackend, type Handlers } from '../test/fakeBackend';
import { allByTestId, byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';

const INFO = { name: 'RV Service Desk', version: '9.9.9', data_dir: '/data/desk', schema_version: 1, sessions: 0, artifacts: 0 };

function src(over: Record<string, unknown> = {}) {
  return {
    source_id: 'policy-storage-fees',
    version: 2,
    doc_type: 'policy_doc',
    source_type: 'document',
    title: 'Storage and lot parking fees',
    language: 'en',
    city_code: 'SEA',
    lot_codes: ['A', 'B'],
    effective_from: '2026-03-01',
    effective_to: null,
    superseded_at: null,
    active: true,
    chunks: 8,
    clarifying_questions: 2,
    requires_handoff: false,
    origin: 'knowledge/policy-storage-fees.v2.md',
    ingested_at: '2026-11-23T21:33:24Z',
    source: 'default' as const,
    has_file: false,
    ...over,
  };
}

const SOURCES = [
  src(),
  src({ version: 1, active: false, superseded_at: '2026-03-01T00:00:00Z', effective_from: '2025-01-01', clarifying_questions: 0 }),
  src({
    source_id: 'procedure-customer-damage-claim',
    version: 1,
    doc_type: 'procedure',
    title: 'Customer damage claims',
    city_code: null,
    lot_codes: [],
    effective_from: null,
    clarifying_questions: 3,
    requires_handoff: true,
  }),
  src({ source_id: 'faq-tire-age', version: 1, doc_type: 'faq', title: 'How old are these tires?', city_code: null, lot_codes: [], effective_from: null, clarifying_questions: 0 }),
];

let view: Rendered | null = null;

beforeEach(() => {
  window.history.replaceState(null, '', '/');
});

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

function mount(handlers: Handlers = {}) {
  const backend = installFakeBackend({
    app_info: () => INFO,
    session_list: () => ({ sessions: [] }),
    knowledge_sources: () => ({ sources: SOURCES }),
    ...handlers,
  });
  view = render(<App />);
  return { backend, root: view.container };
}

function altKey(digit: string) {
  act(() => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key: digit, code: `Digit${digit}`, altKey: true, bubbles: true, cancelable: true }));
  });
}

async function openKnowledge(handlers: Handlers = {}) {
  const m = mount(handlers);
  click(byTestId(m.root, 'nav-knowledge'));
  await waitFor(() => allByTestId(m.root, 'source-row').length > 0);
  return m;
}

function setFiles(input: HTMLInputElement, files: File[]) {
  Object.defineProperty(input, 'files', { configurable: true, value: files });
  act(() => {
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

function submit(el: HTMLElement | null) {
  act(() => {
    el!.closest('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
}

describe('workspace switch', () => {
  it('switches between Sessions and Knowledge by the header links and by Alt+1 / Alt+2', async () => {
    const { root, backend } = mount();
    const nav = byTestId(root, 'workspace-nav')!;
    expect(nav.tagName).toBe('NAV');
    expect(nav.getAttribute('aria-label')).toBe('Workspaces');
    expect(byTestId(root, 'nav-sessions')!.getAttribute('aria-current')).toBe('page');
    expect(byTestId(root, 'nav-knowledge')!.getAttribute('aria-keyshortcuts')).toBe('Alt+2');
    // Not loaded until first opened.
    expect(byTestId(root, 'knowledge-workspace')).toBeNull();

    altKey('2');
    await waitFor(() => allByTestId(root, 'source-row').length === 4);
    expect(byTestId(root, 'nav-knowledge')!.getAttribute('aria-current')).toBe('page');
    expect(byTestId(root, 'nav-sessions')!.getAttribute('aria-current')).toBeNull();
    expect(byTestId(root, 'sessions-workspace')!.hidden).toBe(true);
    expect(window.location.hash).toBe('#knowledge');
    await waitFor(() => document.activeElement?.id === 'workspace-knowledge');

    altKey('1');
    expect(byTestId(root, 'sessions-workspace')!.hidden).toBe(false);
    // Kept mounted (hidden) so its state survives the switch.
    expect(byTestId(root, 'knowledge-workspace')!.closest('main')!.hidden).toBe(true);
    expect(window.location.hash).toBe('');

    click(byTestId(root, 'nav-knowledge'));
    expect(byTestId(root, 'knowledge-workspace')!.closest('main')!.hidden).toBe(false);
    expect(backend.callsOf('knowledge_sources')).toHaveLength(1);
  });

  it('opens on Knowledge when the page URL says #knowledge', async () => {
    window.history.replaceState(null, '', '/#knowledge');
    const { root } = mount();
    await waitFor(() => allByTestId(root, 'source-row').length === 4);
  });
});

describe('sources', () => {
  it('lists every source version with scope, validity, state, questions and hand-off, filterable by doc_type', async () => {
    const { root } = await openKnowledge();
    const rows = allByTestId(root, 'source-row');
    expect(rows.map((r) => `${r.dataset.sourceId}@${r.dataset.version}:${r.dataset.state}`)).toEqual([
      'policy-storage-fees@2:active',
      'policy-storage-fees@1:superseded',
      'procedure-customer-damage-claim@1:active',
      'faq-tire-age@1:active',
    ]);
    expect(byTestId(rows[0], 'source-scope')!.textContent).toBe('SEA · lots A, B');
    expect(byTestId(rows[0], 'source-validity')!.textContent).toBe('from 2026-03-01');
    expect(byTestId(rows[0], 'source-questions')!.textContent).toBe('2');
    expect(byTestId(rows[1], 'source-state')!.textContent).toBe('Superseded');
    expect(byTestId(rows[0], 'source-handoff')).toBeNull();
    expect(byTestId(rows[2], 'source-handoff')!.textContent).toBe('Hand-off');
    expect(byTestId(root, 'sources-count')!.textContent).toBe('(4)');

    const select = byTestId(root, 'sources-doc-type') as HTMLSelectElement;
    expect(Array.from(select.options).map((o) => o.textContent)).toEqual(['All types (4)', 'Policy (2)', 'Procedure (1)', 'FAQ (1)']);
    typeInto(select, 'faq');
    expect(allByTestId(root, 'source-row').map((r) => r.dataset.sourceId)).toEqual(['faq-tire-age']);
    expect(byTestId(root, 'sources-count')!.textContent).toBe('(1 of 4)');
  });

  it('shows a backend error where the table would be', async () => {
    const { root } = mount({
      knowledge_sources: () => {
        throw appError('storage', 'database error: disk I/O error');
      },
    });
    click(byTestId(root, 'nav-knowledge'));
    const err = await waitFor(() => byTestId(root, 'sources-error'));
    expect(err.dataset.code).toBe('storage');
    expect(err.textContent).toContain('disk I/O error');
  });
});

describe('ingest', () => {
  it('reads picked files as text, sends knowledge_ingest, shows the report and reloads the sources', async () => {
    let sources = SOURCES;
    const { root, backend } = await openKnowledge({
      knowledge_sources: () => ({ sources }),
      knowledge_ingest: (p) => {
        sources = [...SOURCES, src({ source_id: 'test-zebra', version: 1, doc_type: 'faq', title: 'Zebra stripes' })];
        return {
          imported: [{ source_id: 'test-zebra', version: 1, chunks: 2, origin: p.files[0].name }],
          unchanged: [{ source_id: 'faq-tire-age', version: 1, chunks: 1, origin: 'tires.jsonl' }],
          skipped: [{ file: 'bad.md', line: 3, field: 'doc_type', message: 'unknown doc_type "memo"' }],
          chunks: 2,
        };
      },
    });
    const files = [
      new File(['---\nsource_id: test-zebra\n---\nZebra'], 'zebra.md', { type: 'text/markdown' }),
      new File(['{"source_id":"faq-tire-age"}\n'], 'tires.jsonl'),
      new File(['---\ndoc_type: memo\n---\n'], 'bad.md'),
      new File([new Uint8Array([0xff, 0xd8])], 'photo.jpg', { type: 'image/jpeg' }),
    ];
    setFiles(byTestId(root, 'knowledge-file-input') as HTMLInputElement, files);
    const report = await waitFor(() => byTestId(root, 'ingest-report'));
    expect(backend.callsOf('knowledge_ingest')).toEqual([
      {
        files: [
          { name: 'zebra.md', content: '---\nsource_id: test-zebra\n---\nZebra' },
          { name: 'tires.jsonl', content: '{"source_id":"faq-tire-age"}\n' },
          { name: 'bad.md', content: '---\ndoc_type: memo\n---\n' },
        ],
      },
    ]);
    expect(byTestId(report, 'ingest-summary')!.textContent).toBe('1 imported (2 chunks), 1 unchanged, 2 skipped');
    expect(byTestId(report, 'ingest-imported')!.textContent).toContain('test-zebra v1 · 2 chunks');
    expect(byTestId(report, 'ingest-unchanged')!.dataset.sourceId).toBe('faq-tire-age');
    const skipped = byTestId(report, 'ingest-skipped')!;
    expect(skipped.textContent).toBe('bad.md:3 doc_type: unknown doc_type "memo"');
    expect(skipped.dataset.line).toBe('3');
    expect(byTestId(report, 'ingest-refused')!.textContent).toContain('photo.jpg: not sent');

    // The sources reload and the new one is marked.
    const row = await waitFor(() => root.querySelector<HTMLElement>('[data-testid="source-row"][data-source-id="test-zebra"]'));
    expect(row.className).toContain('is-new');
    expect(backend.callsOf('knowledge_sources')).toHaveLength(2);
  });

  it('accepts files dropped on the zone', async () => {
    const { root, backend } = await openKnowledge({
      knowledge_ingest: () => ({ imported: [], unchanged: [], skipped: [], chunks: 0 }),
    });
    const zone = byTestId(root, 'knowledge-dropzone')!;
    const file = new File(['---\n---\n'], 'dropped.markdown');
    const dataTransfer = { types: ['Files'], files: [file], dropEffect: 'none' };
    const fire = (type: string) => {
      const e = new Event(type, { bubbles: true, cancelable: true });
      Object.defineProperty(e, 'dataTransfer', { value: dataTransfer });
      act(() => {
        zone.dispatchEvent(e);
      });
    };
    fire('dragenter');
    expect(zone.dataset.dragging).toBe('true');
    fire('dragover');
    fire('drop');
    expect(zone.dataset.dragging).toBe('false');
    await waitFor(() => byTestId(root, 'ingest-report'));
    expect(backend.callsOf('knowledge_ingest')[0].files[0].name).toBe('dropped.markdown');
  });

  it('sends nothing when no file is a knowledge document, and says why', async () => {
    const { root, backend } = await openKnowledge();
    setFiles(byTestId(root, 'knowledge-file-input') as HTMLInputElement, [new File(['x'], 'notes.txt')]);
    const report = await waitFor(() => byTestId(root, 'ingest-report'));
    expect(byTestId(report, 'ingest-refused')!.textContent).toContain('notes.txt: not sent: not a knowledge document');
    expect(backend.callsOf('knowledge_ingest')).toHaveLength(0);
  });

  it('shows a backend error next to the drop zone', async () => {
    const { root } = await openKnowledge({
      knowledge_ingest: () => {
        throw appError('too_large', 'request body too large');
      },
    });
    setFiles(byTestId(root, 'knowledge-file-input') as HTMLInputElement, [new File(['---\n'], 'a.md')]);
    const err = await waitFor(() => byTestId(root, 'ingest-error'));
    expect(err.dataset.code).toBe('too_large');
    expect(byTestId(root, 'knowledge-choose')!.textContent).toBe('Choose files…');
  });
});

describe('search', () => {
  it('sends the filters and shows results with the query words marked, chunk id and title', async () => {
    const { root, backend } = await openKnowledge({
      knowledge_search: () => ({
        results: [
          {
            source_id: 'policy-storage-fees',
            version: 2,
            title: 'Storage and lot parking fees',
            doc_type: 'policy_doc',
            source_type: 'document',
            language: 'en',
            chunk_id: 'policy-storage-fees@v2#7',
            heading: 'Billing and disputes',
            score: 9.2854,
            snippet: 'Storage disputes go to the manager; only the service manager may waive storage fees.',
            source: 'default',
            page: null,
          },
        ],
      }),
    });
    typeInto(byTestId(root, 'knowledge-query')!, 'storage waiver');
    typeInto(byTestId(root, 'filter-doc-type')!, 'policy_doc');
    typeInto(byTestId(root, 'filter-city')!, 'sea');
    typeInto(byTestId(root, 'filter-lot')!, 'b');
    typeInto(byTestId(root, 'filter-at')!, '2026-04-01');
    click(byTestId(root, 'filter-inactive'));
    click(byTestId(root, 'knowledge-search-button'));
    const result = await waitFor(() => byTestId(root, 'search-result'));
    expect(backend.callsOf('knowledge_search')).toEqual([
      { query: 'storage waiver', doc_type: 'policy_doc', city_code: 'SEA', lot_code: 'B', at_time: '2026-04-01', include_inactive: true, top_k: 10 },
    ]);
    expect(byTestId(result, 'result-title')!.textContent).toBe('Storage and lot parking fees');
    expect(byTestId(result, 'result-chunk-id')!.textContent).toBe('policy-storage-fees@v2#7');
    expect(byTestId(result, 'result-source')!.textContent).toBe(' · default document');
    expect(byTestId(result, 'result-page')).toBeNull();
    const marks = Array.from(byTestId(result, 'result-snippet')!.querySelectorAll('mark')).map((m) => m.textContent);
    expect(marks).toEqual(['Storage', 'waive', 'storage']);
    expect(byTestId(result, 'result-snippet')!.textContent).toBe('Storage disputes go to the manager; only the service manager may waive storage fees.');
    expect(byTestId(root, 'search-count')!.textContent).toContain('1 result for “storage waiver”');
    expect(byTestId(root, 'knowledge-filters-toggle')!.textContent).toBe('Filters (5)');
  });

  it('shows the backend error under the search box and says when nothing was found', async () => {
    let fail = true;
    const { root } = await openKnowledge({
      knowledge_search: () => {
        if (fail) throw appError('invalid_input', 'at_time: "x" is not a time: use YYYY-MM-DD, YYYY-MM-DDTHH:MM (local time) or RFC 3339 with an offset');
        return { results: [] };
      },
    });
    typeInto(byTestId(root, 'knowledge-query')!, 'lasagna');
    submit(byTestId(root, 'knowledge-query'));
    const err = await waitFor(() => byTestId(root, 'search-error'));
    expect(err.dataset.code).toBe('invalid_input');
    expect(err.textContent).toContain('at_time');
    expect(byTestId(root, 'knowledge-query')!.getAttribute('aria-invalid')).toBe('true');
    fail = false;
    submit(byTestId(root, 'knowledge-query'));
    await waitFor(() => byTestId(root, 'search-count'));
    expect(byTestId(root, 'search-count')!.textContent).toBe('Nothing found for “lasagna”.');
    expect(byTestId(root, 'search-error')).toBeNull();
  });

  it('asks for words before searching', async () => {
    const { root, backend } = await openKnowledge();
    click(byTestId(root, 'knowledge-search-button'));
    expect(byTestId(root, 'search-error')!.textContent).toContain('Type what to look for');
    expect(backend.callsOf('knowledge_search')).toHaveLength(0);
  });
});

describe('ask', () => {
  it('opens a cited PDF at the cited page in a dialog, and says what went wrong when the file is not there', async () => {
    const created: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (b: Blob) => (created.push(b), 'blob:pdf-1'), revokeObjectURL: () => {} }));
    const citation = { source_id: 'atwood-manual', version: 2, chunk_id: 'atwood-manual@v2#7', title: 'Atwood 8500 manual', snippet: 'Sail switch', source: 'shop' as const, page: 12 };
    let missing = false;
    const { root, backend } = await openKnowledge({
      knowledge_ask: () => ({ conclusion: 'See the manual.', key_points: [{ text: 'Sail switch.', citation: 0 }], citations: [citation], clarifying_questions: [], requires_handoff: false }),
      knowledge_source_file: () => {
        if (missing) throw appError('not_found', 'atwood-manual version 2: no imported file');
        return { source_id: 'atwood-manual', version: 2, title: 'Atwood 8500 manual', media_type: 'application/pdf', data_base64: btoa('%PDF-1.4 x'), page: null };
      },
    });
    typeInto(byTestId(root, 'ask-input')!, 'sail switch?');
    click(byTestId(root, 'ask-button'));
    const answer = await waitFor(() => byTestId(root, 'ask-answer'));
    const open = byTestId(answer, 'citation-open')!;
    expect(open.textContent).toBe('Open at p. 12');
    click(open);
    const dialog = await waitFor(() => byTestId(document.body, 'source-file-dialog'));
    expect(backend.callsOf('knowledge_source_file')).toEqual([{ source_id: 'atwood-manual', version: 2 }]);
    expect(dialog.textContent).toContain('Atwood 8500 manual, p. 12');
    expect(byTestId(dialog, 'source-file-frame')!.getAttribute('src')).toBe('blob:pdf-1#page=12');
    expect(created[0].type).toBe('application/pdf');
    expect(created[0].size).toBe('%PDF-1.4 x'.length);
    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    });
    expect(byTestId(document.body, 'source-file-dialog')).toBeNull();
    missing = true;
    click(byTestId(answer, 'citation-open')!);
    const error = await waitFor(() => byTestId(root, 'ask-error'));
    expect(error.textContent).not.toBe('');
    expect(byTestId(document.body, 'source-file-dialog')).toBeNull();
    vi.unstubAllGlobals();
  });

  it('shows the conclusion, key points with [n] markers, the citations, and the questions the document asks first', async () => {
    const { root, backend } = await openKnowledge({
      knowledge_ask: () => ({
        conclusion: 'According to «Warranty eligibility» (v1): This FAQ is the eligibility check.',
        key_points: [
          { text: 'Check the portal before telling a second owner a repair is covered.', citation: 1 },
          { text: 'The failed part decides the path.', citation: 0 },
        ],
        citations: [
          { source_id: 'faq-warranty-eligibility', version: 1, chunk_id: 'faq-warranty-eligibility@v1#0', title: 'Warranty eligibility', snippet: 'This FAQ is the eligibility check.', source: 'default', page: null },
          { source_id: 'faq-warranty-eligibility', version: 1, chunk_id: 'faq-warranty-eligibility@v1#5', title: 'Warranty eligibility', snippet: 'Check the portal.', source: 'shop', page: 4 },
        ],
        clarifying_questions: ["What is the unit's model year?", 'Who made the failed component?'],
        requires_handoff: false,
      }),
    });
    typeInto(byTestId(root, 'ask-input')!, 'is this covered by warranty?');
    click(byTestId(root, 'ask-button'));
    const answer = await waitFor(() => byTestId(root, 'ask-answer'));
    expect(backend.callsOf('knowledge_ask')).toEqual([{ question: 'is this covered by warranty?' }]);
    expect(byTestId(answer, 'ask-conclusion')!.textContent).toContain('eligibility check');
    expect(allByTestId(answer, 'ask-key-point').map((k) => byTestId(k, 'cite-marker')!.textContent)).toEqual(['[2]', '[1]']);
    expect(allByTestId(answer, 'ask-citation').map((c) => c.dataset.chunkId)).toEqual(['faq-warranty-eligibility@v1#0', 'faq-warranty-eligibility@v1#5']);
    // Whose document each source is, and a PDF's page.
    expect(allByTestId(answer, 'citation-source').map((c) => c.textContent)).toEqual(['default document', 'shop document']);
    expect(allByTestId(answer, 'citation-page').map((c) => c.textContent)).toEqual([' · p. 4']);
    expect(byTestId(answer, 'ask-did-you-mean')).toBeNull();
    const asks = byTestId(answer, 'ask-clarifying')!;
    expect(asks.textContent).toContain('This document asks first:');
    expect(allByTestId(asks, 'ask-clarifying-question').map((q) => q.textContent)).toEqual(["What is the unit's model year?", 'Who made the failed component?']);
    expect(asks.textContent).toContain('one by one');
    expect(byTestId(answer, 'ask-handoff')).toBeNull();
    // A marker jumps to its source without touching the URL hash (which picks the workspace).
    click(byTestId(allByTestId(answer, 'ask-key-point')[0], 'cite-marker'));
    expect(document.activeElement).toBe(allByTestId(answer, 'ask-citation')[1]);
    expect(window.location.hash).toBe('#knowledge');
  });

  it('offers the near titles when the shop documents do not cover the question', async () => {
    const { root } = await openKnowledge({
      knowledge_ask: () => ({
        conclusion: "The shop's documents don't cover this, so I won't guess.",
        key_points: [],
        citations: [],
        did_you_mean: ['Winterizing and de-winterizing your RV water system'],
      }),
    });
    typeInto(byTestId(root, 'ask-input')!, 'how do I winterize a swimming pool?');
    click(byTestId(root, 'ask-button'));
    const answer = await waitFor(() => byTestId(root, 'ask-answer'));
    expect(answer.dataset.found).toBe('false');
    expect(byTestId(answer, 'ask-did-you-mean')!.textContent).toContain('Did you mean:');
    expect(allByTestId(answer, 'ask-near-title').map((t) => t.textContent)).toEqual(['Winterizing and de-winterizing your RV water system']);
    expect(byTestId(answer, 'ask-citations')).toBeNull();
  });

  it('sends a PDF as base64 and a text file as text', async () => {
    const { root, backend } = await openKnowledge({
      knowledge_ingest: () => ({ imported: [{ source_id: 'pdf-manual', version: 1, chunks: 3, origin: 'manual.pdf' }], unchanged: [], skipped: [], chunks: 3 }),
    });
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x0a, 0xff]);
    setFiles(byTestId(root, 'knowledge-file-input') as HTMLInputElement, [
      new File([pdf], 'manual.pdf', { type: 'application/pdf' }),
      new File(['---\n---\n'], 'a.md'),
    ]);
    await waitFor(() => byTestId(root, 'ingest-report'));
    expect(backend.callsOf('knowledge_ingest')).toEqual([
      {
        files: [
          { name: 'manual.pdf', content_base64: 'JVBERi0xLjcK/w==' },
          { name: 'a.md', content: '---\n---\n' },
        ],
      },
    ]);
  });

  it('says when a document requires a hand-off, and shows errors beside the box', async () => {
    let fail = true;
    const { root } = await openKnowledge({
      knowledge_ask: () => {
        if (fail) throw appError('storage', 'database error: locked');
        return { conclusion: 'Claims go to the manager.', key_points: [], citations: [], clarifying_questions: [], requires_handoff: true };
      },
    });
    typeInto(byTestId(root, 'ask-input')!, 'customer damage claim');
    click(byTestId(root, 'ask-button'));
    const err = await waitFor(() => byTestId(root, 'ask-error'));
    expect(err.dataset.code).toBe('storage');
    fail = false;
    click(byTestId(root, 'ask-button'));
    await waitFor(() => byTestId(root, 'ask-handoff'));
    expect(byTestId(root, 'ask-error')).toBeNull();
    expect(byTestId(root, 'ask-answer')!.dataset.found).toBe('false');
  });
});

describe('citation chip → source', () => {
  it('opens the knowledge workspace filtered to the cited source', async () => {
    const { root } = mount();
    act(() => {
      window.dispatchEvent(new CustomEvent('servicedesk:open-knowledge-source', { detail: 'faq-tire-age' }));
    });
    await waitFor(() => allByTestId(root, 'source-row').length === 1);
    expect(allByTestId(root, 'source-row')[0].dataset.sourceId).toBe('faq-tire-age');
    expect((byTestId(root, 'sources-filter') as HTMLInputElement).value).toBe('faq-tire-age');
    expect(byTestId(root, 'nav-knowledge')!.getAttribute('aria-current')).toBe('page');
  });
});
