// View logic for the diagnostic chat and its context panel: pure functions,
// no React, no backend calls (unit-tested in chat.test.ts).

import type { Artifact, ChatReply, ChatTranscript, ContextStep, ReplyKind, Submode, TopicFrame, Turn } from './api';
import { t as tr, type MessageKey } from './i18n';

/** One exchange as the chat shows it: the technician's message and the desk's reply. */
export interface ChatEntry {
  key: string;
  seq: number;
  input: string;
  reply: ChatReply;
  intent: string | null;
  transition: string | null;
  created_at: string | null;
  /** Photos sent with this message (artifacts whose turn_id is this turn). */
  photos: Artifact[];
}

const KIND_LABEL: Record<ReplyKind, MessageKey> = {
  question: 'kind.question',
  answer: 'kind.answer',
  clarification: 'kind.clarification',
  fallback: 'kind.fallback',
  labor_draft: 'kind.labor_draft',
  report: 'kind.report',
  refusal: 'kind.refusal',
};

/** The badge text for a reply kind (an unknown kind is shown as sent). */
export function replyKindLabel(kind: string): string {
  const k = KIND_LABEL[kind as ReplyKind];
  return k ? tr(k) : kind.replace(/_/g, ' ');
}

function isReplyShape(v: unknown): v is { kind: string; text: string } {
  return (
    typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string' && typeof (v as { text?: unknown }).text === 'string'
  );
}

/** A reply kind the backend sends (a stored turn's JSON is not typed). */
function isReplyKind(v: unknown): v is ReplyKind {
  return typeof v === 'string' && Object.hasOwn(KIND_LABEL, v);
}

/**
 * A stored turn's reply. `session_show` may give it as the reply JSON
 * (`{kind, text, step_id, citations}`, as an object or a JSON string) or as the
 * plain reply text with its kind in `trace.reply_kind`. A kind that is missing
 * or not one of `ReplyKind` reads as `answer`.
 */
export function parseTurnReply(turn: Pick<Turn, 'reply' | 'trace'>): ChatReply {
  let raw: unknown = turn.reply;
  if (typeof raw === 'string') {
    const t = raw.trim();
    if (t.startsWith('{')) {
      try {
        raw = JSON.parse(t);
      } catch {
        // plain text that happens to start with a brace
      }
    }
  }
  if (isReplyShape(raw)) {
    const r = raw as { kind: string; text: string; step_id?: unknown; citations?: unknown };
    return {
      kind: isReplyKind(r.kind) ? r.kind : 'answer',
      text: r.text,
      step_id: typeof r.step_id === 'string' ? r.step_id : null,
      citations: Array.isArray(r.citations) ? r.citations.filter((c): c is string => typeof c === 'string') : [],
    };
  }
  // The stored turn's trace keeps the reply's kind, step and citations beside the plain text.
  const trace = (turn.trace ?? {}) as { reply_kind?: unknown; step_id?: unknown; citations?: unknown };
  return {
    kind: isReplyKind(trace.reply_kind) ? trace.reply_kind : 'answer',
    text: typeof raw === 'string' ? raw : raw == null ? '' : JSON.stringify(raw),
    step_id: typeof trace.step_id === 'string' ? trace.step_id : null,
    citations: Array.isArray(trace.citations) ? trace.citations.filter((c): c is string => typeof c === 'string') : [],
  };
}

/** The chat history from `session_show`: turns in order, with the photos sent with each. */
export function entriesFromTurns(turns: Turn[], artifacts: Artifact[]): ChatEntry[] {
  return [...turns]
    .sort((a, b) => a.seq - b.seq)
    .map((t) => ({
      key: t.id,
      seq: t.seq,
      input: t.input,
      reply: parseTurnReply(t),
      intent: t.intent,
      transition: t.transition,
      created_at: t.created_at,
      photos: artifacts.filter((a) => a.turn_id === t.id),
    }));
}

/** A chat entry from a chat_turn answer, shown until the stored turn arrives. */
export function entryFromTranscript(input: string, t: ChatTranscript): ChatEntry {
  return {
    key: `local-${t.turn}`,
    seq: t.turn,
    input,
    reply: t.reply,
    intent: t.intent,
    transition: t.transition,
    created_at: null,
    photos: [],
  };
}

/**
 * Stored entries plus the local ones the store does not have yet (by seq), in order.
 * Where both have a turn, the stored one wins (its id, its photos) but keeps the
 * local reply: chat_turn's reply is the whole JSON (citations, step), while a
 * stored turn may carry only the reply text.
 */
export function mergeEntries(stored: ChatEntry[], local: ChatEntry[]): ChatEntry[] {
  const localBySeq = new Map(local.map((e) => [e.seq, e]));
  const have = new Set(stored.map((e) => e.seq));
  const merged = stored.map((e) => {
    const l = localBySeq.get(e.seq);
    return l ? { ...e, reply: l.reply } : e;
  });
  return [...merged, ...local.filter((e) => !have.has(e.seq))].sort((a, b) => a.seq - b.seq);
}

