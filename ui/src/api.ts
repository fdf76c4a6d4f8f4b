// Typed wrappers for every command in docs/api.md. All traffic goes through
// `call` in transport.ts.

import { call } from './transport';

export type SessionStatus = 'open' | 'escalated' | 'finalized';
/** Where a listed session stands: its status, or a finding without a report yet, or its newest report on the portal. */
export type SessionStage = SessionStatus | 'report_ready' | 'synced';
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
  /** Set by session_list. */
  stage?: SessionStage;
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
  /** The visit's other complaint lines (closed, then queued); absent in older backends. */
  other_complaints?: ComplaintLine[];
  reports: ContextReport[];
}

/** Another complaint line of the visit, in session_context. */
export interface ComplaintLine {
  system: string;
  complaint: string;
  cause: string | null;
  closed: boolean;
}

export type ReportSyncState = 'pending' | 'done' | 'failed' | 'conflict' | 'not_queued';

/** A report revision in session_context; `sync` is absent in backends before report finalize. */
export interface ContextReport {
  revision: number;
  created_at: string;
  sync?: { state: ReportSyncState | string; reason?: string | null };
}

export interface ReportRevision {
  revision: number;
  language: string;
  format: 'markdown' | string;
  body: string;
  created_at: string;
}

export type ReportFormat = 'markdown' | 'pdf' | 'json';

export interface ReportExport {
  revision: number;
  file_name: string;
  format: ReportFormat | string;
  content: string;
  /** PDF content is base64; absent (utf8) in older backends. */
  encoding?: 'utf8' | 'base64';
}

export interface ReportFinalizeInput {
  session_id: string;
  complaint?: string;
  cause?: string;
  correction?: string;
  /** The translated paragraphs, for a session in another language. */
  translation?: { complaint?: string; cause?: string; correction?: string };
}

export interface ReportFinalized {
  revision: number;
  file_name: string;
  created_at: string;
  queued: boolean;
}

// ---- portal sync ----

export type SyncState = 'online' | 'offline' | 'paused' | 'not_configured' | 'unknown';

/** An outbox item (ItemInfo). A conflict's `last_error` is JSON with both revisions. */
export interface OutboxItem {
  id: string;
  session_id: string | null;
  kind: string;
  target: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  http_status: number | null;
  created_at: string;
}

export interface SyncStatus {
  state: SyncState | string;
  online: boolean | null;
  paused: string | null;
  portal_url: string | null;
  token_set: boolean;
  pending: number;
  syncing: number;
  waiting: number;
  failed: number;
  conflicts: number;
  done: number;
  last_success: string | null;
  problems: OutboxItem[];
}

export interface PortalSettingsInput {
  url?: string;
  token?: string;
  clear_token?: boolean;
}

export interface PortalSettings {
  url: string | null;
  url_from_env: boolean;
  token_set: boolean;
  token_origin: 'env' | 'keyring' | 'memory' | null;
  token_last4: string | null;
  keyring_error: string | null;
}

// ---- manager export ----

export interface ReportsExportInput {
  from: string;
  to: string;
  technician?: string;
}

