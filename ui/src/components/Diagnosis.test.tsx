import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { act } from 'react';
import { readFileBytes } from '../files';
import { SessionDetailView } from './SessionDetail';
import type { Artifact, CommandRequest, SourceInfo, Turn } from '../api';
import { appError, fakeDiagnosis, installFakeBackend, makeState, makeTurn, type FakeDiagnosis, type Handlers } from '../test/fakeBackend';
import { allByTestId, byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';

let view: Rendered | null = null;

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
});

async function open(handlers: Handlers = {}, diag: FakeDiagnosis = fakeDiagnosis()) {
  const backend = installFakeBackend({ ...diag.handlers, artifact_content: () => ({ mime: 'image/jpeg', content_base64: '/9j/' }), ...handlers });
  const onChanged = vi.fn();
  view = render(<SessionDetailView sessionId={diag.session.id} onChanged={onChanged} onDeleted={() => {}} />);
  const root = view.container;
  await waitFor(() => byTestId(root, 'context-system'));
  return { backend, root, diag, onChanged, input: byTestId(root, 'chat-input') as HTMLTextAreaElement };
}

function pressEnter(el: HTMLElement, shift = false) {
  act(() => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: shift, bubbles: true, cancelable: true }));
  });
}

/** Types a message and presses Enter; resolves once the reply is shown. */
async function say(root: HTMLElement, text: string) {
  const before = allByTestId(root, 'chat-turn').length;
  const input = byTestId(root, 'chat-input')!;
  typeInto(input, text);
  pressEnter(input);
  await waitFor(() => allByTestId(root, 'chat-turn').length === before + 1);
  return allByTestId(root, 'chat-turn')[before];
}

describe('chat history', () => {
  it('shows stored turns with a badge per reply kind (reply JSON or text + trace) and reports as sections', async () => {
    const diag = fakeDiagnosis();
    const t = (seq: number, reply: string, trace: Turn['trace'] = {}) => makeTurn(diag.session.id, seq, { reply, trace });
    const turns = [
      t(1, JSON.stringify({ kind: 'question', text: 'Is the panel fuse OK?', step_id: 'panel_fuse', citations: [] })),
      t(2, 'Say that again?', { reply_kind: 'clarification' }),
      t(3, JSON.stringify({ kind: 'refusal', text: 'Not without a finding.', step_id: null, citations: ['procedure:dc_12v'] })),
      t(4, 'Complaint:\nFan dead.\n\nCause:\nFuse open.\n\nEstimated labor:\nTotal labor: 1.5 hr\n', { reply_kind: 'report' }),
    ];
    const { root } = await open({ session_show: () => ({ session: diag.session, turns, artifacts: [], state: makeState(), edits: [], earlier_visits: [] }) }, diag);
    await waitFor(() => allByTestId(root, 'chat-turn').length === 4);
    const shown = allByTestId(root, 'chat-turn');
    expect(shown.map((el) => byTestId(el, 'reply-kind')!.textContent)).toEqual(['Question', 'Clarification', 'Refused', 'Report']);
    expect(shown.map((el) => el.getAttribute('data-kind'))).toEqual(['question', 'clarification', 'refusal', 'report']);
    expect(byTestId(shown[0], 'chat-reply')!.textContent).toBe('Is the panel fuse OK?');
    // A procedure citation in words; its id only under Details.
    expect(byTestId(shown[2], 'citations')!.textContent).toBe('Sources: the dc 12v procedure');
    expect(byTestId(shown[2], 'reply-details')!.textContent).toContain('procedure:dc_12v');
    // A report is preformatted text, one block per section.
    expect(byTestId(shown[3], 'chat-reply')).toBeNull();
    const sections = allByTestId(shown[3], 'report-section');
    expect(sections.map((s) => s.getAttribute('data-title'))).toEqual(['Complaint', 'Cause', 'Estimated labor']);
    expect(sections[2].querySelector('pre')!.textContent).toBe('Total labor: 1.5 hr');
    expect(byTestId(root, 'turns-empty')).toBeNull();
  });

  it('shows the empty state for a new session', async () => {
    const { root } = await open();
    expect(byTestId(root, 'turns-empty')).not.toBeNull();
    expect(byTestId(root, 'context-system')!.textContent).toBe('No procedure yet');
  });
});

