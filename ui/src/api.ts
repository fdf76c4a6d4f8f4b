// Typed wrappers for every command in docs/api.md. All traffic goes through
// `call` in transport.ts.

import { call } from './transport';

export type SessionStatus = 'open' | 'escalated' | 'finalized';
export const SESSION_STATUSES: SessionStatus[] = ['open', 'escalated', 'finalized'];

export type Language = 'en' | 'es' | 'ru';
export const LANGUAGES: { value: Language; label: string }[] = [
  { value: 'en', label: 'English' },
  { value: 'es', label: 'Español' },
  { value: 'ru', label: 'Русский' },
];

export interface Unit {
  vin: string | null;
  plate: string | null;
  make_model: string | null;
  odometer: number | null;
  engine_hours: number | null;
}

export interface Session {
  id: string;
  created_at: string;
  updated_at: string;
  status: SessionStatus;
  language: string;
  customer: string | null;
  complaint: string;
  technician: string | null;
  unit: Unit;
  turn_count: number;
  artifact_count: number;
}

export type ArtifactKind = 'image' | 'document';
export type ThumbnailKind = 'generated' | 'placeholder' | 'none';

export interface Artifact {
  id: string;
  session_id: string;
  turn_id: string | null;
  sha256: string;
  file_name: string;
  mime: string;
  kind: ArtifactKind;
  size_bytes: number;
  caption: string | null;
  /** EXIF capture time, RFC 3339 with the camera's offset when it recorded one. */
  taken_at: string | null;
  width: number | null;
  height: number | null;
  thumbnail: ThumbnailKind;
  created_at: string;
  /** Only in artifact_list (documented as "unchecked"). */
  integrity?: string;
}

export interface Turn {
  id: string;
  session_id: string;
  seq: number;
  created_at: string;
  input: string;
  reply: string;
  intent: string | null;
  transition: string | null;
  trace: unknown;
  state_version?: number;
}

export interface AppInfo {
  name: string;
  version: string;
  data_dir: string;
  schema_version: number;
  sessions: number;
  artifacts: number;
}

export interface SessionNewInput {
  complaint: string;
  customer?: string;
  technician?: string;
  language?: string;
  vin?: string;
  plate?: string;
  make_model?: string;
  odometer?: number;
  engine_hours?: number;
}

export interface SessionListInput {
  query?: string;
  status?: SessionStatus;
}

export interface SessionDetail {
  session: Session;
  turns: Turn[];
  artifacts: Artifact[];
  state: Record<string, unknown>;
}

export interface SessionExport extends SessionDetail {
  format: 'servicedesk.session.v1' | string;
}

export interface SessionDeleted {
  deleted: boolean;
  purged_artifacts: number;
}

export interface ArtifactUploadInput {
  session_id: string;
  file_name: string;
  content_base64: string;
  caption?: string;
}

export type BlobStatus = 'ok' | 'missing' | 'corrupt';

export interface VerifyResult {
  artifact_id: string;
  session_id?: string;
  sha256: string;
  file_name: string;
  status: BlobStatus;
}

export interface VerifyReport {
  checked: number;
  ok: number;
  results: VerifyResult[];
}

export interface ArtifactContent {
  mime: string;
  content_base64: string;
}

// ---- the context engine (chat) ----

export type ReplyKind = 'question' | 'answer' | 'clarification' | 'fallback' | 'labor_draft' | 'report' | 'refusal';
export const REPLY_KINDS: ReplyKind[] = ['question', 'answer', 'clarification', 'fallback', 'labor_draft', 'report', 'refusal'];

export interface ChatReply {
  kind: ReplyKind | string;
  text: string;
  step_id: string | null;
  citations: string[];
}

export interface TopicFrame {
  topic: string;
  submode: string;
  return_step: string | null;
}

export type LaborMode = 'none' | 'draft' | 'confirmed' | 'skipped';

export interface Isolation {
  complete: boolean;
  finding: string | null;
  invalidated: boolean;
}

export interface ChatAttachment {
  file_name: string;
  content_base64: string;
}

export interface ChatTurnInput {
  session_id: string;
  text: string;
  attachments?: ChatAttachment[];
}

