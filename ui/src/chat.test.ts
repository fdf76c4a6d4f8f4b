import { describe, expect, it } from 'vitest';
import {
  adjustLaborText,
  breadcrumb,
  documentCitationText,
  NO_NAMES,
  procedureCitationText,
  entriesFromTurns,
  entryFromTranscript,
  mergeEntries,
  parseLaborHours,
  parseTurnReply,
  replyKindLabel,
  reportSections,
  stepMark,
  stepProgress,
} from './chat';
import type { Artifact, ChatTranscript, Turn } from './api';

const REPORT =
  'Complaint:\nCustomer states the roof vent fan does not operate.\n\nCause:\nFan branch-circuit fuse open.\n\n' +
  'Estimated labor:\n- Diagnose 12 VDC fan circuit: 0.8 hr\n- Replace fuse and verify operation: 0.7 hr\nTotal labor: 1.5 hr\n\n' +
  'Required parts:\n- ATC/ATO blade fuse, same amperage rating\n\nPhotos:\nNone attached.\n';

function turn(over: Partial<Turn>): Turn {
  return { id: 't', session_id: 's', seq: 1, created_at: '2026-11-23T10:00:00Z', input: 'x', reply: '', intent: null, transition: null, trace: {}, ...over };
}

describe('parseTurnReply', () => {
  it('reads the reply JSON, as a string or an object', () => {
    const reply = { kind: 'question', text: 'Is the fuse OK?', step_id: 'panel_fuse', citations: ['procedure:dc_12v'] };
    expect(parseTurnReply(turn({ reply: JSON.stringify(reply) }))).toEqual(reply);
    expect(parseTurnReply(turn({ reply: reply as unknown as string }))).toEqual(reply);
  });

  it('takes the step and citations of a plain-text reply from the trace', () => {
    expect(
      parseTurnReply(turn({ reply: 'Model year?', trace: { reply_kind: 'question', step_id: 'x', citations: ['faq-a@v1#0', 7] } })),
    ).toEqual({ kind: 'question', text: 'Model year?', step_id: 'x', citations: ['faq-a@v1#0'] });
  });

  it('takes plain reply text with its kind from the trace', () => {
    expect(parseTurnReply(turn({ reply: 'Labor skipped.', trace: { reply_kind: 'answer' } }))).toEqual({
      kind: 'answer',
      text: 'Labor skipped.',
      step_id: null,
      citations: [],
    });
    expect(parseTurnReply(turn({ reply: '{not json', trace: null })).text).toBe('{not json');
    expect(parseTurnReply(turn({ reply: 'hi', trace: null })).kind).toBe('answer');
    // A kind the backend does not send (an old or hand-edited trace) reads as an answer.
    expect(parseTurnReply(turn({ reply: 'hi', trace: { reply_kind: 'mystery' } })).kind).toBe('answer');
  });
});

describe('chat entries', () => {
  it('orders stored turns and attaches the photos sent with each', () => {
    const photo = { id: 'a1', turn_id: 't2' } as Artifact;
    const other = { id: 'a2', turn_id: null } as Artifact;
    const entries = entriesFromTurns(
      [turn({ id: 't2', seq: 2, input: 'second' }), turn({ id: 't1', seq: 1, input: 'first' })],
      [photo, other],
    );
    expect(entries.map((e) => e.input)).toEqual(['first', 'second']);
    expect(entries[1].photos).toEqual([photo]);
    expect(entries[0].photos).toEqual([]);
  });

  it('keeps local entries until the stored turn with the same seq arrives', () => {
    const t = { turn: 2, reply: { kind: 'answer', text: 'ok', step_id: null, citations: [] }, intent: null, transition: 'D6' } as unknown as ChatTranscript;
    const local = [entryFromTranscript('confirm labor', t)];
    const stored1 = entriesFromTurns([turn({ id: 't1', seq: 1 })], []);
    expect(mergeEntries(stored1, local).map((e) => e.key)).toEqual(['t1', 'local-2']);
    const stored2 = entriesFromTurns([turn({ id: 't1', seq: 1 }), turn({ id: 't2', seq: 2, reply: 'ok', trace: { reply_kind: 'answer' } })], []);
    expect(mergeEntries(stored2, local).map((e) => e.key)).toEqual(['t1', 't2']);
  });

  it('keeps the full chat_turn reply (citations, step) over the stored reply text', () => {
    const reply = { kind: 'answer', text: 'Where: at the fan.', step_id: 'panel_fuse', citations: ['procedure:dc_12v#component:fan_fuse'] };
    const local = [entryFromTranscript('where is the fan fuse?', { turn: 1, reply, intent: 'LOCATE', transition: 'D2_subflow' } as unknown as ChatTranscript)];
    const photo = { id: 'a1', turn_id: 't1' } as Artifact;
    const stored = entriesFromTurns([turn({ id: 't1', seq: 1, reply: 'Where: at the fan.', trace: { reply_kind: 'answer' } })], [photo]);
    const [merged] = mergeEntries(stored, local);
    expect(merged.key).toBe('t1');
    expect(merged.reply).toEqual(reply);
    expect(merged.photos).toEqual([photo]);
  });
});