describe('sending', () => {
  it('sends on Enter (not Shift+Enter), shows "sending…", keeps focus and refreshes the context', async () => {
    const diag = fakeDiagnosis();
    const { root, backend, input, onChanged } = await open({}, diag);
    input.focus();
    typeInto(input, 'roof vent fan');
    pressEnter(input, true);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 30));
    });
    expect(backend.callsOf('chat_turn')).toHaveLength(0);

    typeInto(input, "roof vent fan doesn't work");
    const release = diag.holdNext();
    pressEnter(input);
    await waitFor(() => byTestId(root, 'chat-pending'));
    expect(byTestId(root, 'chat-pending')!.textContent).toContain('sending…');
    expect(byTestId(root, 'chat-send')!.textContent).toBe('Sending…');
    expect((byTestId(root, 'chat-send') as HTMLButtonElement).disabled).toBe(true);
    expect(input.readOnly).toBe(true);
    // A second Enter while sending sends nothing more.
    pressEnter(input);
    release();
    await waitFor(() => allByTestId(root, 'chat-turn').length === 1);
    expect(backend.callsOf('chat_turn')).toEqual([{ session_id: diag.session.id, text: "roof vent fan doesn't work", attachments: [] }]);
    expect(byTestId(root, 'chat-pending')).toBeNull();
    expect(input.value).toBe('');
    expect(input.readOnly).toBe(false);
    expect(document.activeElement).toBe(input);
    expect(byTestId(allByTestId(root, 'chat-turn')[0], 'reply-kind')!.textContent).toBe('Question');
    // The context is fetched again after the turn, and the list is told.
    await waitFor(() => byTestId(root, 'context-system')!.textContent!.includes('12 V DC'));
    expect(backend.callsOf('session_context').length).toBeGreaterThanOrEqual(2);
    expect(onChanged).toHaveBeenCalled();
  });

  it('shows a backend error next to the input and keeps the typed text', async () => {
    const diag = fakeDiagnosis();
    const { root, input } = await open({}, diag);
    diag.failNext('storage', 'cannot write the database: disk full');
    typeInto(input, 'roof vent fan dead');
    pressEnter(input);
    const err = await waitFor(() => byTestId(root, 'chat-error'));
    expect(err.textContent).toContain('cannot write the database: disk full');
    expect(err.getAttribute('data-code')).toBe('storage');
    expect(input.value).toBe('roof vent fan dead');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(input);
    expect(allByTestId(root, 'chat-turn')).toHaveLength(0);

    // Sending again succeeds and clears the error.
    pressEnter(input);
    await waitFor(() => allByTestId(root, 'chat-turn').length === 1);
    expect(byTestId(root, 'chat-error')).toBeNull();
    expect(input.value).toBe('');
  });

  it('a failed button send keeps the draft too', async () => {
    const diag = fakeDiagnosis();
    const { root, input } = await open({}, diag);
    await say(root, 'roof vent fan');
    await waitFor(() => byTestId(root, 'quick-answer'));
    typeInto(input, 'half-typed note');
    diag.failNext('storage', 'database is locked');
    click(byTestId(root, 'quick-answer'));
    await waitFor(() => byTestId(root, 'chat-error'));
    expect(input.value).toBe('half-typed note');
  });

  it('does not send an empty message', async () => {
    const { root, backend, input } = await open();
    typeInto(input, '   ');
    pressEnter(input);
    expect((byTestId(root, 'chat-send') as HTMLButtonElement).disabled).toBe(true);
    expect(backend.callsOf('chat_turn')).toHaveLength(0);
  });

  it('sends picked photos as base64 and shows their thumbnail in the turn', async () => {
    const diag = fakeDiagnosis();
    const { root, backend, input } = await open({}, diag);
    const fileInput = byTestId(root, 'chat-photo-input') as HTMLInputElement;
    const file = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'fuse.jpg', { type: 'image/jpeg' });
    Object.defineProperty(fileInput, 'files', { configurable: true, value: [file] });
    act(() => {
      fileInput.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(byTestId(root, 'chat-pick')!.getAttribute('data-name')).toBe('fuse.jpg');
    typeInto(input, 'roof vent fan, fuse photo');
    pressEnter(input);
    await waitFor(() => allByTestId(root, 'chat-turn').length === 1);
    expect(backend.callsOf('chat_turn')[0].attachments).toEqual([{ file_name: 'fuse.jpg', content_base64: '/9j/4A==' }]);
    expect(byTestId(root, 'chat-pick')).toBeNull();
    const img = (await waitFor(() => byTestId(root, 'turn-photo-img'))) as HTMLImageElement;
    expect(img.src).toBe('data:image/jpeg;base64,/9j/');
    expect(img.alt).toBe('fuse.jpg');
    expect(byTestId(root, 'turn-photo')!.getAttribute('data-file-name')).toBe('fuse.jpg');
  });

  it('quick answers send their text', async () => {
    const { root, backend } = await open();
    await say(root, 'roof vent fan');
    const buttons = await waitFor(() => (allByTestId(root, 'quick-answer').length === 2 ? allByTestId(root, 'quick-answer') : null));
    expect(buttons.map((b) => b.textContent)).toEqual(['Yes', 'No']);
    click(buttons[1]);
    await waitFor(() => backend.callsOf('chat_turn').length === 2);
    expect(backend.callsOf('chat_turn')[1].text).toBe('no');
  });
});