/** One chat_turn answer: the transcript contract (README "The diagnostic assistant"). */
export interface ChatTranscript {
  turn: number;
  session_id?: string;
  language: string;
  intent: string | null;
  transition: string | null;
  mode: string;
  submode: string;
  system: string | null;
  active_step: string | null;
  completed_steps: string[];
  topic_stack: TopicFrame[];
  isolation: Isolation;
  labor: { mode: LaborMode | string; hours: string | null };
  reply: ChatReply;
  escalated: boolean;
  facts: string[];
  new_facts: unknown[];
  superseded: unknown[];
  report_revision: number | null;
  trace: string;
}

export type StepStatus = 'completed' | 'active' | 'open';

export interface ContextStep {
  id: string;
  question: string;
  status: StepStatus | string;
}

export interface ContextFact {
  id: string;
  name: string | null;
  subject: string | null;
  text: string;
  value: string | null;
  unit: string | null;
  source: 'technician' | 'inference' | string;
  /** Absent in older backends: treated as not superseded. */
  superseded_by?: string | null;
}

export interface LaborLine {
  task: string;
  hours: string;
}

/** session_context: what the context engine knows about a session now. */
export interface SessionContext {
  session_id: string;
  language: string;
  mode: string;
  submode: string;
  system: { id: string; title: string } | null;
  steps: ContextStep[];
  facts: ContextFact[];
  isolation: Isolation & { cause: string | null };
  labor: { mode: LaborMode | string; hours: string | null; lines: LaborLine[] };
  topic_stack: TopicFrame[];
  last_transition: { id: string; why: string } | null;
  escalated: boolean;
  /** Why the session was escalated (e.g. a knowledge document that requires a hand-off); absent in older backends. */
  escalation_reason?: string | null;
  report_ready: boolean;
  quick_answers: { label: string; text: string }[];
  reports: { revision: number; created_at: string }[];
}

export interface ReportRevision {
  revision: number;
  language: string;
  format: 'markdown' | string;
  body: string;
  created_at: string;
}

export interface ReportExport {
  revision: number;
  file_name: string;
  format: 'markdown' | string;
  content: string;
}

// ---- the knowledge store ----

export type DocType = 'rule_explain' | 'policy_doc' | 'faq' | 'sop' | 'component' | 'procedure';
export const DOC_TYPES: DocType[] = ['policy_doc', 'faq', 'sop', 'procedure', 'component', 'rule_explain'];

/** knowledge_search filters; absent (or blank) means no constraint. */
export interface KnowledgeSearchInput {
  query: string;
  doc_type?: string;
  source_type?: string;
  city_code?: string;
  lot_code?: string;
  /** RFC 3339 or YYYY-MM-DD; absent means now. */
  at_time?: string;
  source_ids?: string[];
  language?: string;
  include_inactive?: boolean;
  /** 0 or absent: the backend's default (5); at most 50. */
  top_k?: number;
}

export interface KnowledgeHit {
  source_id: string;
  version: number;
  title: string;
  doc_type: string;
  source_type: string;
  language: string;
  /** `source_id@vN#chunk`. */
  chunk_id: string;
  heading: string;
  /** Higher is better. */
  score: number;
  snippet: string;
}

export interface KnowledgeSource {
  source_id: string;
  version: number;
  doc_type: string;
  source_type: string;
  title: string;
  language: string;
  city_code: string | null;
  lot_codes: string[];
  effective_from: string | null;
  effective_to: string | null;
  superseded_at: string | null;
  /** Answers retrieval now. */
  active: boolean;
  chunks: number;
  /** How many clarifying questions the document asks first. */
  clarifying_questions: number;
  requires_handoff: boolean;
  origin: string;
  ingested_at: string;
}

export interface IngestFileInput {
  name: string;
  content: string;
}

export interface IngestedSource {
  source_id: string;
  version: number;
  chunks: number;
  origin: string;
}

/** A document that could not be imported, and exactly why. */
export interface DocError {
  file: string;
  line: number;
  field: string | null;
  message: string;
}

export interface IngestReport {
  imported: IngestedSource[];
  unchanged: IngestedSource[];
  skipped: DocError[];
  chunks: number;
}

export interface KnowledgeCitation {
  source_id: string;
  version: number;
  chunk_id: string;
  title: string;
  snippet: string;
}

