// Typed wrappers for every command in docs/api.md, and the wire types.
//
// The wire types are generated from the Rust ones (gen/models.ts, written by
// `tests/bindings.rs`; never edit it by hand) and re-exported here, so the rest
// of the UI imports them from './api'. Every wrapper goes through the typed
// `call` of transport.ts, whose request and answer types come from the
// generated command table (gen/commands.ts).

import type {
  Answer,
  ExportJob,
  ImportReport,
  IngestFile,
  ItemInfo,
  OrderInfo,
  Payload,
  Reply,
  ReportFormat,
  ReportRef,
  RuleInfo,
  SearchHit,
  Segment,
  SessionStatus,
  SimulateRequest,
  SimulateResponse,
  SkippedRecord,
  SourceInfo,
  StepView,
  VersionInfo,
} from './gen/models';
import { call, type CommandRequest } from './transport';

export type * from './gen/models';
export type { Command, Commands } from './gen/commands';
export type { CommandRequest, CommandResponse, SearchFilters } from './transport';

// ---- UI names for generated types ----

export type SessionNewInput = CommandRequest<'session_new'>;
export type ChatReply = Reply;
export type ContextStep = StepView;
export type ContextReport = ReportRef;
/** An outbox item. A conflict's `last_error` is JSON with both revisions. */
export type OutboxItem = ItemInfo;
export type ReportsExportInput = CommandRequest<'reports_export_start'>;
export type ReportsExportStatus = ExportJob;
/** knowledge_search filters; absent (or blank) means no constraint. */
export type KnowledgeSearchInput = CommandRequest<'knowledge_search'>;
export type KnowledgeHit = SearchHit;
export type KnowledgeSource = SourceInfo;
export type KnowledgeAnswer = Answer;
export type BillingSegment = Segment;
export type BillingPayload = Payload;
export type RuleVersion = VersionInfo;
export type BillingRule = RuleInfo;
/** A breakdown, under a stored rule (with the rule and version) or under a payload. */
export type Simulation = SimulateResponse;
export type SimulateInput = SimulateRequest;
export type BillingSkipped = SkippedRecord;
export type BillingImportReport = ImportReport;
export type BillingOrder = OrderInfo;

// ---- UI-only lists and unions (the backend keeps these as strings) ----

export const SESSION_STATUSES: SessionStatus[] = ['open', 'escalated', 'finalized'];

/** The interface and session languages (`Session.language` is a string in Rust). */
export type Language = 'en' | 'es' | 'ru';
export const LANGUAGES: { value: Language; label: string }[] = [
  { value: 'en', label: 'English' },
  { value: 'es', label: 'Español' },
  { value: 'ru', label: 'Русский' },
];