describe('context panel', () => {
  it('shows step statuses, facts with source (superseded struck through), isolation and the last transition', async () => {
    const diag = fakeDiagnosis();
    const { root } = await open({}, diag);
    await say(root, 'roof vent fan');
    await waitFor(() => allByTestId(root, 'context-step').length === 3);
    expect(allByTestId(root, 'context-step').map((s) => s.getAttribute('data-status'))).toEqual(['active', 'open', 'open']);
    expect(allByTestId(root, 'context-step').map((s) => s.querySelector('.step-mark')!.textContent)).toEqual(['▶', '○', '○']);
    expect(byTestId(root, 'step-progress')!.textContent).toBe('0 of 3 checks done');
    expect(byTestId(root, 'isolation')!.textContent).toContain('Not isolated yet');
    expect(byTestId(root, 'labor-box')).toBeNull();
    expect(byTestId(root, 'report-box')).toBeNull();

    await say(root, 'panel fuse blown');
    await waitFor(() => byTestId(root, 'isolation')!.getAttribute('data-complete') === 'true');
    expect(allByTestId(root, 'context-step').map((s) => s.querySelector('.step-mark')!.textContent)).toEqual(['✓', '○', '○']);
    expect(byTestId(root, 'step-progress')!.textContent).toBe('1 of 3 checks done');
    expect(byTestId(root, 'isolation')!.textContent).toContain('Fan fuse at the 12 V panel open.');
    // The engine's ids are not in the words a technician reads, only under the closed Details.
    expect(byTestId(root, 'isolation')!.textContent).not.toContain('panel_fuse_open');
    const details = byTestId(root, 'ctx-details') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.contains(byTestId(root, 'isolation-finding'))).toBe(true);
    expect(details.contains(byTestId(root, 'last-transition'))).toBe(true);
    expect(byTestId(root, 'isolation-finding')!.textContent).toBe('panel_fuse_open');
    expect(byTestId(root, 'last-transition')!.textContent).toContain('D4_terminal');
    const fact = byTestId(root, 'context-fact')!;
    expect(fact.getAttribute('data-source')).toBe('technician');
    expect(fact.textContent).toContain('Technician');
    expect(fact.querySelector('s')).toBeNull();

    // A superseded fact is struck through and says so to screen readers.
    diag.patchContext({
      facts: [
        { id: 'f1', kind: 'measurement', name: 'battery_voltage', subject: 'battery', text: 'battery 11.9 V', value: '11.9', unit: 'VDC', source: 'technician', turn_seq: 1, superseded_by: 'f2' },
        { id: 'f2', kind: 'measurement', name: 'battery_voltage', subject: 'battery', text: 'battery 12.6 V', value: '12.6', unit: 'VDC', source: 'inference', turn_seq: 2 },
      ],
    });
    await say(root, 'anything');
    await waitFor(() => allByTestId(root, 'context-fact').length === 2);
    const [old, cur] = allByTestId(root, 'context-fact');
    expect(old.getAttribute('data-superseded')).toBe('true');
    expect(old.querySelector('s')!.textContent).toBe('battery 11.9 V (11.9 VDC)');
    expect(old.textContent).toContain('(superseded)');
    expect(cur.querySelector('s')).toBeNull();
    expect(cur.getAttribute('data-source')).toBe('inference');
  });

  it('shows the breadcrumb while a topic is open, and "Back to step" sends "back to the step"', async () => {
    const { root, backend } = await open();
    await say(root, 'roof vent fan');
    expect(byTestId(root, 'breadcrumb')).toBeNull();
    await say(root, 'where is the fan fuse?');
    const crumb = await waitFor(() => byTestId(root, 'breadcrumb'));
    expect(Array.from(crumb.querySelectorAll('li')).map((li) => li.textContent)).toEqual(['Step', 'Locate: fan fuse']);
    expect(crumb.querySelector('li[aria-current="location"]')!.textContent).toBe('Locate: fan fuse');
    click(byTestId(root, 'back-to-step'));
    await waitFor(() => allByTestId(root, 'chat-turn').length === 3);
    expect(backend.callsOf('chat_turn')[2].text).toBe('back to the step');
    await waitFor(() => byTestId(root, 'breadcrumb') === null);
  });

  it('shows an escalation banner when escalated', async () => {
    const diag = fakeDiagnosis();
    diag.patchContext({ escalated: true });
    const { root } = await open({}, diag);
    const banner = await waitFor(() => byTestId(root, 'escalation-banner'));
    expect(banner.getAttribute('role')).toBe('alert');
    expect(banner.textContent).toContain('Escalated');
  });

  it('shows why the session was escalated (a knowledge hand-off) from session_context', async () => {
    const diag = fakeDiagnosis();
    diag.patchContext({ escalated: true, escalation_reason: '«Customer damage claims» requires a hand-off to the service manager' });
    const { root } = await open({}, diag);
    const banner = await waitFor(() => byTestId(root, 'escalation-banner'));
    expect(byTestId(banner, 'escalation-reason')!.textContent).toBe('«Customer damage claims» requires a hand-off to the service manager.');
  });

  it('lists the visit\'s other complaint lines, closed with their cause and queued', async () => {
    const diag = fakeDiagnosis();
    diag.patchContext({
      other_complaints: [
        { system: '12 VDC circuits', complaint: 'Customer states the roof vent fan does not operate.', cause: 'Fan fuse open.', closed: true },
        { system: 'Water heater', complaint: 'Customer states there is no hot water.', cause: null, closed: false },
      ],
    });
    const { root } = await open({}, diag);
    const block = await waitFor(() => byTestId(root, 'other-complaints'));
    const items = block.querySelectorAll('li');
    expect(items.length).toBe(2);
    expect(items[0].getAttribute('data-closed')).toBe('true');
    expect(items[0].textContent).toContain('Fan fuse open.');
    expect(items[1].textContent).toContain('Next');
    expect(items[1].textContent).toContain('no hot water');
  });

  it('shows knowledge citations as chips (stored turns too) and keeps other citations as the Sources line', async () => {
    const diag = fakeDiagnosis();
    const turns: Turn[] = [
      {
        id: 't1',
        session_id: diag.session.id,
        seq: 1,
        created_at: '2026-11-23T10:00:00Z',
        input: 'is this covered by warranty?',
        reply: 'Before I answer … (1/3): What is the unit’s model year?',
        intent: 'KNOWLEDGE',
        transition: 'T1_root_entry',
        trace: { reply_kind: 'question', citations: ['faq-warranty-eligibility@v1#0'] },
      },
      {
        id: 't2',
        session_id: diag.session.id,
        seq: 2,
        created_at: '2026-11-23T10:01:00Z',
        input: 'where is the fuse',
        reply: JSON.stringify({ kind: 'answer', text: 'At the panel.', step_id: null, citations: ['procedure:dc_12v', 'component.dc_12v.fan_fuse@v2#1'] }),
        intent: null,
        transition: null,
        trace: {},
      },
    ];
    const { root } = await open(
      {
        session_show: () => ({ session: diag.session, turns, artifacts: [], state: makeState(), edits: [], earlier_visits: [] }),
        knowledge_sources: () => ({ sources: [{ source_id: 'faq-warranty-eligibility', title: 'Warranty eligibility' } as SourceInfo] }),
      },
      diag,
    );
    await waitFor(() => allByTestId(root, 'chat-turn').length === 2);
    await waitFor(() => allByTestId(root, 'citation-chip')[0]?.textContent?.includes('Warranty'));
    const [first, second] = allByTestId(root, 'chat-turn');
    const chips = allByTestId(first, 'citation-chip');
    // Named by the document's title (knowledge_sources) and its part; the accessible name is the visible text.
    expect(chips.map((c) => c.textContent)).toEqual(['❝Warranty eligibility · part 1']);
    expect(chips[0].getAttribute('aria-label')).toBeNull();
    expect(chips[0].getAttribute('title')).toContain('faq-warranty-eligibility@v1#0');
    expect(byTestId(first, 'citations')).toBeNull();
    expect(allByTestId(second, 'citation-chip').map((c) => c.getAttribute('data-citation'))).toEqual(['component.dc_12v.fan_fuse@v2#1']);
    expect(allByTestId(second, 'citation-chip').map((c) => c.textContent)).toEqual(['❝dc 12v fan fuse · part 2']);
    expect(byTestId(second, 'citations')!.textContent).toBe('Sources: the dc 12v procedure');

    // A chip asks the app to show the source.
    const seen: string[] = [];
    const listener = (e: Event) => seen.push((e as CustomEvent<string>).detail);
    window.addEventListener('servicedesk:open-knowledge-source', listener);
    click(chips[0]);
    window.removeEventListener('servicedesk:open-knowledge-source', listener);
    expect(seen).toEqual(['faq-warranty-eligibility']);
  });

  it('opens a cited PDF at the page its chunk is on from a chat citation chip, and says so when the file is gone', async () => {
    const created: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (b: Blob) => (created.push(b), 'blob:pdf-chat'), revokeObjectURL: () => {} }));
    const diag = fakeDiagnosis();
    const turns: Turn[] = [
      {
        id: 't1',
        session_id: diag.session.id,
        seq: 1,
        created_at: '2026-11-23T10:00:00Z',
        input: 'what is the flue baffle clearance?',
        reply: JSON.stringify({ kind: 'answer', text: 'See the manual.', step_id: null, citations: ['pdf-n8@v1#4', 'faq-warranty-eligibility@v1#0'] }),
        intent: 'KNOWLEDGE',
        transition: 'T1_root_entry',
        trace: {},
      },
    ];
    let missing = false;
    const { root, backend } = await open(
      {
        session_show: () => ({ session: diag.session, turns, artifacts: [], state: makeState(), edits: [], earlier_visits: [] }),
        knowledge_sources: () => ({
          sources: [
            { source_id: 'pdf-n8', version: 1, title: 'Norcold N8 manual', has_file: true } as SourceInfo,
            { source_id: 'faq-warranty-eligibility', version: 1, title: 'Warranty eligibility', has_file: false } as SourceInfo,
          ],
        }),
        knowledge_source_file: (req: CommandRequest<'knowledge_source_file'>) => {
          if (missing) throw appError('not_found', 'pdf-n8 version 1: no imported file');
          return { source_id: req.source_id, version: req.version, title: 'Norcold N8 manual', media_type: 'application/pdf', data_base64: btoa('%PDF-1.4 n8'), page: 3 };
        },
      },
      diag,
    );
    await waitFor(() => allByTestId(root, 'citation-chip')[0]?.getAttribute('data-kind') === 'pdf');
    const [pdf, text] = allByTestId(root, 'citation-chip');
    expect(pdf.textContent).toBe('▤Norcold N8 manual · part 5');
    expect(text.getAttribute('data-kind')).toBe('knowledge');
    click(pdf);
    const dialog = await waitFor(() => byTestId(document.body, 'source-file-dialog'));
    // The chip names its chunk; the page is the one the backend says it is on.
    expect(backend.callsOf('knowledge_source_file')).toEqual([{ source_id: 'pdf-n8', version: 1, chunk_id: 'pdf-n8@v1#4' }]);
    expect(dialog.textContent).toContain('Norcold N8 manual, p. 3');
    expect(byTestId(dialog, 'source-file-frame')!.getAttribute('src')).toBe('blob:pdf-chat#page=3');
    expect(created[0].type).toBe('application/pdf');
    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    });
    expect(byTestId(document.body, 'source-file-dialog')).toBeNull();
    missing = true;
    click(allByTestId(root, 'citation-chip')[0]);
    const error = await waitFor(() => byTestId(root, 'citation-file-error'));
    expect(error.textContent).toContain('no imported file');
    expect(byTestId(document.body, 'source-file-dialog')).toBeNull();
  });

  it('shows a context error without blocking the chat', async () => {
    const diag = fakeDiagnosis();
    installFakeBackend({
      ...diag.handlers,
      session_context: () => {
        throw appError('unknown_command', 'unknown command "session_context"');
      },
    });
    view = render(<SessionDetailView sessionId={diag.session.id} onChanged={() => {}} onDeleted={() => {}} />);
    const err = await waitFor(() => byTestId(view!.container, 'context-error'));
    expect(err.getAttribute('data-code')).toBe('unknown_command');
    await say(view.container, 'roof vent fan');
  });
});