export interface ReportSection {
  title: string | null;
  body: string;
  /** A divider such as "--- TRANSLATION ---" (English first, then the session's language). */
  divider?: boolean;
}

/**
 * A report's sections ("Complaint:", "Cause:", … each followed by its text,
 * separated by blank lines; Markdown "### Cause" headings too). Text before
 * the first heading, or a report with no headings, is one untitled section.
 */
export function reportSections(text: string): ReportSection[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out: ReportSection[] = [];
  let title: string | null = null;
  let body: string[] = [];
  let prevBlank = true;
  const flush = () => {
    const b = body.join('\n').replace(/^\n+|\s+$/g, '');
    if (title !== null || b !== '') out.push({ title, body: b });
  };
  for (const line of lines) {
    const rule = /^\s*-{3,}\s*(\S.*?)\s*-{3,}\s*$/.exec(line);
    if (rule) {
      flush();
      out.push({ title: rule[1].charAt(0).toUpperCase() + rule[1].slice(1).toLowerCase(), body: '', divider: true });
      title = null;
      body = [];
      prevBlank = true;
      continue;
    }
    const md = /^#{1,6}\s+(.+?)\s*$/.exec(line);
    const colon = /^([^\s:\-*#][^:]{0,60}):\s*$/.exec(line);
    if (md || (colon && prevBlank)) {
      flush();
      title = (md ? md[1] : colon![1]).trim();
      body = [];
    } else {
      body.push(line);
    }
    prevBlank = line.trim() === '';
  }
  flush();
  return out.length > 0 ? out : [{ title: null, body: text }];
}

export const STEP_MARK: Record<string, string> = { completed: '✓', active: '▶', open: '○' };
const STEP_STATUS_LABEL: Record<string, MessageKey> = { completed: 'step.done', active: 'step.current', open: 'step.notYet' };

export function stepMark(status: string): string {
  return STEP_MARK[status] ?? '○';
}
export function stepStatusLabel(status: string): string {
  const k = STEP_STATUS_LABEL[status];
  return k ? tr(k) : status;
}

export function stepProgress(steps: ContextStep[]): { done: number; total: number } {
  return { done: steps.filter((s) => s.status === 'completed').length, total: steps.length };
}

/** "fan_fuse", "fan_fuse:Locate" → "fan fuse". */
export function humanizeId(id: string): string {
  return id.split(':')[0].replace(/[_-]+/g, ' ').trim();
}

const SUBMODE_LABEL: Record<Submode, MessageKey> = {
  main: 'submode.main',
  locate: 'submode.locate',
  explain: 'submode.explain',
  howto: 'submode.howto',
  replan: 'submode.replan',
};

/** "locate" → "Locate", "howto" → "How to check". */
export function submodeLabel(submode: Submode): string {
  return tr(SUBMODE_LABEL[submode]);
}

/** The breadcrumb for a non-empty topic stack: ["Step", "Locate: fan fuse", …]; [] when empty. */
export function breadcrumb(stack: TopicFrame[]): string[] {
  if (stack.length === 0) return [];
  return [tr('chat.step'), ...stack.map((f) => `${submodeLabel(f.submode)}: ${humanizeId(f.topic)}`)];
}

/** What the chat sends for each button (the engine understands these phrases). */
export const COMMAND_TEXT = {
  backToStep: 'back to the step',
  confirmLabor: 'confirm labor',
  skipLabor: 'skip labor',
  writeReport: 'write the report',
} as const;

/**
 * Hours typed into "Adjust" → the number to send, or an error for a person.
 * Accepts "1.5" and "1,5"; 0 < hours ≤ 99, at most two decimals.
 */
export function parseLaborHours(input: string): { ok: true; hours: string } | { ok: false; error: string } {
  const t = input.trim().replace(',', '.');
  if (t === '') return { ok: false, error: tr('labor.hoursEmpty') };
  if (!/^\d{1,2}(\.\d{1,2})?$|^\.\d{1,2}$/.test(t)) return { ok: false, error: tr('labor.hoursNumber') };
  const n = Number(t);
  if (!(n > 0)) return { ok: false, error: tr('labor.hoursPositive') };
  return { ok: true, hours: String(n) };
}

export function adjustLaborText(hours: string): string {
  return `make it ${hours}`;
}

const LABOR_MODE_KEYS: Record<string, MessageKey> = {
  none: 'labor.mode.none',
  draft: 'labor.mode.draft',
  confirmed: 'labor.mode.confirmed',
  skipped: 'labor.mode.skipped',
};

export function laborModeLabel(mode: string): string {
  const k = LABOR_MODE_KEYS[mode];
  return k ? tr(k) : mode;
}

/** "1.5" → "1.5 hr"; null → "—". */
export function formatHours(h: string | null | undefined): string {
  return h == null || h === '' ? '—' : tr('labor.hours', { h });
}

// ---- the report: 3C edits, finalize, export, sync state ----

const HEADINGS: Record<'complaint' | 'cause' | 'correction', string[]> = {
  complaint: ['complaint', 'queja', 'reclamo', 'жалоба'],
  cause: ['cause', 'causa', 'причина'],
  correction: ['correction', 'corrección', 'correccion', 'исправление'],
};

export interface ThreeC {
  complaint: string;
  cause: string;
  correction: string;
}

/**
 * The report's Complaint / Cause / Correction paragraphs, '' where absent: of
 * the first block (English), or with `translation` of the block after the
 * "--- TRANSLATION ---" divider (a session in another language).
 */
export function reportThreeC(body: string, translation = false): ThreeC {
  const out: ThreeC = { complaint: '', cause: '', correction: '' };
  const seen = new Set<string>();
  let inTranslation = false;
  for (const s of reportSections(body)) {
    if (s.divider) {
      if (!translation || inTranslation) break;
      inTranslation = true;
      continue;
    }
    if (translation && !inTranslation) continue;
    const title = (s.title ?? '').trim().toLowerCase();
    for (const k of Object.keys(HEADINGS) as (keyof ThreeC)[]) {
      if (!seen.has(k) && HEADINGS[k].includes(title)) {
        // A 3C paragraph is one paragraph; what follows it in the section
        // (a declined estimate's "Estimate declined: …") is not the person's to edit.
        out[k] = s.body.trim().split(/\n\s*\n/)[0].trim();
        seen.add(k);
      }
    }
  }
  return out;
}

/** Only the paragraphs the person changed (trimmed), for report_finalize. */
export function threeCEdits(original: ThreeC, edited: ThreeC): Partial<ThreeC> {
  const out: Partial<ThreeC> = {};
  for (const k of ['complaint', 'cause', 'correction'] as const) {
    const v = edited[k].trim();
    if (v !== original[k].trim() && v !== '') out[k] = v;
  }
  return out;
}

/** Which 3C fields were emptied (finalize does not accept an empty paragraph). */
export function emptiedThreeC(original: ThreeC, edited: ThreeC): (keyof ThreeC)[] {
  return (['complaint', 'cause', 'correction'] as const).filter((k) => original[k].trim() !== '' && edited[k].trim() === '');
}

export const EXPORT_MIME: Record<string, string> = {
  markdown: 'text/markdown;charset=utf-8',
  pdf: 'application/pdf',
  json: 'application/json;charset=utf-8',
};

/** A report_export answer as a Blob (base64 content decoded). */
export function exportBlob(r: { content: string; format: string; encoding?: string }): Blob {
  const type = EXPORT_MIME[r.format] ?? 'application/octet-stream';
  if (r.encoding === 'base64') {
    const bin = atob(r.content);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Blob([bytes], { type });
  }
  return new Blob([r.content], { type });
}

/** True while some report revision is still on its way to the portal (the panel polls then). */
export function hasPendingReport(reports: { sync?: { state: string } }[]): boolean {
  return reports.some((r) => r.sync?.state === 'pending');
}

// ---- citations in words ----

/** What the view knows to name a citation with: procedure titles, steps and findings, knowledge titles. */
export interface CitationNames {
  /** Procedure system id → its title ("dc_12v" → "12 V DC circuits"). */
  systems: Record<string, string>;
  /** Step id → its question, finding id → its cause, of the session's procedure. */
  parts: Record<string, string>;
  /** Knowledge source id → its document title. */
  documents: Record<string, string>;
  /** `source_id@vN` of the versions imported from a file (a PDF the app opens at a cited page). */
  files?: ReadonlySet<string>;
}

export const NO_NAMES: CitationNames = { systems: {}, parts: {}, documents: {} };

/**
 * A procedure citation (`procedure:<system>#<finding or step>`, or
 * `…#component:<id>`) as a person reads it: the procedure's title and what
 * of it was used. Not a procedure citation: null.
 */
export function procedureCitationText(raw: string, names: CitationNames): string | null {
  const m = /^procedure:([^#]+)(?:#(.+))?$/.exec(raw);
  if (!m) return null;
  const [, system, part] = m;
  const title = names.systems[system] ?? humanizeId(system);
  if (!part) return tr('cite.procedure', { title });
  const component = /^component:(.+)$/.exec(part);
  const what = component ? humanizeId(component[1]) : (names.parts[part] ?? humanizeId(part));
  return tr('cite.procedurePart', { title, part: what });
}

/** A knowledge chunk's chip: the document's title and which part of it. */
export function documentCitationText(ref: { source_id: string; chunk: number }, names: CitationNames): string {
  const title = names.documents[ref.source_id] ?? humanizeId(ref.source_id.replace(/^component\./, '').replace(/\./g, ' '));
  return tr('cite.document', { title, part: ref.chunk + 1 });
}
