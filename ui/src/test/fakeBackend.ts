// A stand-in for `servicedesk serve` in unit tests: stubs fetch and answers
// POST /api/{command} from handlers. A handler throws { code, message } (an
// AppError) to answer with an error status, like the real server.
//
// Handlers are typed by the command table generated from the Rust types
// (gen/commands.ts): a handler gets what the UI may send for its command and
// must answer the command's response type, so fake data has the real shape.
import { vi } from 'vitest';
import type {
  Artifact,
  ChatTranscript,
  Command,
  CommandRequest,
  CommandResponse,
  DeliveryState,
  ExportJob,
  Fact,
  IsolationView,
  ItemInfo,
  LastTransition,
  PortalSettings,
  ReplyKind,
  ReportRevision,
  ReportSync,
  Session,
  SessionContext,
  SessionListItem,
  SessionStage,
  SessionState,
  SyncStatus,
  SystemView,
  TopicFrame,
  TranscriptLabor,
  Turn,
} from '../api';

/** Answers one command: what the UI sent in, the command's response (or a promise of it) out. */
export type Handler<C extends Command> = (payload: CommandRequest<C>) => CommandResponse<C> | Promise<CommandResponse<C>>;

/** Handlers by command; a command without one answers `unknown_command`. */
export type Handlers = { [C in Command]?: Handler<C> };

export interface FakeBackend {
  calls: { command: string; payload: unknown }[];
  /** The payloads the UI sent for a command, in order. */
  callsOf<C extends Command>(command: C): CommandRequest<C>[];
}

const STATUS: Record<string, number> = { not_found: 404, has_artifacts: 409, too_large: 413, artifact_missing: 410, artifact_corrupt: 410 };