describe('labor', () => {
  async function isolated() {
    const ctx = await open();
    await say(ctx.root, 'roof vent fan');
    await say(ctx.root, 'panel fuse blown');
    await waitFor(() => byTestId(ctx.root, 'labor-box'));
    return ctx;
  }

  it('shows the draft with its lines, and Confirm / Skip send their phrases', async () => {
    const { root, backend } = await isolated();
    expect(byTestId(root, 'labor-box')!.getAttribute('data-mode')).toBe('draft');
    expect(byTestId(root, 'labor-mode')!.textContent).toBe('Draft');
    expect(byTestId(root, 'labor-hours')!.textContent).toBe('1.0 hr');
    expect(allByTestId(root, 'labor-line').map((l) => l.textContent)).toEqual([
      'Diagnose 12 VDC fan circuit0.5 hr',
      'Check circuit for short to ground0.3 hr',
      'Replace fuse and verify operation0.2 hr',
    ]);
    click(byTestId(root, 'labor-confirm'));
    await waitFor(() => byTestId(root, 'labor-box')!.getAttribute('data-mode') === 'confirmed');
    click(byTestId(root, 'labor-skip'));
    await waitFor(() => byTestId(root, 'labor-box')!.getAttribute('data-mode') === 'skipped');
    expect(backend.callsOf('chat_turn').map((c) => c.text).slice(2)).toEqual(['confirm labor', 'skip labor']);
  });

  it('Adjust sends "make it X", and refuses a bad number without sending', async () => {
    const { root, backend } = await isolated();
    const hours = byTestId(root, 'labor-hours-input') as HTMLInputElement;
    typeInto(hours, 'lots');
    click(byTestId(root, 'labor-adjust'));
    expect(byTestId(root, 'labor-hours-error')!.textContent).toMatch(/number/);
    expect(hours.getAttribute('aria-invalid')).toBe('true');
    expect(backend.callsOf('chat_turn')).toHaveLength(2);

    typeInto(hours, '1,5');
    expect(byTestId(root, 'labor-hours-error')).toBeNull();
    click(byTestId(root, 'labor-adjust'));
    await waitFor(() => backend.callsOf('chat_turn').length === 3);
    expect(backend.callsOf('chat_turn')[2].text).toBe('make it 1.5');
    await waitFor(() => byTestId(root, 'labor-hours')!.textContent === '1.5 hr');
    expect(byTestId(root, 'labor-mode')!.textContent).toBe('Confirmed');
  });

  it('never blocks the chat: the technician can keep typing with a draft open', async () => {
    const { root, backend } = await isolated();
    await say(root, 'also the lights flicker');
    expect(backend.callsOf('chat_turn')).toHaveLength(3);
    expect(byTestId(root, 'labor-box')!.getAttribute('data-mode')).toBe('draft');
  });
});