/** Knowledge document types (`doc_type` is a string in Rust). */
export type DocType = 'rule_explain' | 'policy_doc' | 'faq' | 'sop' | 'component' | 'procedure';
export const DOC_TYPES: DocType[] = ['policy_doc', 'faq', 'sop', 'procedure', 'component', 'rule_explain'];

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
  appInfo: () => call('app_info', {}),

  sessionNew: (input: SessionNewInput) =>
    // complaint is always sent (even blank) so the backend's own validation answers.
    call('session_new', { ...compact(input), complaint: input.complaint }),

  sessionUpdate: (input: CommandRequest<'session_update'>) => call('session_update', input),

  sessionList: (input: CommandRequest<'session_list'> = {}) => call('session_list', compact(input)),

  sessionShow: (sessionId: string) => call('session_show', { session_id: sessionId }),

  sessionExport: (sessionId: string) => call('session_export', { session_id: sessionId }),

  sessionDelete: (sessionId: string, purge = false) => call('session_delete', { session_id: sessionId, purge }),

  artifactUpload: (input: CommandRequest<'artifact_upload'>) =>
    call('artifact_upload', {
      session_id: input.session_id,
      file_name: input.file_name,
      content_base64: input.content_base64,
      ...(input.caption && input.caption.trim() ? { caption: input.caption.trim() } : {}),
    }),

  /** A photo's caption ('' clears it) and/or condition tag ('none' clears it); a field left out keeps its value. */
  artifactAnnotate: (input: CommandRequest<'artifact_annotate'>) => call('artifact_annotate', input),

  /** Stores the photo with its drawing (PNG, base64) as a new photo linked to the original. */
  artifactMarkup: (input: CommandRequest<'artifact_markup'>) =>
    call('artifact_markup', {
      session_id: input.session_id,
      original_id: input.original_id,
      data_base64: input.data_base64,
      ...(input.caption && input.caption.trim() ? { caption: input.caption.trim() } : {}),
    }),

  artifactList: (sessionId: string) => call('artifact_list', { session_id: sessionId }),

  artifactVerify: (sessionId?: string) => call('artifact_verify', sessionId ? { session_id: sessionId } : {}),

  artifactContent: (artifactId: string, thumbnail: boolean) =>
    call('artifact_content', { artifact_id: artifactId, thumbnail }),

  /** One technician message (with photos) to the context engine. */
  chatTurn: (input: CommandRequest<'chat_turn'>) =>
    call('chat_turn', {
      session_id: input.session_id,
      text: input.text,
      attachments: input.attachments ?? [],
    }),

  sessionContext: (sessionId: string) => call('session_context', { session_id: sessionId }),

  reportList: (sessionId: string) => call('report_list', { session_id: sessionId }),

  /** The report as a file (Markdown unless a format is named); the latest revision unless one is named. */
  reportExport: (sessionId: string, revision?: number, format?: ReportFormat) =>
    call('report_export', {
      session_id: sessionId,
      ...(revision == null ? {} : { revision }),
      // Markdown is the default: it is left out.
      ...(format == null || format === 'markdown' ? {} : { format }),
    }),

  /** A new report revision from the current report with the edits given; queued for the portal. */
  reportFinalize: ({ translation, ...input }: CommandRequest<'report_finalize'>) =>
    call('report_finalize', {
      ...compact(input),
      session_id: input.session_id,
      ...(translation && Object.keys(compact(translation)).length > 0 ? { translation: compact(translation) } : {}),
    }),

  /** Saves the edits into the report draft (made from the diagnosis when there is none); nothing is queued. */
  reportDraftSave: ({ translation, ...input }: CommandRequest<'report_draft_save'>) =>
    call('report_draft_save', {
      ...compact(input),
      session_id: input.session_id,
      ...(translation && Object.keys(compact(translation)).length > 0 ? { translation: compact(translation) } : {}),
    }),

  /** Where the report stands: draft, finalized (read-only), reopened. */
  reportState: (sessionId: string) => call('report_state', { session_id: sessionId }),

  /** Reopens a finalized repair order; recorded in its audit trail with who did it. */
  reportReopen: (sessionId: string, by: string) =>
    call('report_reopen', { session_id: sessionId, ...(by.trim() ? { by: by.trim() } : {}) }),

  syncStatus: () => call('sync_status', {}),

  /** A failed or conflicting outbox item back to pending. */
  syncRetry: (item: string) => call('sync_retry', { item }),

  /** Reads (empty payload) or changes the portal settings; the token is never returned. */
  portalSettings: (input: CommandRequest<'portal_settings'> = {}) => call('portal_settings', input),

  /** A session's repair order: its lines priced, the totals, and the diagnoses a line can start from. */
  roShow: (sessionId: string) => call('ro_show', { session_id: sessionId }),

  /** Saves one complaint line whole (a new one without `line_id`); answers the repair order. */
  roLineSave: (sessionId: string, line: CommandRequest<'ro_line_save'>['line']) =>
    call('ro_line_save', { session_id: sessionId, line }),

  /** The customer's or the warranty company's answer to a line's estimate. */
  roLineAuthorize: (sessionId: string, authorization: CommandRequest<'ro_line_authorize'>['authorization']) =>
    call('ro_line_authorize', { session_id: sessionId, authorization }),

  roLineDelete: (sessionId: string, lineId: string) =>
    call('ro_line_delete', { session_id: sessionId, line_id: lineId }),

  /** The labor rates and tax; with fields, sets those first. */
  roSettings: (input: CommandRequest<'ro_settings'> = {}) => call('ro_settings', input),

  /** Reads (no input) or changes the shop's name, address and logo, which head every report PDF. */
  shopSettings: (input: CommandRequest<'shop_settings'> = {}) => call('shop_settings', input),

  reportsExportStart: (input: ReportsExportInput) =>
    call('reports_export_start', { ...compact(input), from: input.from, to: input.to }),

  reportsExportStatus: (jobId: string) => call('reports_export_status', { job_id: jobId }),

  /** Ranked chunks, best first. Pass a payload built by `searchPayload` (knowledge.ts): only the filters given. */
  knowledgeSearch: (input: KnowledgeSearchInput) => call('knowledge_search', input),

  /** Every stored source version (active, superseded and out of their validity window). */
  knowledgeSources: () => call('knowledge_sources', {}),
  knowledgeSourceFile: (input: CommandRequest<'knowledge_source_file'>) => call('knowledge_source_file', input),

  /** Imports what parses; the report names every file that did not (line, field). */
  knowledgeIngest: (files: IngestFile[]) => call('knowledge_ingest', { files }),

  /** A one-shot cited answer (a document's clarifying questions come back for the caller). */
  knowledgeAsk: (input: CommandRequest<'knowledge_ask'>) =>
    call('knowledge_ask', {
      question: input.question,
      ...(input.language ? { language: input.language } : {}),
      ...(input.filters && Object.keys(input.filters).length > 0 ? { filters: input.filters } : {}),
    }),

  /** Prices a stay: under a payload, a stored rule (by code), or the active rule of a city and lot. */
  billingSimulate: (input: SimulateInput) => call('billing_simulate', input),

  /** Every stored rule with its versions (oldest first). */
  billingRules: () => call('billing_rules', {}),

  /** Imports a JSON array of rules; a bad record is skipped with its line and field. */
  billingRulesImport: (content: string, name?: string) =>
    call('billing_rules_import', name ? { content, name } : { content }),

  /** Creates a rule from one record of a rules file; every wrong field is named (`field: what is wrong; ...`). */
  billingRuleCreate: (input: CommandRequest<'billing_rule_create'>) => call('billing_rule_create', input),

  /** Adds a version (numbered one past the newest) to a stored rule; an overlap names the stored version. */
  billingRuleVersionAdd: (input: CommandRequest<'billing_rule_version_add'>) => call('billing_rule_version_add', input),

  /** Stored orders by entry time, optionally for one plate and/or city. */
  billingOrders: (filter: CommandRequest<'billing_orders'> = {}) => call('billing_orders', filter),

  /** Imports JSONL orders, one a line. */
  billingOrdersImport: (content: string, name?: string) =>
    call('billing_orders_import', name ? { content, name } : { content }),

  /** The unpaid and partly paid orders of a plate (optionally in one city). */
  billingArrears: (plateNo: string, cityCode?: string) =>
    call('billing_arrears', cityCode ? { plate_no: plateNo, city_code: cityCode } : { plate_no: plateNo }),

  /** Re-prices an order under the rule in force at its entry. */
  billingVerify: (orderNo: string) => call('billing_verify', { order_no: orderNo }),

  /** Loads the demo rules and orders again (idempotent). */
  billingSeedDemo: () => call('billing_seed_demo', {}),
};

export type Api = typeof api;