export function installFakeBackend(handlers: Handlers): FakeBackend {
  const calls: { command: string; payload: unknown }[] = [];
  const fetchMock = vi.fn(async (url: string, init: RequestInit) => {
    const command = decodeURIComponent(String(url).replace(/^.*\/api\//, ''));
    const payload: unknown = init.body ? JSON.parse(String(init.body)) : null;
    calls.push({ command, payload });
    const handler = handlers[command as Command] as ((payload: unknown) => unknown) | undefined;
    if (!handler) {
      return json(400, { code: 'unknown_command', message: `unknown command "${command}"` });
    }
    try {
      return json(200, await handler(payload));
    } catch (e) {
      const err = e as { code?: unknown; message?: unknown } | null;
      if (err && typeof err.code === 'string') return json(STATUS[err.code] ?? 400, { code: err.code, message: err.message });
      throw e;
    }
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    callsOf: <C extends Command>(command: C) => calls.filter((c) => c.command === command).map((c) => c.payload as CommandRequest<C>),
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export function appError(code: string, message: string) {
  return { code, message };
}

let n = 0;
export function makeSession(over: Partial<Session> = {}): Session {
  n++;
  return {
    id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
    ro_number: `RO-${String(n).padStart(6, '0')}`,
    created_at: '2026-11-22T19:11:36.828Z',
    updated_at: '2026-11-22T19:11:36.828Z',
    status: 'open',
    language: 'en',
    customer: null,
    customer_phone: null,
    customer_email: null,
    complaint: `complaint ${n}`,
    technician: null,
    unit: { vin: null, plate: null, make_model: null, model_year: null, odometer: null, odometer_unit: null, engine_hours: null, manufacturer: null },
    turn_count: 0,
    artifact_count: 0,
    ...over,
  };
}

/** A session as session_list lists it: with its stage (its status unless given). */
export function listed(session: Session, stage: SessionStage = session.status): SessionListItem {
  return { ...session, stage };
}

export function makeArtifact(sessionId: string, over: Partial<Artifact> = {}): Artifact {
  n++;
  return {
    id: `a${n}`,
    session_id: sessionId,
    turn_id: null,
    sha256: 'ab'.repeat(32),
    file_name: `IMG_${n}.jpg`,
    mime: 'image/jpeg',
    kind: 'image',
    size_bytes: 17333,
    caption: null,
    taken_at: null,
    width: 640,
    height: 480,
    thumbnail: 'generated',
    created_at: '2026-11-22T19:11:41.991Z',
    condition: null,
    derived_from: null,
    ...over,
  };
}

/** A stored turn (session_show), its reply the text and its kind in the trace, like the real store. */
export function makeTurn(sessionId: string, seq: number, over: Partial<Turn> = {}): Turn {
  return {
    id: `t${seq}`,
    session_id: sessionId,
    seq,
    created_at: '2026-11-23T10:00:00Z',
    input: `message ${seq}`,
    reply: `reply ${seq}`,
    intent: null,
    transition: null,
    trace: {},
    ...over,
  };
}

/** A chat_turn answer: a first question of the dc_12v walk unless told otherwise. */
export function makeTranscript(sessionId: string, over: Partial<ChatTranscript> = {}): ChatTranscript {
  return {
    turn: 1,
    session_id: sessionId,
    language: 'en',
    intent: 'MAIN_DIAGNOSTIC',
    transition: 'T1_root_entry',
    mode: 'diagnostic',
    submode: 'main',
    system: 'dc_12v',
    active_step: 'panel_fuse',
    completed_steps: [],
    topic_stack: [],
    isolation: { complete: false, finding: null, invalidated: false, stated: null },
    labor: { mode: 'none', hours: null },
    reply: { kind: 'question', text: 'Is the fan circuit fuse in the 12 V distribution panel intact?', step_id: 'panel_fuse', citations: [] },
    escalated: false,
    facts: [],
    new_facts: [],
    superseded: [],
    report_revision: null,
    trace: 'T1_root_entry fired',
    ...over,
  };
}

/** The engine state of a new session (session_show's `state`), as Rust's `SessionState::default()`. */
export function makeState(over: Partial<SessionState> = {}): SessionState {
  return {
    version: 2,
    language: 'en',
    mode: 'diagnostic',
    submode: 'main',
    active_procedure: null,
    active_step: null,
    completed_steps: [],
    open_steps: [],
    facts: [],
    hypotheses: [],
    contradictions: [],
    isolation: { complete: false, finding: null, invalidated: false, stated: null },
    topic_stack: [],
    recent_actions: [],
    symptom: null,
    language_locked: false,
    asked: {},
    turn: 0,
    repair_done: false,
    report_revision: 0,
    labor: { status: 'none', estimated_hours: null, confirmed_hours: null },
    escalation: { escalated: false, reason: null },
    lanes: {},
    report_edits: {
      en: { complaint: null, cause: null, correction: null },
      translation: { complaint: null, cause: null, correction: null },
    },
    pending_confirmation: null,
    queued_complaints: [],
    closed_complaints: [],
    undiagnosed_complaints: [],
    ...over,
  };
}

// ---- a scripted stand-in for the context engine (chat_turn, session_context, report_list, report_export) ----

export interface FakeDiagnosis {
  /** The handlers to pass to installFakeBackend (session_show included). */
  handlers: Handlers;
  session: Session;
  /** The next chat_turn fails with this AppError. */
  failNext(code: string, message: string): void;
  /** The next chat_turn waits until the returned function is called. */
  holdNext(): () => void;
  /** Changes the context (e.g. escalated, superseded facts). */
  patchContext(patch: Partial<SessionContext>): void;
  /** Sets a report revision's sync state, as the portal worker would. */
  setReportSync(revision: number, state: DeliveryState, reason?: string): void;
  /** The edits each report_finalize carried. */
  finalized: Omit<CommandRequest<'report_finalize'>, 'session_id'>[];
}

const STEPS = [
  { id: 'panel_fuse', question: 'Is the fan circuit fuse in the 12 V distribution panel intact?' },
  { id: 'fan_fuse', question: "Is the fan's own fuse intact?" },
  { id: 'terminal_voltage', question: 'What DC voltage do you read across the motor terminals?' },
];
const LABOR_LINES: [string, number][] = [
  ['Diagnose 12 VDC fan circuit', 0.5],
  ['Check circuit for short to ground', 0.3],
  ['Replace fuse and verify operation', 0.2],
];

/** A report body with the 3C paragraphs the edits name replaced. */
function applyEdits(body: string, edits: { complaint?: string | null; cause?: string | null; correction?: string | null }): string {
  let out = body;
  for (const [k, title] of [
    ['complaint', 'Complaint'],
    ['cause', 'Cause'],
    ['correction', 'Correction'],
  ] as const) {
    const v = edits[k];
    if (v == null) continue;
    const re = new RegExp(`(${title}:\\n)([\\s\\S]*?)(\\n\\n|$)`);
    out = re.test(out) ? out.replace(re, (_m, h, _b, tail) => `${h}${v}${tail}`) : `${out}\n${title}:\n${v}\n`;
  }
  return out;
}

/**
 * A small, deterministic imitation of the engine's dc_12v walk: "…fan…" starts
 * it, "where is …" opens a Locate subflow, "back to the step" closes it,
 * "panel fuse blown" isolates, "confirm labor" / "make it X" / "skip labor"
 * set the labor, "write the report" writes the draft (refused once finalized,
 * until report_reopen). Anything else is a fallback.
 */
export function fakeDiagnosis(over: Partial<Session> = {}): FakeDiagnosis {
  const session = makeSession({ complaint: 'Roof vent fan dead', ...over });
  const turns: Turn[] = [];
  const artifacts: Artifact[] = [];
  const reports: (ReportRevision & { sync: ReportSync })[] = [];
  const finalized: FakeDiagnosis['finalized'] = [];
  // The report lifecycle: a write-up is a draft; a finalize makes it final and the session read-only until reopened.
  let draft: { revision: number; body: string; updated_at: string } | null = null;
  let isFinal = false;
  let reopened: { at: string; by: string | null } | null = null;
  let system: SystemView | null = null;
  let active: string | null = null;
  const completed: string[] = [];
  let stack: TopicFrame[] = [];
  const facts: Fact[] = [];
  let isolation: IsolationView = { complete: false, finding: null, invalidated: false, stated: null, cause: null };
  let labor: TranscriptLabor = { mode: 'none', hours: null };
  let last: LastTransition | null = null;
  let escalated = false;
  let fail: { code: string; message: string } | null = null;
  let hold: Promise<void> | null = null;
  let extra: Partial<SessionContext> = {};

  const laborLines = () => {
    if (labor.mode === 'none' || labor.hours == null) return [];
    const total = Number(labor.hours);
    const base = LABOR_LINES.reduce((s, [, h]) => s + h, 0);
    return LABOR_LINES.map(([task, h]) => ({ task, hours: ((h * total) / base).toFixed(1) }));
  };

  const context = (): SessionContext => ({
    session_id: session.id,
    language: 'en',
    mode: isolation.complete ? 'authorization' : 'diagnostic',
    submode: stack.length ? stack[stack.length - 1].submode : 'main',
    system,
    steps: system
      ? STEPS.map((s) => ({ ...s, status: completed.includes(s.id) ? 'completed' : s.id === active ? 'active' : 'open' }))
      : [],
    facts,
    isolation,
    labor: { ...labor, lines: laborLines() },
    topic_stack: stack,
    last_transition: last,
    escalated,
    escalation_reason: null,
    report_ready: isolation.complete,
    quick_answers: active && stack.length === 0 ? [{ label: 'Yes', text: 'yes' }, { label: 'No', text: 'no' }] : [],
    other_complaints: [],
    reports: reports.map((r) => ({ revision: r.revision, created_at: r.created_at, sync: r.sync })),
    ...extra,
  });

  function engine(text: string): { kind: ReplyKind; text: string; step_id: string | null; intent: string; transition: string } {
    const t = text.toLowerCase();
    if (isFinal) {
      return { kind: 'refusal', text: `Repair order ${session.ro_number} is finalized: this note changed nothing. To change it, reopen it.`, step_id: null, intent: 'FINALIZED', transition: 'T10_boundary' };
    }
    if (/write the report/.test(t)) {
      if (!isolation.complete) return { kind: 'refusal', text: 'The cause is not isolated yet.', step_id: null, intent: 'REPORT_REQUEST', transition: 'D7_report' };
      const body = `Complaint:\n${session.complaint}\n\nCause:\n${isolation.cause}\n\nEstimated labor:\n${laborLines()
        .map((l) => `- ${l.task}: ${l.hours} hr`)
        .join('\n')}\nTotal labor: ${labor.hours} hr\n`;
      draft = { revision: reports.length + 1, body, updated_at: '2026-11-23T10:00:00Z' };
      return { kind: 'report', text: body, step_id: null, intent: 'REPORT_REQUEST', transition: 'D7_report' };
    }
    if (t.startsWith('where is') && system) {
      stack = [{ topic: 'fan_fuse:Locate', submode: 'locate', return_step: active }];
      return { kind: 'answer', text: 'Where: at the fan itself.\nBack to the step: ' + STEPS[0].question, step_id: active, intent: 'LOCATE', transition: 'D2_subflow' };
    }
    if (/back to the step/.test(t) && stack.length) {
      stack = [];
      return { kind: 'question', text: STEPS[0].question, step_id: active, intent: 'MAIN_DIAGNOSTIC', transition: 'D2_subflow' };
    }
    if (/panel fuse (blown|bad)/.test(t) && system) {
      completed.push('panel_fuse');
      active = null;
      facts.push({ id: `f${facts.length + 1}`, kind: 'observation', source: 'technician', subject: 'panel_fuse', text, turn_seq: turns.length + 1, name: 'panel_fuse_open', outcome: 'no' });
      isolation = { complete: true, finding: 'panel_fuse_open', invalidated: false, stated: null, cause: 'Fan fuse at the 12 V panel open.' };
      labor = { mode: 'draft', hours: '1.0' };
      return { kind: 'labor_draft', text: 'Isolation complete. Labor draft: 1.0 h.', step_id: null, intent: 'MAIN_DIAGNOSTIC', transition: 'D4_terminal' };
    }
    const adjust = /make it (\d+(?:\.\d+)?)/.exec(t);
    if (adjust && labor.mode !== 'none') {
      labor = { mode: 'confirmed', hours: adjust[1] };
      return { kind: 'answer', text: `Labor confirmed: ${adjust[1]} h.`, step_id: null, intent: 'LABOR_REQUEST', transition: 'D6_labor_update' };
    }
    if (/confirm labor/.test(t) && labor.mode !== 'none') {
      labor = { ...labor, mode: 'confirmed' };
      return { kind: 'answer', text: `Labor confirmed: ${labor.hours} h.`, step_id: null, intent: 'LABOR_REQUEST', transition: 'D6_labor_update' };
    }
    if (/skip labor/.test(t) && labor.mode !== 'none') {
      labor = { ...labor, mode: 'skipped' };
      return { kind: 'answer', text: 'Labor skipped.', step_id: null, intent: 'LABOR_REQUEST', transition: 'D6_labor_update' };
    }
    if (/fan/.test(t) && !system) {
      system = { id: 'dc_12v', title: '12 V DC circuits (roof vent fans, lights)' };
      active = 'panel_fuse';
      return { kind: 'question', text: STEPS[0].question, step_id: active, intent: 'MAIN_DIAGNOSTIC', transition: 'T1_root_entry' };
    }
    return { kind: 'fallback', text: "I couldn't read a result from that.", step_id: active, intent: 'UNCLEAR', transition: 'D8_fallback' };
  }

  const handlers: Handlers = {
    session_show: () => ({ session: { ...session, turn_count: turns.length }, turns, artifacts, state: makeState(), edits: [], earlier_visits: [] }),
    // Like the real store: another session's photo is not found, a finalized session refuses, the original never changes.
    artifact_annotate: (p) => {
      const i = artifacts.findIndex((a) => a.id === p.artifact_id && a.session_id === p.session_id);
      if (i < 0) throw appError('not_found', `artifact_id ${p.artifact_id} not found`);
      if (isFinal) throw appError('invalid_input', `session_id: repair order ${session.ro_number} is finalized, so it cannot change; reopen it first`);
      const next = { ...artifacts[i] };
      if (p.caption != null) next.caption = p.caption.trim() || null;
      if (p.condition != null) next.condition = p.condition === 'none' ? null : p.condition;
      artifacts[i] = next;
      return next;
    },
    artifact_markup: (p) => {
      const original = artifacts.find((a) => a.id === p.original_id && a.session_id === p.session_id);
      if (!original) throw appError('not_found', `original_id ${p.original_id} not found`);
      if (isFinal) throw appError('invalid_input', `session_id: repair order ${session.ro_number} is finalized, so it cannot change; reopen it first`);
      const stem = original.file_name.replace(/\.[^.]+$/, '');
      const copy = makeArtifact(session.id, {
        file_name: `${stem}-markup.png`,
        mime: 'image/png',
        sha256: 'cd'.repeat(32),
        caption: p.caption ?? original.caption,
        condition: original.condition,
        derived_from: original.id,
      });
      artifacts.push(copy);
      return copy;
    },

    chat_turn: async (p) => {
      if (hold) await hold;
      if (fail) {
        const f = fail;
        fail = null;
        throw appError(f.code, f.message);
      }
      if (p.session_id !== session.id) throw appError('not_found', `session ${p.session_id} not found`);
      const reply = engine(p.text);
      const seq = turns.length + 1;
      const turnId = `t${seq}`;
      for (const a of p.attachments ?? []) artifacts.push(makeArtifact(session.id, { file_name: a.file_name, turn_id: turnId }));
      last = { id: reply.transition, why: `${reply.transition} fired` };
      // Like the real server: the stored reply is the text, its kind is in the trace.
      turns.push(
        makeTurn(session.id, seq, {
          id: turnId,
          input: p.text,
          reply: reply.text,
          intent: reply.intent,
          transition: reply.transition,
          trace: { fired: reply.transition, reply_kind: reply.kind, why: [] },
        }),
      );
      const ctx = context();
      return makeTranscript(session.id, {
        turn: seq,
        intent: reply.intent,
        transition: reply.transition,
        mode: ctx.mode,
        submode: ctx.submode,
        system: system?.id ?? null,
        active_step: active,
        completed_steps: completed,
        topic_stack: stack,
        isolation: { complete: isolation.complete, finding: isolation.finding, invalidated: isolation.invalidated, stated: null },
        labor,
        reply: { kind: reply.kind, text: reply.text, step_id: reply.step_id, citations: [] },
        escalated,
        facts: facts.flatMap((f) => (f.name ? [f.name] : [])),
        report_revision: reply.kind === 'report' ? (draft?.revision ?? null) : null,
        trace: `${reply.transition} fired`,
      });
    },
    session_context: (p) => {
      if (p.session_id !== session.id) throw appError('not_found', `session ${p.session_id} not found`);
      return context();
    },
    report_list: () => ({ reports: reports.map(({ sync: _sync, ...r }) => r) }),
    // The contract of report_export with formats: PDF is base64, the others utf8.
    report_export: (p) => {
      const r = p.revision == null ? reports[reports.length - 1] : reports.find((x) => x.revision === p.revision);
      if (!r) throw appError('not_found', `session ${p.session_id} has no final report yet`);
      const format = p.format ?? 'markdown';
      const base = `report-${session.id.slice(0, 8)}-r${r.revision}`;
      if (format === 'pdf') {
        return { revision: r.revision, file_name: `${base}.pdf`, format, mime: 'application/pdf', encoding: 'base64', content: btoa('%PDF-1.7\n% fake\n%%EOF\n') };
      }
      if (format === 'json') {
        return {
          revision: r.revision,
          file_name: `${base}.json`,
          format,
          mime: 'application/json',
          encoding: 'utf8',
          content: JSON.stringify({ revision: r.revision, body: r.body }),
        };
      }
      if (format !== 'markdown') throw appError('invalid_input', `format: unknown format "${format}"`);
      return { revision: r.revision, file_name: `${base}.md`, format: 'markdown', mime: 'text/markdown', encoding: 'utf8', content: `# Service report\n\n${r.body}` };
    },
    // report_finalize: the draft (or the newest revision) with the edits becomes the next revision, queued for the portal.
    report_finalize: (p) => {
      if (p.session_id !== session.id) throw appError('not_found', `session ${p.session_id} not found`);
      if (isFinal) throw appError('invalid_input', `session_id: repair order ${session.ro_number} is already finalized; reopen it to change the report`);
      const cur = draft ?? reports[reports.length - 1];
      if (!cur) throw appError('invalid_input', `session_id: the report cannot be finalized yet`);
      const { session_id: _id, ...edits } = p;
      finalized.push(edits);
      const body = applyEdits(cur.body, edits);
      const revision = reports.length + 1;
      reports.push({ revision, language: 'en', format: 'markdown', body, created_at: '2026-11-23T11:00:00Z', sync: { state: 'pending', reason: null } });
      draft = null;
      isFinal = true;
      reopened = null;
      return { revision, file_name: `report-${session.id.slice(0, 8)}-r${revision}.md`, created_at: '2026-11-23T11:00:00Z', queued: true };
    },
    report_draft_save: (p) => {
      if (isFinal) throw appError('invalid_input', `session_id: repair order ${session.ro_number} is already finalized; reopen it to change the report`);
      const cur = draft ?? reports[reports.length - 1];
      if (!cur) throw appError('invalid_input', `session_id: the report cannot be drafted yet`);
      const { session_id: _id, ...edits } = p;
      draft = { revision: reports.length + 1, body: applyEdits(cur.body, edits), updated_at: '2026-11-23T10:30:00Z' };
      return { revision: draft.revision, body: draft.body, turn_id: `t${turns.length + 1}` };
    },
    report_state: () => ({
      stage: isFinal ? 'finalized' : draft ? 'draft' : 'none',
      final_revision: reports.length > 0 ? reports.length : null,
      draft: draft ? { ...draft, language: 'en' } : null,
      reopened,
    }),
    report_reopen: (p) => {
      if (!isFinal) throw appError('invalid_input', `session_id: repair order ${session.ro_number} is not finalized, so there is nothing to reopen`);
      isFinal = false;
      reopened = { at: '2026-11-23T12:00:00Z', by: p.by ?? null };
      return { next_revision: reports.length + 1, reopened_at: reopened.at, reopened_by: reopened.by };
    },
  };

  return {
    handlers,
    session,
    failNext: (code, message) => {
      fail = { code, message };
    },
    holdNext: () => {
      let release = () => {};
      hold = new Promise<void>((r) => {
        release = () => {
          hold = null;
          r();
        };
      });
      return release;
    },
    patchContext: (patch) => {
      if (patch.escalated !== undefined) escalated = patch.escalated;
      extra = { ...extra, ...patch };
    },
    setReportSync: (revision, state, reason) => {
      const r = reports.find((x) => x.revision === revision);
      if (r) r.sync = { state, reason: reason ?? null };
    },
    finalized,
  };
}

// ---- portal sync (sync_status, sync_retry, portal_settings) ----

export function makeOutboxItem(over: Partial<ItemInfo> = {}): ItemInfo {
  n++;
  return {
    id: `0190a0b0-0000-7000-8000-${String(n).padStart(12, '0')}`,
    session_id: '00000000-0000-0000-0000-000000000001',
    kind: 'report',
    target: 'sessions/00000000/reports/1',
    status: 'failed',
    attempts: 3,
    next_attempt_at: null,
    last_error: 'portal rejected the report: complaint is empty',
    http_status: 422,
    created_at: '2026-11-23T10:00:00Z',
    ...over,
  };
}

export interface FakeSync {
  handlers: Handlers;
  status: SyncStatus;
  /** Stored token (the fake keyring); never returned by portal_settings. */
  token: () => string | null;
  set(patch: Partial<SyncStatus>): void;
}

/** sync_status / sync_retry / portal_settings like the real core (the token is write-only). */
export function fakeSync(over: Partial<SyncStatus> = {}): FakeSync {
  let url: string | null = null;
  let token: string | null = null;
  const status: SyncStatus = {
    state: 'not_configured',
    online: null,
    paused: null,
    portal_url: null,
    token_set: false,
    pending: 0,
    syncing: 0,
    waiting: 0,
    blocked: 0,
    failed: 0,
    conflicts: 0,
    done: 0,
    last_success: null,
    problems: [],
    ...over,
  };
  const recount = () => {
    status.failed = status.problems.filter((p) => p.status === 'failed').length;
    status.conflicts = status.problems.filter((p) => p.status === 'conflict').length;
  };
  const settings = (): PortalSettings => ({
    url,
    url_from_env: false,
    token_set: token != null,
    token_origin: token != null ? 'keyring' : null,
    token_last4: token != null && token.length >= 12 ? token.slice(-4) : token != null ? '' : null,
    token_store: 'secret-service',
    keyring_error: null,
  });
  const handlers: Handlers = {
    sync_status: () => ({ ...status, problems: status.problems.map((p) => ({ ...p })) }),
    sync_retry: (p) => {
      const item = status.problems.find((x) => x.id === p.item);
      if (!item) throw appError('not_found', `outbox item ${p.item} not found`);
      if (item.status !== 'failed' && item.status !== 'conflict') throw appError('invalid_input', `item ${p.item} is ${item.status}`);
      item.status = 'pending';
      item.last_error = null;
      status.pending += 1;
      recount();
      return { ...item };
    },
    portal_settings: (p) => {
      if (p.url != null) {
        if (!/^https:\/\/|^http:\/\/(127\.0\.0\.1|localhost)/.test(p.url)) {
          throw appError('invalid_input', `url: must be https (or http on loopback): ${p.url}`);
        }
        url = p.url;
        status.portal_url = url;
      }
      if (p.token != null) {
        if (p.token.trim() === '') throw appError('invalid_input', 'token: must not be empty');
        token = p.token.trim();
      }
      if (p.clear_token) token = null;
      status.token_set = token != null;
      status.state = url && token ? 'online' : 'not_configured';
      return settings();
    },
  };
  return {
    handlers,
    status,
    token: () => token,
    set: (patch) => {
      Object.assign(status, patch);
      if ('problems' in patch) recount();
    },
  };
}

// ---- manager export (reports_export_start / _status) ----

export interface FakeExport {
  handlers: Handlers;
  /** Moves the running job on by `n` reports (finishing it at the total). */
  advance(n: number): void;
  fail(error: string): void;
}

export function fakeExport(total = 4, over: Partial<ExportJob> = {}): FakeExport {
  let job: ExportJob | null = null;
  let jobs = 0;
  const handlers: Handlers = {
    reports_export_start: (p) => {
      if (p.from > p.to) throw appError('invalid_input', 'to: before from');
      job = { job_id: `job-${++jobs}`, state: 'running', done: 0, total, file_name: null, path: null, download_url: null, error: null };
      return { ...job };
    },
    reports_export_status: (p) => {
      if (!job || job.job_id !== p.job_id) throw appError('not_found', `export job ${p.job_id} not found`);
      if (job.state === 'done') {
        return { ...job, done: job.total, file_name: 'reports-2026-11-01-2026-11-30.zip', download_url: `/exports/${job.job_id}.zip`, path: null, ...over };
      }
      return { ...job };
    },
  };
  return {
    handlers,
    advance: (k) => {
      if (!job) return;
      job.done = Math.min(job.total, job.done + k);
      if (job.done >= job.total) job.state = 'done';
    },
    fail: (error) => {
      if (!job) return;
      job.state = 'failed';
      job.error = error;
    },
  };
}