describe('report', () => {
  it('"Write report" sends the phrase, previews the latest revision and exports it as Markdown', async () => {
    const created: Blob[] = [];
    const createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return 'blob:report';
    });
    // jsdom has no object URLs: lend them for this test only.
    const urlStatics = URL as unknown as Record<string, unknown>;
    urlStatics.createObjectURL = createObjectURL;
    urlStatics.revokeObjectURL = vi.fn();
    onTestFinished(() => {
      delete urlStatics.createObjectURL;
      delete urlStatics.revokeObjectURL;
    });
    const clicked: { href: string; download: string }[] = [];
    const anchorClick = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.download });
    });

    const { root, backend, diag } = await open();
    await say(root, 'roof vent fan');
    expect(byTestId(root, 'write-report')).toBeNull();
    await say(root, 'panel fuse blown');
    await say(root, 'make it 1.5');
    const write = await waitFor(() => byTestId(root, 'write-report'));
    expect(write.textContent).toBe('Write report');
    click(write);
    await waitFor(() => allByTestId(root, 'chat-turn').length === 4);
    expect(backend.callsOf('chat_turn')[3].text).toBe('write the report');
    // The write-up is a draft: previewed, with no export until it is finalized.
    const preview = await waitFor(() => byTestId(root, 'report-preview'));
    expect(preview.textContent).toContain('Total labor: 1.5 hr');
    await waitFor(() => byTestId(root, 'report-stage')?.dataset.stage === 'draft');
    expect(byTestId(root, 'report-stage')!.textContent).toBe('Draft');
    expect(byTestId(root, 'report-draft-revision')!.getAttribute('data-revision')).toBe('1');
    expect(byTestId(root, 'export-markdown')).toBeNull();
    await waitFor(() => byTestId(root, 'write-report')!.textContent === 'Write it up again');

    click(byTestId(root, 'report-finalize-now'));
    await waitFor(() => byTestId(root, 'report-stage')?.dataset.stage === 'finalized');
    expect(backend.callsOf('report_finalize')).toEqual([{ session_id: diag.session.id }]);
    expect(byTestId(root, 'report-revision')!.getAttribute('data-revision')).toBe('1');
    expect(byTestId(root, 'write-report')).toBeNull();
    expect(byTestId(root, 'report-read-only')!.textContent).toBe('Finalized: the repair order is read-only until it is reopened.');

    click(byTestId(root, 'export-markdown'));
    const note = await waitFor(() => byTestId(root, 'report-export-note'));
    expect(backend.callsOf('report_export')).toEqual([{ session_id: diag.session.id, revision: 1 }]);
    const name = `report-${diag.session.id.slice(0, 8)}-r1.md`;
    expect(note.textContent).toContain(name);
    expect(clicked).toEqual([{ href: 'blob:report', download: name }]);
    expect(created[0].type).toBe('text/markdown;charset=utf-8');
    expect(new TextDecoder().decode(await readFileBytes(created[0]))).toContain('# Service report');
    anchorClick.mockRestore();
  });

  it('shows an export error readably', async () => {
    const { root } = await open({
      report_export: () => {
        throw appError('not_found', 'session has no final report yet');
      },
    });
    await say(root, 'roof vent fan');
    await say(root, 'panel fuse blown');
    await say(root, 'write the report');
    click(await waitFor(() => byTestId(root, 'report-finalize-now')));
    click(await waitFor(() => byTestId(root, 'export-markdown')));
    const err = await waitFor(() => byTestId(root, 'report-export-error'));
    expect(err.textContent).toContain('no final report yet');
    expect(err.getAttribute('data-code')).toBe('not_found');
  });
});