describe('replyKindLabel', () => {
  it('names every kind, and shows an unknown one as sent', () => {
    expect(['question', 'answer', 'clarification', 'fallback', 'labor_draft', 'report', 'refusal'].map(replyKindLabel)).toEqual([
      'Question',
      'Answer',
      'Clarification',
      'Not understood',
      'Labor draft',
      'Report',
      'Refused',
    ]);
    expect(replyKindLabel('photo_note')).toBe('photo note');
  });
});

describe('reportSections', () => {
  it('splits the engine report into its titled sections', () => {
    const s = reportSections(REPORT);
    expect(s.map((x) => x.title)).toEqual(['Complaint', 'Cause', 'Estimated labor', 'Required parts', 'Photos']);
    expect(s[2].body).toBe('- Diagnose 12 VDC fan circuit: 0.8 hr\n- Replace fuse and verify operation: 0.7 hr\nTotal labor: 1.5 hr');
    expect(s[4].body).toBe('None attached.');
  });

  it('reads Markdown headings and keeps text without headings whole', () => {
    expect(reportSections('# Service report\n\n### Cause\nFuse open.\n').map((x) => [x.title, x.body])).toEqual([
      ['Service report', ''],
      ['Cause', 'Fuse open.'],
    ]);
    expect(reportSections('Just a note.\nSecond line.')).toEqual([{ title: null, body: 'Just a note.\nSecond line.' }]);
  });

  it('splits a bilingual report at its "--- TRANSLATION ---" line', () => {
    const s = reportSections('Photos:\nNone attached.\n\n--- TRANSLATION ---\n\nQueja:\nEl ventilador no funciona.\n\nFotos:\nNinguna adjunta.\n');
    expect(s).toEqual([
      { title: 'Photos', body: 'None attached.' },
      { title: 'Translation', body: '', divider: true },
      { title: 'Queja', body: 'El ventilador no funciona.' },
      { title: 'Fotos', body: 'Ninguna adjunta.' },
    ]);
  });

  it('does not take a line like "Total labor: 1.5 hr" or a list item for a heading', () => {
    expect(reportSections('Labor:\n- Fuse:\nTotal labor: 1.5 hr').map((x) => x.title)).toEqual(['Labor']);
  });
});

describe('steps and breadcrumb', () => {
  it('marks completed, active and open steps and counts progress', () => {
    expect(['completed', 'active', 'open'].map(stepMark)).toEqual(['✓', '▶', '○']);
    expect(
      stepProgress([
        { id: 'a', question: '', status: 'completed' },
        { id: 'b', question: '', status: 'active' },
        { id: 'c', question: '', status: 'open' },
      ]),
    ).toEqual({ done: 1, total: 3 });
  });

  it('is empty without a topic, and names the subflow and topic otherwise', () => {
    expect(breadcrumb([])).toEqual([]);
    expect(breadcrumb([{ topic: 'fan_fuse', submode: 'locate', return_step: 'panel_fuse' }])).toEqual(['Step', 'Locate: fan fuse']);
    // The engine names the topic with its subflow ("fan_fuse:Locate").
    expect(breadcrumb([{ topic: 'fan_fuse:Locate', submode: 'locate', return_step: 'panel_fuse' }])).toEqual(['Step', 'Locate: fan fuse']);
    expect(
      breadcrumb([
        { topic: 'lid_switch', submode: 'explain', return_step: 'lid_switch' },
        { topic: 'thermal_fuse', submode: 'howto', return_step: 'lid_switch' },
      ]),
    ).toEqual(['Step', 'Explain: lid switch', 'How to check: thermal fuse']);
  });
});