export interface ReportsExportStatus {
  state: 'running' | 'done' | 'failed';
  done: number;
  total: number;
  file_name?: string | null;
  path?: string | null;
  download_url?: string | null;
  error?: string | null;
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

// ---- billing (docs/api.md "Billing"; shared/spec/billing.md) ----

/** A decimal string with two places ("6.00"), never a float. */
export type Money = string;
export type SegmentType = 'free' | 'periodic' | 'tiered';

export interface BillingTier {
  /** Units starting before this offset take this price; null on the last tier. */
  up_to_minutes: number | null;
  unit_price: Money;
}

export interface BillingSegment {
  name: string;
  /** `HH:MM-HH:MM`; a start later than the end crosses midnight. */
  window: string;
  type: SegmentType | string;
  unit_minutes?: number;
  unit_price?: Money;
  tiers?: BillingTier[];
  cap?: Money;
}

export interface BillingPayload {
  free_minutes: number;
  segments: BillingSegment[];
}

export interface RuleVersion {
  rule_code: string;
  version_no: number;
  /** Site-local wall clock, inclusive. */
  effective_from: string;
  /** Exclusive; null: open-ended. */
  effective_to: string | null;
  payload: BillingPayload;
  created_at: string;
}

export interface BillingRule {
  rule_code: string;
  name: string;
  city_code: string;
  lot_codes: string[];
  status: 'active' | 'inactive' | string;
  time_zone: string;
  created_at: string;
  /** Oldest first. */
  versions: RuleVersion[];
}

export interface PriceLine {
  from_minute: number;
  units: number;
  unit_price: Money;
  amount: Money;
}

export interface Piece {
  segment: string;
  segment_index: number;
  type: SegmentType | string;
  window: string;
  /** The day the window's occurrence starts (YYYY-MM-DD). */
  occurrence: string;
  /** Site-local wall clock. */
  start: string;
  end: string;
  minutes: number;
  units: number;
  lines: PriceLine[];
  uncapped_amount: Money;
  cap?: Money;
  cap_applied: boolean;
  amount: Money;
}

export interface Breakdown {
  total_amount: Money;
  time_zone: string;
  entry: string;
  exit: string;
  stay_minutes: number;
  free_minutes: number;
  grace_applied: boolean;
  pieces: Piece[];
}

/** A breakdown under a stored rule: the version in force at the entry. */
export interface Simulation extends Breakdown {
  rule_code?: string;
  version_no?: number;
  rule_name?: string;
  city_code?: string;
  lot_codes?: string[];
}

export type SimulateInput = { entry: string; exit: string } & (
  | { payload: BillingPayload; time_zone?: string }
  | { rule_code: string }
  | { city_code: string; lot_code: string }
);

export interface BillingImportedItem {
  key: string;
  version_no?: number;
  line: number;
}

export interface BillingSkipped {
  line: number;
  record: number;
  key?: string;
  field?: string;
  message: string;
}

export interface BillingImportReport {
  origin: string;
  imported: BillingImportedItem[];
  unchanged: BillingImportedItem[];
  skipped: BillingSkipped[];
  /** Rule imports: the rule explanations put into the knowledge store. */
  explanations?: { ingested: string[]; unchanged: number; kept: string[] };
}

export interface BillingOrder {
  order_no: string;
  city_code: string;
  lot_code: string;
  plate_no: string;
  entry_time: string;
  exit_time: string;
  total_amount: Money;
  paid_amount: Money;
  arrears_amount: Money;
  created_at: string;
}

export interface ArrearsOrder {
  order_no: string;
  city_code: string;
  lot_code: string;
  entry_time: string;
  exit_time: string;
  total_amount: Money;
  paid_amount: Money;
  arrears_amount: Money;
}

export interface ArrearsReport {
  plate_no: string;
  city_code: string | null;
  status: 'NONE' | 'HAS_ARREARS';
  total_arrears: Money;
  orders_checked: number;
  orders: ArrearsOrder[];
}

export interface Verification {
  order_no: string;
  city_code: string;
  lot_code: string;
  plate_no: string;
  entry_time: string;
  exit_time: string;
  result: 'consistent' | 'mismatch';
  action: 'auto_approve' | 'manual_review';
  order_total: Money;
  simulated_total: Money;
  /** order_total − simulated_total. */
  difference: Money;
  paid_amount: Money;
  rule_code: string;
  version_no: number;
  time_zone: string;
  pieces: Piece[];
}

export interface DemoReport {
  rules: BillingImportReport;
  orders: BillingImportReport;
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

  /** The report as a file (Markdown unless a format is named); the latest revision unless one is named. */
  reportExport: (sessionId: string, revision?: number, format?: ReportFormat) =>
    call<ReportExport>('report_export', {
      session_id: sessionId,
      ...(revision == null ? {} : { revision }),
      // Markdown is the default: leaving it out keeps older backends (no `format` field) working.
      ...(format == null || format === 'markdown' ? {} : { format }),
    }),

  /** A new report revision from the current report with the edits given; queued for the portal. */
  reportFinalize: ({ translation, ...input }: ReportFinalizeInput) =>
    call<ReportFinalized>('report_finalize', {
      ...compact(input),
      ...(translation && Object.keys(compact(translation)).length > 0 ? { translation: compact(translation) } : {}),
    }),

  syncStatus: () => call<SyncStatus>('sync_status', {}),

  /** A failed or conflicting outbox item back to pending. */
  syncRetry: (item: string) => call<OutboxItem>('sync_retry', { item }),

  /** Reads (empty payload) or changes the portal settings; the token is never returned. */
  portalSettings: (input: PortalSettingsInput = {}) => call<PortalSettings>('portal_settings', input),

  reportsExportStart: (input: ReportsExportInput) => call<{ job_id: string }>('reports_export_start', compact(input)),

  reportsExportStatus: (jobId: string) => call<ReportsExportStatus>('reports_export_status', { job_id: jobId }),

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

  /** Prices a stay: under a payload, a stored rule (by code), or the active rule of a city and lot. */
  billingSimulate: (input: SimulateInput) => call<Simulation>('billing_simulate', input),

  /** Every stored rule with its versions (oldest first). */
  billingRules: () => call<{ rules: BillingRule[] }>('billing_rules', {}),

  /** Imports a JSON array of rules; a bad record is skipped with its line and field. */
  billingRulesImport: (content: string, name?: string) =>
    call<BillingImportReport>('billing_rules_import', name ? { content, name } : { content }),

  /** Stored orders by entry time, optionally for one plate and/or city. */
  billingOrders: (filter: { plate_no?: string; city_code?: string } = {}) =>
    call<{ orders: BillingOrder[] }>('billing_orders', filter),

  /** Imports JSONL orders, one a line. */
  billingOrdersImport: (content: string, name?: string) =>
    call<BillingImportReport>('billing_orders_import', name ? { content, name } : { content }),

  /** The unpaid and partly paid orders of a plate (optionally in one city). */
  billingArrears: (plateNo: string, cityCode?: string) =>
    call<ArrearsReport>('billing_arrears', cityCode ? { plate_no: plateNo, city_code: cityCode } : { plate_no: plateNo }),

  /** Re-prices an order under the rule in force at its entry. */
  billingVerify: (orderNo: string) => call<Verification>('billing_verify', { order_no: orderNo }),

  /** Loads the demo rules and orders again (idempotent). */
  billingSeedDemo: () => call<DemoReport>('billing_seed_demo', {}),
};

export type Api = typeof api;