describe('report: edit, finalize, export formats, sync state', () => {
  function lendObjectUrls() {
    const created: Blob[] = [];
    const urlStatics = URL as unknown as Record<string, unknown>;
    urlStatics.createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return 'blob:report';
    });
    urlStatics.revokeObjectURL = vi.fn();
    const clicked: string[] = [];
    const spy = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    onTestFinished(() => {
      delete urlStatics.createObjectURL;
      delete urlStatics.revokeObjectURL;
      spy.mockRestore();
    });
    return { created, clicked };
  }

  it('edits the draft, finalizes it (only the changed paragraph sent), follows its sync state to Synced, reopens and finalizes revision 2', async () => {
    const diag = fakeDiagnosis();
    const { root, backend } = await open({}, diag);
    await say(root, 'roof vent fan');
    await say(root, 'panel fuse blown');
    await say(root, 'write the report');
    await waitFor(() => byTestId(root, 'report-stage')?.dataset.stage === 'draft');
    expect(byTestId(root, 'report-sync')).toBeNull();

    click(byTestId(root, 'report-edit'));
    const form = await waitFor(() => byTestId(root, 'finalize-form'));
    const cause = byTestId(form, 'finalize-cause') as HTMLTextAreaElement;
    expect(cause.value).toBe('Fan fuse at the 12 V panel open.');
    expect((byTestId(form, 'finalize-complaint') as HTMLTextAreaElement).value).toBe('Roof vent fan dead');
    expect(document.activeElement).toBe(byTestId(form, 'finalize-complaint'));

    // Emptying a paragraph is caught next to it.
    typeInto(cause, '  ');
    click(byTestId(form, 'report-finalize'));
    expect(byTestId(form, 'finalize-cause-error')!.textContent).toBe('This paragraph cannot be empty.');
    expect(backend.callsOf('report_finalize')).toEqual([]);

    // Saved into the draft: nothing finalized, the preview has the new words.
    typeInto(cause, 'Fan fuse open at the 12 V panel.');
    click(byTestId(form, 'report-save-draft'));
    await waitFor(() => byTestId(root, 'report-export-note')?.textContent === 'Draft of revision 1 saved.');
    expect(backend.callsOf('report_draft_save')).toEqual([{ session_id: diag.session.id, cause: 'Fan fuse open at the 12 V panel.' }]);
    expect(backend.callsOf('report_finalize')).toEqual([]);
    await waitFor(() => byTestId(root, 'report-preview')?.textContent?.includes('Fan fuse open at the 12 V panel.'));
    click(byTestId(root, 'report-edit'));
    const again = await waitFor(() => byTestId(root, 'finalize-form'));
    typeInto(byTestId(again, 'finalize-cause') as HTMLTextAreaElement, 'Fan fuse open at the 12 V panel; wiring checked.');
    click(byTestId(again, 'report-finalize'));
    await waitFor(() => byTestId(root, 'report-revision')?.dataset.revision === '1');
    expect(backend.callsOf('report_finalize')).toEqual([{ session_id: diag.session.id, cause: 'Fan fuse open at the 12 V panel; wiring checked.' }]);
    expect(byTestId(root, 'finalize-form')).toBeNull();
    expect(byTestId(root, 'report-export-note')!.textContent).toBe('Revision 1 finalized and queued for the portal.');
    expect(byTestId(root, 'report-preview')!.textContent).toContain('wiring checked');
    await waitFor(() => byTestId(root, 'report-stage')?.dataset.stage === 'finalized');
    expect(byTestId(root, 'report-sync')!.dataset.state).toBe('pending');
    expect(byTestId(root, 'report-sync')!.textContent).toBe('Sync pending');

    // The portal worker delivers it: the panel re-reads the context while a revision is pending.
    diag.setReportSync(1, 'done');
    await waitFor(() => byTestId(root, 'report-sync')!.dataset.state === 'done', 6000);
    expect(byTestId(root, 'report-sync')!.textContent).toBe('Synced');

    // Reopen, with who did it; the next write-up is a draft of revision 2, finalized as revision 2.
    click(byTestId(root, 'report-reopen'));
    const reopen = await waitFor(() => byTestId(root, 'reopen-form'));
    expect(reopen.textContent).toContain('the next finalize makes revision 2');
    typeInto(byTestId(reopen, 'report-reopen-by') as HTMLInputElement, 'Marta');
    click(byTestId(reopen, 'report-reopen-confirm'));
    await waitFor(() => byTestId(root, 'report-reopened') !== null);
    expect(backend.callsOf('report_reopen')).toEqual([{ session_id: diag.session.id, by: 'Marta' }]);
    expect(byTestId(root, 'report-reopened')!.textContent).toContain('by Marta; the next finalize makes revision 2.');
    expect(byTestId(root, 'report-stage')!.dataset.stage).toBe('reopened');
    await say(root, 'write the report');
    await waitFor(() => byTestId(root, 'report-draft-revision')?.dataset.revision === '2');
    click(byTestId(root, 'report-finalize-now'));
    await waitFor(() => byTestId(root, 'report-revision')?.dataset.revision === '2');
    expect(byTestId(root, 'report-revisions')!.textContent).toContain('2 revisions');
  });

  it('a finalize error stays in the form; the finalized revision exports as PDF (base64 decoded) and JSON with the backend file names', async () => {
    const { created, clicked } = lendObjectUrls();
    const diagnosis = fakeDiagnosis();
    let refused = false;
    const { root, backend, diag } = await open(
      {
        // The first finalize is refused; the next one goes through.
        report_finalize: (p) => {
          if (!refused) {
            refused = true;
            throw appError('invalid_input', 'cause: too long');
          }
          return diagnosis.handlers.report_finalize!(p);
        },
      },
      diagnosis,
    );
    await say(root, 'roof vent fan');
    await say(root, 'panel fuse blown');
    await say(root, 'write the report');
    click(await waitFor(() => byTestId(root, 'report-edit')));
    click(byTestId(root, 'report-finalize'));
    const err = await waitFor(() => byTestId(root, 'finalize-error'));
    expect(err.textContent).toContain('cause: too long');
    expect(byTestId(root, 'finalize-form')).not.toBeNull();
    click(byTestId(root, 'report-finalize'));

    click(await waitFor(() => byTestId(root, 'export-pdf')));
    await waitFor(() => clicked.length === 1);
    expect(backend.callsOf('report_export')[0]).toEqual({ session_id: diag.session.id, revision: 1, format: 'pdf' });
    expect(clicked[0]).toBe(`report-${diag.session.id.slice(0, 8)}-r1.pdf`);
    expect(created[0].type).toBe('application/pdf');
    expect(new TextDecoder().decode(await readFileBytes(created[0]))).toMatch(/^%PDF-1\.7/);

    click(byTestId(root, 'export-json'));
    await waitFor(() => clicked.length === 2);
    expect(clicked[1]).toMatch(/\.json$/);
    expect(JSON.parse(new TextDecoder().decode(await readFileBytes(created[1]))).revision).toBe(1);
  });
});