describe('labor hours', () => {
  it('accepts decimals with a point or a comma and sends "make it X"', () => {
    expect(parseLaborHours('1.5')).toEqual({ ok: true, hours: '1.5' });
    expect(parseLaborHours(' 1,5 ')).toEqual({ ok: true, hours: '1.5' });
    expect(parseLaborHours('2.50')).toEqual({ ok: true, hours: '2.5' });
    expect(parseLaborHours('.5')).toEqual({ ok: true, hours: '0.5' });
    expect(adjustLaborText('1.5')).toBe('make it 1.5');
  });

  it('refuses empty, zero, negative, huge and non-numbers', () => {
    for (const bad of ['', '0', '0.0', '-1', '100', '1.555', 'abc', '1.5h', '1e2']) {
      expect(parseLaborHours(bad).ok, bad).toBe(false);
    }
  });
});

describe('report finalize and export helpers', () => {
  it('reads the 3C paragraphs of the English block, and sends only what changed', async () => {
    const { reportThreeC, threeCEdits, emptiedThreeC, exportBlob, hasPendingReport } = await import('./chat');
    const body = 'Complaint:\nFan dead.\n\nCause:\nFuse open.\n\nCorrection:\nReplaced fuse.\n\n--- TRANSLATION ---\nQueja:\nVentilador.\n';
    const c = reportThreeC(body);
    expect(c).toEqual({ complaint: 'Fan dead.', cause: 'Fuse open.', correction: 'Replaced fuse.' });
    expect(reportThreeC(body, true)).toEqual({ complaint: 'Ventilador.', cause: '', correction: '' });
    expect(reportThreeC('Complaint:\nx\n', true)).toEqual({ complaint: '', cause: '', correction: '' });
    expect(reportThreeC('Жалоба:\nНе дует.\n\nПричина:\nПредохранитель.\n')).toEqual({ complaint: 'Не дует.', cause: 'Предохранитель.', correction: '' });
    // A declined estimate's line under the Complaint is not part of the paragraph a person edits.
    expect(reportThreeC('Complaint:\nFan dead.\n\nEstimate declined: Jane Doe, by phone\n\nCause:\nFuse open.\n').complaint).toBe('Fan dead.');
    expect(threeCEdits(c, { ...c, cause: ' Fuse open at the panel. ' })).toEqual({ cause: 'Fuse open at the panel.' });
    expect(threeCEdits(c, c)).toEqual({});
    expect(emptiedThreeC(c, { ...c, correction: '  ' })).toEqual(['correction']);
    const pdf = exportBlob({ content: btoa('%PDF-1.7'), format: 'pdf', encoding: 'base64' });
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.size).toBe(8);
    expect(exportBlob({ content: '{}', format: 'json', encoding: 'utf8' }).type).toBe('application/json;charset=utf-8');
    expect(hasPendingReport([{ sync: { state: 'done' } }, { sync: { state: 'pending' } }])).toBe(true);
    expect(hasPendingReport([{}, { sync: { state: 'failed' } }])).toBe(false);
  });
});

describe('citations in words', () => {
  const names = {
    systems: { dc_12v: '12 V DC circuits' },
    parts: { panel_fuse_open: 'Fan fuse at the panel open', panel_fuse: 'Is the panel fuse intact?' },
    documents: { 'faq-warranty-eligibility': 'Warranty eligibility' },
  };

  it('names a procedure citation by its title and the finding, step or component used', () => {
    expect(procedureCitationText('procedure:dc_12v#panel_fuse_open', names)).toBe('12 V DC circuits: Fan fuse at the panel open');
    expect(procedureCitationText('procedure:dc_12v#component:fan_fuse', names)).toBe('12 V DC circuits: fan fuse');
    expect(procedureCitationText('procedure:dc_12v', names)).toBe('the 12 V DC circuits procedure');
    // A procedure the view has no title for still reads as words.
    expect(procedureCitationText('procedure:roof_ac#run_capacitor_out_of_spec', NO_NAMES)).toBe('roof ac: run capacitor out of spec');
    expect(procedureCitationText('faq-x@v1#0', names)).toBeNull();
  });

  it('names a knowledge chunk by its document title and part (1-based)', () => {
    expect(documentCitationText({ source_id: 'faq-warranty-eligibility', chunk: 0 }, names)).toBe('Warranty eligibility · part 1');
    expect(documentCitationText({ source_id: 'component.dc_12v.fan_fuse', chunk: 2 }, NO_NAMES)).toBe('dc 12v fan fuse · part 3');
  });
});