export interface KnowledgeAnswer {
  conclusion: string;
  /** `citation` is an index into `citations`. */
  key_points: { text: string; citation: number }[];
  citations: KnowledgeCitation[];
  clarifying_questions?: string[];
  requires_handoff?: boolean;
}

export interface KnowledgeAskInput {
  question: string;
  language?: string;
  filters?: Omit<KnowledgeSearchInput, 'query'>;
}

/** Drops blank strings and undefined numbers so the backend sees only what was given. */
function compact<T extends object>(input: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' && v.trim() === '') continue;
    if (typeof v === 'number' && Number.isNaN(v)) continue;
    out[k] = typeof v === 'string' ? v.trim() : v;
  }
  return out as Partial<T>;
}

export const api = {
  appInfo: () => call<AppInfo>('app_info', {}),

  sessionNew: (input: SessionNewInput) =>
    // complaint is always sent (even blank) so the backend's own validation answers.
    call<Session>('session_new', { ...compact(input), complaint: input.complaint }),

  sessionList: (input: SessionListInput = {}) =>
    call<{ sessions: Session[] }>('session_list', compact(input)),

  sessionShow: (sessionId: string) => call<SessionDetail>('session_show', { session_id: sessionId }),

  sessionExport: (sessionId: string) =>
    call<SessionExport>('session_export', { session_id: sessionId }),

  sessionDelete: (sessionId: string, purge = false) =>
    call<SessionDeleted>('session_delete', { session_id: sessionId, purge }),

  artifactAdd: (sessionId: string, path: string, caption?: string) =>
    call<Artifact>('artifact_add', compact({ session_id: sessionId, path, caption })),

  artifactUpload: (input: ArtifactUploadInput) =>
    call<Artifact>('artifact_upload', {
      session_id: input.session_id,
      file_name: input.file_name,
      content_base64: input.content_base64,
      ...(input.caption && input.caption.trim() ? { caption: input.caption.trim() } : {}),
    }),

  artifactList: (sessionId: string) =>
    call<{ artifacts: Artifact[] }>('artifact_list', { session_id: sessionId }),

  artifactVerify: (sessionId?: string) =>
    call<VerifyReport>('artifact_verify', sessionId ? { session_id: sessionId } : {}),

  artifactContent: (artifactId: string, thumbnail: boolean) =>
    call<ArtifactContent>('artifact_content', { artifact_id: artifactId, thumbnail }),

  /** One technician message (with photos) to the context engine. */
  chatTurn: (input: ChatTurnInput) =>
    call<ChatTranscript>('chat_turn', {
      session_id: input.session_id,
      text: input.text,
      attachments: input.attachments ?? [],
    }),

  sessionContext: (sessionId: string) => call<SessionContext>('session_context', { session_id: sessionId }),

  reportList: (sessionId: string) => call<{ reports: ReportRevision[] }>('report_list', { session_id: sessionId }),

  /** The report as a Markdown file; the latest revision unless one is named. */
  reportExport: (sessionId: string, revision?: number) =>
    call<ReportExport>('report_export', revision == null ? { session_id: sessionId } : { session_id: sessionId, revision }),

  /** Ranked chunks, best first. Pass a payload built by `searchPayload` (knowledge.ts): only the filters given. */
  knowledgeSearch: (input: KnowledgeSearchInput) => call<{ results: KnowledgeHit[] }>('knowledge_search', input),

  /** Every stored source version (active, superseded and out of their validity window). */
  knowledgeSources: () => call<{ sources: KnowledgeSource[] }>('knowledge_sources', {}),

  /** Imports what parses; the report names every file that did not (line, field). */
  knowledgeIngest: (files: IngestFileInput[]) => call<IngestReport>('knowledge_ingest', { files }),

  /** A one-shot cited answer (a document's clarifying questions come back for the caller). */
  knowledgeAsk: (input: KnowledgeAskInput) =>
    call<KnowledgeAnswer>('knowledge_ask', {
      question: input.question,
      ...(input.language ? { language: input.language } : {}),
      ...(input.filters && Object.keys(input.filters).length > 0 ? { filters: input.filters } : {}),
    }),
};

export type Api = typeof api;