describe('long histories', () => {
  it('renders only the turns in view of a 500-turn session (with 100 photos), newest at the bottom', async () => {
    const diag = fakeDiagnosis();
    const turns = Array.from({ length: 500 }, (_, i): Turn => ({
      id: `t${i + 1}`,
      session_id: diag.session.id,
      seq: i + 1,
      created_at: '2026-11-23T10:00:00Z',
      input: `message ${i + 1}`,
      reply: `reply ${i + 1}`,
      intent: null,
      transition: 'D8_fallback',
      trace: { reply_kind: 'answer' },
    }));
    const artifacts = Array.from({ length: 100 }, (_, i): Artifact => ({
      id: `a${i}`,
      session_id: diag.session.id,
      turn_id: `t${i * 5 + 1}`,
      sha256: 'ab'.repeat(32),
      file_name: `IMG_${i}.jpg`,
      mime: 'image/jpeg',
      kind: 'image',
      size_bytes: 1000,
      caption: null,
      taken_at: null,
      width: 640,
      height: 480,
      thumbnail: 'generated',
      created_at: '2026-11-23T10:00:00Z',
      condition: null,
      derived_from: null,
    }));
    // jsdom lays nothing out: give every element a size, as a window would.
    const offsetHeight = vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(120);
    const clientHeight = vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(480);
    const clientWidth = vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(600);
    onTestFinished(() => {
      offsetHeight.mockRestore();
      clientHeight.mockRestore();
      clientWidth.mockRestore();
    });
    const { root, backend } = await open(
      { session_show: () => ({ session: { ...diag.session, turn_count: 500 }, turns, artifacts, state: makeState(), edits: [], earlier_visits: [] }) },
      diag,
    );
    const history = await waitFor(() => (byTestId(root, 'chat-history')?.dataset.count === '500' ? byTestId(root, 'chat-history') : null));
    expect(history.dataset.virtual).toBe('true');
    await waitFor(() => allByTestId(history, 'chat-turn').length > 0);
    const rendered = allByTestId(history, 'chat-turn');
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(40);
    // Only the rendered turns' photos are in the chat (each loads its thumbnail when it mounts).
    expect(allByTestId(history, 'turn-photo').length).toBeLessThan(10);
    expect(backend.callsOf('session_show').length).toBe(1);
    expect(byTestId(root, 'chat-latest')!.textContent).toBe('reply 500');
    expect(rendered[0].getAttribute('aria-setsize')).toBe('500');
  });
});

describe('report of a session in another language', () => {
  it('edits the translated paragraphs too and sends them as translation', async () => {
    const body =
      'Complaint:\nRoof vent fan dead\n\nCause:\nFan fuse open.\n\n--- TRADUCCIÓN ---\n\nQueja:\nEl ventilador no funciona\n\nCausa:\nFusible abierto.\n';
    const finalized: CommandRequest<'report_finalize'>[] = [];
    const { root } = await open({
      report_state: () => ({ stage: 'draft', final_revision: null, draft: { revision: 1, language: 'es', body, updated_at: '2026-11-23T10:00:00Z' }, reopened: null }),
      report_finalize: (p) => {
        finalized.push(p);
        return { revision: 1, file_name: 'r1.pdf', created_at: '2026-11-23T11:00:00Z', queued: true };
      },
    });
    await say(root, 'roof vent fan');
    await say(root, 'panel fuse blown');
    await say(root, 'write the report');
    click(await waitFor(() => byTestId(root, 'report-edit')));
    const form = await waitFor(() => byTestId(root, 'finalize-form'));
    expect((byTestId(form, 'finalize-cause') as HTMLTextAreaElement).value).toBe('Fan fuse open.');
    const trCause = byTestId(form, 'finalize-tr-cause') as HTMLTextAreaElement;
    expect(trCause.value).toBe('Fusible abierto.');
    typeInto(trCause, 'Fusible del panel de 12 V abierto.');
    click(byTestId(form, 'report-finalize'));
    await waitFor(() => finalized.length === 1);
    expect(finalized[0]).toEqual({ session_id: expect.any(String), translation: { cause: 'Fusible del panel de 12 V abierto.' } });
  });
});
