// Generated from the Rust types by `servicedesk::api::bindings`. Do not edit:
// run `UPDATE_BINDINGS=1 cargo test --test tests bindings` instead.

/**
 * One thing the assistant did, kept for the loop guard.
 */
export type AgentAction = { turn: number, 
/**
 * The reply kind (`question`, `fallback`, `answer`, ...).
 */
kind: string, step?: string | null, topic?: string | null, };

export type Answer = { conclusion: string, key_points: Array<KeyPoint>, citations: Array<Citation>, 
/**
 * The best document asks these before it can be applied (in the asker's
 * language when the document has them translated).
 */
clarifying_questions?: Array<string>, requires_handoff?: boolean, 
/**
 * When nothing covers the question: up to three titles near it.
 */
did_you_mean?: Array<string>, };

export type AppInfo = { name: string, version: string, data_dir: string, schema_version: number, sessions: number, artifacts: number, };

export type ArrearsOrder = { order_no: string, city_code: string, lot_code: string, entry_time: string, exit_time: string, total_amount: Money, paid_amount: Money, arrears_amount: Money, };

/**
 * `billing arrears --plate P [--city C] --json`.
 */
export type ArrearsReport = { plate_no: string, city_code: string | null, status: ArrearsStatus, total_arrears: Money, 
/**
 * How many orders of the plate (in the city) were checked.
 */
orders_checked: number, 
/**
 * The unpaid and partly paid orders, by entry time then order number.
 */
orders: Array<ArrearsOrder>, };

export type ArrearsRequest = { plate_no: string, city_code?: string | null, };

/**
 * Whether a plate owes anything in the orders checked.
 */
export type ArrearsStatus = "NONE" | "HAS_ARREARS";

export type Artifact = { id: string, session_id: string, turn_id: string | null, sha256: string, file_name: string, mime: string, kind: FileKind, size_bytes: number, caption: string | null, taken_at: string | null, width: number | null, height: number | null, thumbnail: ThumbnailKind, created_at: Timestamp, 
/**
 * The technician's condition tag; None when none was given.
 */
condition: PhotoCondition | null, 
/**
 * For a marked-up copy: the artifact it was drawn on.
 */
derived_from: string | null, };

export type ArtifactAddRequest = { session_id: string, path: string, caption?: string | null, };

/**
 * A photo's caption and condition tag. A field left out keeps its value;
 * an empty caption clears it, as does the condition `none`.
 */
export type ArtifactAnnotateRequest = { session_id: string, artifact_id: string, caption?: string | null, condition?: ConditionChoice | null, };

export type ArtifactContent = { mime: string, content_base64: string, };

export type ArtifactContentRequest = { artifact_id: string, thumbnail?: boolean, };

export type ArtifactList = { artifacts: Array<Artifact>, };

/**
 * A marked-up copy of a photo: the photo with the drawing over it, as PNG.
 */
export type ArtifactMarkupRequest = { session_id: string, original_id: string, data_base64: string, caption?: string | null, };

export type ArtifactUploadRequest = { session_id: string, file_name: string, content_base64: string, caption?: string | null, };

export type ArtifactVerifyRequest = { session_id?: string | null, };

export type AskRequest = { question: string, 
/**
 * The asker's language; detected from the question when absent.
 */
language?: string | null, filters?: SearchQuery | null, };

export type Attachment = { file_name: string, content_base64: string, };

/**
 * How an answer was given.
 */
export type AuthMethod = "in_person" | "phone" | "signature";

/**
 * The answer to a line's estimate.
 */
export type AuthStatus = "pending" | "approved" | "declined";

export type BlobStatus = "ok" | "missing" | "corrupt";

/**
 * What a stay costs and why.
 */
export type Breakdown = { 
/**
 * The sum of the pieces' amounts (0 within the grace period).
 */
total_amount: Money, 
/**
 * The site's IANA time zone, by name.
 */
time_zone: string, 
/**
 * Site-local wall-clock entry and exit.
 */
entry: string, 
/**
 * Site-local wall-clock exit.
 */
exit: string, 
/**
 * Real elapsed minutes (across a DST change, not the wall-clock difference).
 */
stay_minutes: number, 
/**
 * The payload's grace period, in minutes.
 */
free_minutes: number, 
/**
 * The stay was no longer than `free_minutes`: every piece costs 0.
 */
grace_applied: boolean, 
/**
 * In order of time: by occurrence day, then window start.
 */
pieces: Array<Piece>, };

/**
 * The transcript contract of `docs/spec/conversation.md`: one object per
 * turn, the same for `servicedesk chat --json`, HTTP and IPC.
 */
export type ChatTranscript = { turn: number, session_id: string, language: string, intent: string, 
/**
 * The transition class that fired (`D1_step_answer`, `T1_root_entry`, ...).
 */
transition: string, mode: Mode, submode: Submode, 
/**
 * The procedure being walked.
 */
system: string | null, active_step: string | null, completed_steps: Array<string>, topic_stack: Array<TopicView>, isolation: Isolation, labor: TranscriptLabor, reply: Reply, escalated: boolean, 
/**
 * The names of the current facts.
 */
facts: Array<string>, new_facts: Array<NewFactView>, superseded: Array<Superseded>, 
/**
 * The report revision this turn wrote, if any.
 */
report_revision: number | null, 
/**
 * Why the turn went as it did, for people reading a transcript.
 */
trace: string, };

export type ChatTurnRequest = { session_id: string, text: string, attachments?: Array<Attachment>, };

export type Citation = { source_id: string, version: number, chunk_id: string, title: string, snippet: string, 
/**
 * The shop's own document or a shipped default.
 */
source: Source, 
/**
 * The PDF page the chunk is on.
 */
page: number | null, };

/**
 * A complaint of this visit whose diagnosis is closed: everything its
 * block of the report needs, kept when the next complaint is diagnosed.
 */
export type ClosedComplaint = { system: string, symptom: string | null, isolation: Isolation, repair_done: boolean, 
/**
 * The labor of its block, in tenths of an hour.
 */
labor_tenths: number, 
/**
 * Whether that labor was confirmed, skipped or left a draft.
 */
labor_status: LaborStatus, 
/**
 * Steps that could not be verified.
 */
unverified: Array<string>, 
/**
 * The facts its diagnosis recorded.
 */
facts: Array<Fact>, report_edits: ReportEdits, };

/**
 * Another complaint line of the visit: closed (its cause isolated, kept for
 * the report) or queued for after the current one.
 */
export type ComplaintLineView = { 
/**
 * The system's title in the session language.
 */
system: string, 
/**
 * The complaint in the session language.
 */
complaint: string, 
/**
 * The isolated cause, for a closed line.
 */
cause: string | null, closed: boolean, };

/**
 * A condition tag as a request sets it: one of the tags, or `none` to clear.
 */
export type ConditionChoice = "ok" | "attention" | "urgent" | "none";

/**
 * How an export's `content` carries its bytes.
 */
export type ContentEncoding = "utf8" | "base64";

/**
 * Where a portal item stands: the outbox row's status, or `not_queued`
 * when nothing was queued for it.
 */
export type DeliveryState = "pending" | "done" | "failed" | "conflict" | "not_queued";

export type DemoReport = { rules: ImportReport, orders: ImportReport, };

/**
 * A document that could not be imported, and exactly why.
 */
export type DocError = { file: string, line: number, field: string | null, message: string, };

/**
 * What a saved draft holds.
 */
export type DraftSaved = { 
/**
 * The revision its finalize will take.
 */
revision: number, body: string, turn_id: string, };

export type Empty = Record<symbol, never>;

export type Escalation = { escalated: boolean, reason: string | null, };

/**
 * The rule explanations an import ingested into the knowledge store.
 */
export type ExplainSummary = { ingested: Array<string>, unchanged: number, 
/**
 * Explanations the knowledge store kept an older text of (not an error).
 */
kept: Array<string>, };

export type ExportJob = { job_id: string, state: JobState, done: number, total: number, file_name: string | null, path: string | null, 
/**
 * Under `serve`: where the browser fetches the result (GET).
 */
download_url: string | null, error: string | null, };

export type ExportJobRef = { job_id: string, };

/**
 * Something the technician said or the engine inferred. Facts are never
 * edited: a correction supersedes the old fact and points to the new one.
 */
export type Fact = { id: string, kind: FactKind, source: FactSource, subject: string, value?: string | null, unit?: string | null, text: string, 
/**
 * The turn that produced it.
 */
turn_seq: number, superseded_by?: string | null, 
/**
 * The stable name transcripts assert (`motor_runs_direct_power`).
 */
name?: string | null, 
/**
 * The step outcome this fact selects (`yes`, `no`, `ok`, `low`, `high`).
 */
outcome?: string | null, };

export type FactKind = "measurement" | "observation" | "finding";

export type FactSource = "technician" | "inference";

/**
 * An order's total against its stay simulated under the covering rule.
 */
export type FeeCheck = "consistent" | "mismatch";

export type FileKind = "image" | "document";

/**
 * What an import did, record by record.
 */
export type ImportReport = { origin: string, imported: Array<ImportedItem>, unchanged: Array<ImportedItem>, skipped: Array<SkippedRecord>, 
/**
 * Rule imports only: the generated explanations put into the knowledge store.
 */
explanations?: ExplainSummary | null, };

export type ImportRequest = { 
/**
 * The file's text: a JSON array of rules, or JSONL orders.
 */
content: string, 
/**
 * The file's name, for the change log and error messages.
 */
name?: string | null, };

/**
 * A rule version (`key` = rule_code, `version_no`) or an order (`key` = order_no).
 */
export type ImportedItem = { key: string, version_no?: number | null, 
/**
 * The line of the record in the file.
 */
line: number, };

export type IngestFile = { name: string, 
/**
 * A text document's content.
 */
content?: string, 
/**
 * A PDF's bytes, base64 (standard alphabet); `content` is then empty.
 */
content_base64?: string | null, };

/**
 * What an ingest did, document by document.
 */
export type IngestReport = { imported: Array<IngestedSource>, unchanged: Array<IngestedSource>, skipped: Array<DocError>, chunks: number, };

/**
 * Files to import, as the app's drag and drop sends them: a name (its
 * extension picks Markdown or JSONL) and the UTF-8 content, or a PDF's
 * bytes in base64.
 */
export type IngestRequest = { files: Array<IngestFile>, };

export type IngestedSource = { source_id: string, version: number, chunks: number, origin: string, };

export type Isolation = { complete: boolean, finding: string | null, invalidated: boolean, 
/**
 * The cause and correction in the technician's own words, when the
 * finding is one they stated that the catalog does not have
 * (`finding` is then `Finding::STATED`).
 */
stated?: StatedCause | null, };

export type IsolationView = { 
/**
 * The finding's cause in the session language.
 */
cause: string | null, complete: boolean, finding: string | null, invalidated: boolean, 
/**
 * The cause and correction in the technician's own words, when the
 * finding is one they stated that the catalog does not have
 * (`finding` is then `Finding::STATED`).
 */
stated?: StatedCause | null, };

/**
 * A pending, failed or conflicting item, for status displays.
 */
export type ItemInfo = { id: string, session_id: string | null, kind: OutboxKind, target: string, status: OutboxStatus, attempts: number, next_attempt_at: Timestamp | null, last_error: string | null, http_status: number | null, created_at: Timestamp, };

/**
 * Where a background export stands.
 */
export type JobState = "running" | "done" | "failed";

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type KeyPoint = { text: string, 
/**
 * Index into `citations`.
 */
citation: number, };

export type Labor = { status: LaborStatus, 
/**
 * Decimal hours as strings ("1.50") so no float rounding reaches a report.
 */
estimated_hours: string | null, confirmed_hours: string | null, };

export type LaborLineView = { task: string, hours: string, };

export type LaborStatus = "none" | "draft" | "confirmed" | "skipped";

export type LaborView = { mode: LaborStatus, hours: string | null, lines: Array<LaborLineView>, };

export type LastTransition = { id: string, why: string, };

export type Mode = "diagnostic" | "authorization" | "final_report";

/**
 * An exact amount of money in cents. May be negative (a difference between
 * two totals); prices, caps and order amounts are checked non-negative where
 * they are read.
 * On the wire it is a decimal string ("12.50"), never a float.
 */
export type Money = string;

/**
 * A fact this turn recorded.
 */
export type NewFactView = { id: string, name: string | null, subject: string, value: string | null, unit: string | null, 
/**
 * The words it came from.
 */
text: string, };

/**
 * Miles or kilometres: what the odometer reads in.
 */
export type OdometerUnit = "mi" | "km";

/**
 * A stored order with its arrears.
 */
export type OrderInfo = { order_no: string, city_code: string, lot_code: string, plate_no: string, entry_time: string, exit_time: string, total_amount: Money, paid_amount: Money, 
/**
 * `total - paid`, never below 0.
 */
arrears_amount: Money, created_at: Timestamp, };

export type OrderList = { orders: Array<OrderInfo>, };

export type OrdersRequest = { plate_no?: string | null, city_code?: string | null, };

/**
 * What an outbox item carries to the portal; stored in `outbox.kind`.
 */
export type OutboxKind = "attachment" | "report" | "labor_draft" | "escalation";

/**
 * Where an outbox item stands.
 */
export type OutboxStatus = "pending" | "done" | "failed" | "conflict";

/**
 * Who pays for a line.
 */
export type PayType = "customer" | "warranty" | "internal" | "service_contract";

/**
 * A payload as written in JSON. Fields are kept loose here (strings, options)
 * so that [`Payload::validate`] can say exactly which segment and field is
 * wrong; the calculator runs on the validated [`Tariff`].
 */
export type Payload = { 
/**
 * Grace period for the whole stay: a stay of at most this many minutes
 * costs 0; a longer one is charged in full from entry.
 */
free_minutes: number, 
/**
 * The daily windows and how each is priced; together they cover the day
 * at most once.
 */
segments: Array<Segment>, };

export type PendingConfirmation = { step: string, outcome: string, 
/**
 * The words the tentative answer came from.
 */
text: string, 
/**
 * The reading the words gave, kept for the fact a yes records.
 */
value?: number | null, unit?: string | null, };

/**
 * How a photographed part stands, as the technician tags it; the report
 * lists it with the photo.
 */
export type PhotoCondition = "ok" | "attention" | "urgent";

/**
 * The part of a stay inside one occurrence of one segment's window.
 */
export type Piece = { 
/**
 * The segment's name, and its position in the payload as written.
 */
segment: string, 
/**
 * The segment's position in the payload's list, from 0.
 */
segment_index: number, 
/**
 * How the segment prices its units.
 */
type: SegmentType, 
/**
 * The segment's daily window.
 */
window: Window, 
/**
 * The day the occurrence belongs to (its start's date: a night window
 * from 20:00 on D to 08:00 on D+1 belongs to D).
 */
occurrence: string, 
/**
 * Site-local wall clock at the instants the piece starts and ends (across
 * a fall-back, a piece can be two stretches: its first start, last end).
 */
start: string, 
/**
 * Site-local wall clock at the instant the piece ends.
 */
end: string, 
/**
 * Real elapsed minutes of the stay inside the occurrence.
 */
minutes: number, 
/**
 * `ceil(minutes / unit_minutes)`; 0 for free segments and within grace.
 */
units: number, 
/**
 * How the units are priced: one line for periodic, one per tier used.
 */
lines: Array<PriceLine>, 
/**
 * The sum of the lines, before the cap.
 */
uncapped_amount: Money, 
/**
 * The segment's cap: the most one occurrence costs.
 */
cap?: Money | null, 
/**
 * The cap lowered the amount (an amount exactly at the cap is not capped).
 */
cap_applied: boolean, 
/**
 * What the piece costs: the lines' sum, capped (0 within grace).
 */
amount: Money, };

export type PortalSettings = { url: string | null, 
/**
 * The URL comes from SERVICEDESK_PORTAL_URL, not the settings.
 */
url_from_env: boolean, token_set: boolean, 
/**
 * env | keyring | memory
 */
token_origin: TokenOrigin | null, 
/**
 * The token's last four characters (empty for short tokens); never the token.
 */
token_last4: string | null, 
/**
 * Where a stored token is kept (Linux: Secret Service on a desktop,
 * kernel keyutils when there is no D-Bus session or no provider).
 */
token_store: TokenStore, 
/**
 * Why the keyring could not be read, if it could not.
 */
keyring_error: string | null, };

export type PortalSettingsRequest = { 
/**
 * Set the portal base URL (https, or http on loopback).
 */
url?: string | null, 
/**
 * Store a new token in the OS keyring.
 */
token?: string | null, 
/**
 * Remove the token from the keyring.
 */
clear_token?: boolean, };

/**
 * `units × unit_price = amount`; the units start at offset `from_minute`
 * of the piece (the tier boundary for tiered segments).
 */
export type PriceLine = { 
/**
 * Minutes from the piece's start to the line's first unit.
 */
from_minute: number, 
/**
 * How many units the line charges.
 */
units: number, 
/**
 * The price of each unit.
 */
unit_price: Money, 
/**
 * `units × unit_price`.
 */
amount: Money, };

/**
 * A one-tap answer for the active step: `text` is what gets sent.
 */
export type QuickAnswer = { label: string, text: string, };

/**
 * The last reopening of a session that is open again.
 */
export type ReopenView = { at: Timestamp, by: string | null, };

/**
 * What a reopen recorded.
 */
export type Reopened = { 
/**
 * The revision the next finalize will take.
 */
next_revision: number, reopened_at: Timestamp, reopened_by: string | null, };

/**
 * A session's repair order: its lines priced, the totals, the settings
 * they were priced with, and the diagnoses a line can start from.
 */
export type RepairOrder = { session_id: string, ro_number: string, settings: RoSettings, lines: Array<RoLineView>, totals: RoTotals, diagnoses: Array<RoDiagnosis>, };

export type Reply = { kind: ReplyKind, text: string, step_id: string | null, citations: Array<string>, };

export type ReplyKind = "question" | "answer" | "clarification" | "fallback" | "labor_draft" | "report" | "refusal";

/**
 * The draft as the report view shows it.
 */
export type ReportDraftView = { revision: number, language: string, body: string, updated_at: Timestamp, };

/**
 * What a technician rewrote in the report before finalizing it: the 3C
 * paragraphs of the English block and of the translation. Kept in the
 * session state so every later revision keeps their words.
 */
export type ReportEdits = { en: SectionEdits, translation: SectionEdits, };

export type ReportExport = { revision: number, file_name: string, format: ReportFormat, mime: string, 
/**
 * utf8 for Markdown and JSON, base64 for PDF.
 */
encoding: ContentEncoding, content: string, };

export type ReportExportRequest = { session_id: string, 
/**
 * The revision to export; the newest when absent.
 */
revision?: number | null, 
/**
 * Markdown when absent. Read leniently (`md`, any case, blanks around),
 * so it stays text here and an unknown one is named in the error.
 */
format?: ReportFormat | null, };

export type ReportFinalizeRequest = { session_id: string, 
/**
 * The English paragraphs, as the technician rewrote them.
 */
complaint?: string | null, cause?: string | null, correction?: string | null, 
/**
 * The translated paragraphs, when the session is not in English.
 */
translation?: TranslationEdits, };

export type ReportFinalized = { revision: number, created_at: Timestamp, queued: boolean, file_name: string, };

/**
 * The document a report revision is exported as.
 */
export type ReportFormat = "markdown" | "json" | "pdf";

export type ReportList = { reports: Array<ReportRevision>, };

export type ReportRef = { revision: number, created_at: Timestamp, 
/**
 * The revision's delivery to the portal.
 */
sync: ReportSync, };

export type ReportReopenRequest = { session_id: string, 
/**
 * Who reopens it, for the audit trail.
 */
by?: string | null, };

export type ReportRevision = { revision: number, language: string, 
/**
 * A stored revision's body is Markdown.
 */
format: ReportFormat, body: string, created_at: Timestamp, };

/**
 * Where a session's report stands in its lifecycle.
 */
export type ReportStage = "none" | "draft" | "finalized";

/**
 * A session's report lifecycle: draft, finalized, reopened, draft, ...
 */
export type ReportState = { stage: ReportStage, 
/**
 * The newest final revision, if any.
 */
final_revision: number | null, draft: ReportDraftView | null, 
/**
 * Set while the session is open again after a finalize.
 */
reopened: ReopenView | null, };

/**
 * A revision's delivery to the portal, as the outbox knows it.
 */
export type ReportSync = { state: DeliveryState, reason?: string | null, };

export type ReportsExportRequest = { 
/**
 * First day, YYYY-MM-DD (the shop's calendar; included).
 */
from: string, 
/**
 * Last day, YYYY-MM-DD (included).
 */
to: string, technician?: string | null, 
/**
 * Where to write; `<data dir>/exports` when absent.
 */
out_dir?: string | null, 
/**
 * A ZIP (default) or a folder of CSV + PDFs.
 */
zip?: boolean | null, };

/**
 * The answer to a line's estimate: pending until the customer or the
 * warranty company approves or declines it.
 */
export type RoAuthorization = { status: AuthStatus, by: string | null, method: AuthMethod | null, 
/**
 * When it was given.
 */
at: Timestamp | null, 
/**
 * The estimate's total it was given for.
 */
total: Money | null, };

/**
 * A line's estimate answered: approved or declined, by whom, how, and
 * when (now when not given).
 */
export type RoAuthorizeInput = { line_id: string, 
/**
 * approved | declined
 */
decision: "approved" | "declined", 
/**
 * The customer, or the warranty company's representative.
 */
by: string, 
/**
 * in_person | phone | signature
 */
method: AuthMethod, 
/**
 * YYYY-MM-DDTHH:MM local, or RFC 3339.
 */
at?: string | null, };

/**
 * One of the engine's complaints of this visit, with the labor and parts
 * its finding proposes (empty until it has one), in the session's language.
 */
export type RoDiagnosis = { key: string, system: string, 
/**
 * The complaint as the catalog words it, or the system's name.
 */
title: string, 
/**
 * The isolated cause, once there is one.
 */
cause: string | null, 
/**
 * Whether the diagnosis has isolated its cause.
 */
isolated: boolean, labor: Array<RoLaborInput>, parts: Array<RoPartInput>, };

/**
 * A labor line as the writer types it.
 */
export type RoLaborInput = { description: string, 
/**
 * Hours, up to two decimals ("1.5").
 */
hours: string, };

/**
 * Labor rates per pay type.
 */
export type RoLaborRates = { customer: Money, warranty: Money, internal: Money, service_contract: Money, };

export type RoLaborView = { description: string, hours: string, amount: Money, };

export type RoLineAuthorizeRequest = { session_id: string, authorization: RoAuthorizeInput, 
/**
 * Who makes the change, for the audit trail.
 */
edited_by?: string | null, };

export type RoLineDeleteRequest = { session_id: string, line_id: string, 
/**
 * Who makes the change, for the audit trail.
 */
edited_by?: string | null, };

/**
 * A complaint line as the writer saves it: a new one (no `line_id`) or an
 * existing one, replaced whole.
 */
export type RoLineInput = { line_id?: string | null, 
/**
 * The customer's words.
 */
complaint: string, 
/**
 * customer | warranty | internal | service_contract
 */
pay_type: PayType, 
/**
 * For warranty: chassis | coach | component.
 */
warranty_payer?: WarrantyPayer | null, 
/**
 * For a component maker's warranty: the maker ("Dometic").
 */
warranty_maker?: string | null, 
/**
 * The engine complaint this line's diagnosis is (`RoDiagnosis.key`).
 */
engine_complaint?: string | null, labor?: Array<RoLaborInput>, parts?: Array<RoPartInput>, };

export type RoLineSaveRequest = { session_id: string, line: RoLineInput, 
/**
 * Who makes the change, for the audit trail.
 */
edited_by?: string | null, };

/**
 * One complaint line, priced.
 */
export type RoLineView = { id: string, line_no: number, complaint: string, pay_type: PayType, warranty_payer: WarrantyPayer | null, warranty_maker: string | null, engine_complaint: string | null, 
/**
 * The labor rate of its pay type.
 */
labor_rate: Money, labor: Array<RoLaborView>, parts: Array<RoPartView>, totals: RoTotals, authorization: RoAuthorization, 
/**
 * Whether the line's diagnosis (the one it is linked to, else the
 * chat's complaint at its position) has isolated a cause: its estimate
 * can be approved only then (a decline may come at any time).
 */
isolated: boolean, };

/**
 * A part line as the writer types it.
 */
export type RoPartInput = { part_no?: string | null, description: string, 
/**
 * Quantity, up to two decimals ("2", "1.5").
 */
qty: string, 
/**
 * Price of one, in the shop's currency ("24.99").
 */
unit_price: string, };

export type RoPartView = { part_no: string, description: string, qty: string, unit_price: Money, amount: Money, };

/**
 * The shop's money settings: what the repair order is priced with.
 */
export type RoSettings = { labor_rates: RoLaborRates, 
/**
 * The tax rate in percent, up to three decimals ("8.25", "8.875").
 */
tax_rate: string, 
/**
 * Whether labor is taxed too (parts always are).
 */
labor_taxable: boolean, };

/**
 * Changes to the money settings; what is left out stays as it is.
 */
export type RoSettingsPatch = { rate_customer?: string | null, rate_warranty?: string | null, rate_internal?: string | null, rate_service_contract?: string | null, 
/**
 * Percent, up to three decimals ("8.25").
 */
tax_rate?: string | null, labor_taxable?: boolean | null, 
/**
 * What every new RO number starts with ("RO-" gives RO-000001).
 */
ro_prefix?: string | null, };

/**
 * The repair order's settings: the RO number's prefix and the money.
 */
export type RoSettingsView = { 
/**
 * What every new RO number starts with; the number follows as six
 * digits, one past the highest already issued under it.
 */
ro_prefix: string, labor_rates: RoLaborRates, 
/**
 * The tax rate in percent, up to three decimals ("8.25", "8.875").
 */
tax_rate: string, 
/**
 * Whether labor is taxed too (parts always are).
 */
labor_taxable: boolean, };

/**
 * A line's or the repair order's amounts.
 */
export type RoTotals = { labor: Money, parts: Money, 
/**
 * What the tax was computed on.
 */
taxable: Money, tax: Money, total: Money, };

/**
 * A new rule: one record as a rule import has it (`rule_code`, `name`,
 * `city_code`, `lot_codes`, `time_zone`, `status`, `versions`). Left as
 * JSON so that a wrong field is reported the import's way, by its name.
 */
export type RuleCreateRequest = { rule: unknown, };

/**
 * A stored rule with its versions (oldest first).
 */
export type RuleInfo = { rule_code: string, name: string, city_code: string, lot_codes: Array<string>, status: RuleStatus, 
/**
 * The site's IANA time zone; versions' and stays' times are wall clock there.
 */
time_zone: string, created_at: Timestamp, versions: Array<VersionInfo>, };

export type RuleList = { rules: Array<RuleInfo>, };

/**
 * A stay simulated under a stored rule: the breakdown plus the rule and
 * version that priced it (the version in force at the entry).
 */
export type RuleSimulation = { rule_code: string, version_no: number, rule_name: string, city_code: string, lot_codes: Array<string>, 
/**
 * The sum of the pieces' amounts (0 within the grace period).
 */
total_amount: Money, 
/**
 * The site's IANA time zone, by name.
 */
time_zone: string, 
/**
 * Site-local wall-clock entry and exit.
 */
entry: string, 
/**
 * Site-local wall-clock exit.
 */
exit: string, 
/**
 * Real elapsed minutes (across a DST change, not the wall-clock difference).
 */
stay_minutes: number, 
/**
 * The payload's grace period, in minutes.
 */
free_minutes: number, 
/**
 * The stay was no longer than `free_minutes`: every piece costs 0.
 */
grace_applied: boolean, 
/**
 * In order of time: by occurrence day, then window start.
 */
pieces: Array<Piece>, };

/**
 * Whether a rule prices stays: at most one active rule covers a lot; an
 * inactive one is kept with its versions for the orders it priced.
 */
export type RuleStatus = "active" | "inactive";

/**
 * A version added to a stored rule.
 */
export type RuleVersionAddRequest = { rule_code: string, 
/**
 * In the rule's time zone, as an import file has it (`2026-09-01T00:00`).
 */
effective_from: string, effective_to?: string | null, 
/**
 * The tariff (docs/spec/billing.md), checked field by field.
 */
payload: unknown, };

export type SearchHit = { source_id: string, version: number, title: string, doc_type: string, source_type: string, language: string, 
/**
 * `source_id@vN#chunk`: stable across databases.
 */
chunk_id: string, heading: string, 
/**
 * Higher is better (FTS5's BM25, negated).
 */
score: number, snippet: string, 
/**
 * The shop's own document or a shipped default.
 */
source: Source, 
/**
 * The page of the PDF the chunk was taken from (1-based); none for
 * text documents.
 */
page: number | null, };

/**
 * Filters of a search; `None` means no constraint.
 */
export type SearchQuery = { query?: string, doc_type?: string | null, source_type?: string | null, city_code?: string | null, lot_code?: string | null, 
/**
 * RFC 3339 or YYYY-MM-DD; `None` is now.
 */
at_time?: string | null, source_ids?: Array<string>, language?: string | null, include_inactive?: boolean, 
/**
 * 0 means the default (5).
 */
top_k?: number, };

export type SearchResults = { results: Array<SearchHit>, };

export type SectionEdits = { complaint?: string | null, cause?: string | null, correction?: string | null, };

/**
 * One daily window of a payload and how stays inside it are priced, as
 * written (checked by [`Payload::validate`]).
 */
export type Segment = { 
/**
 * Its name in breakdowns and explanations ("day", "night").
 */
name: string, 
/**
 * `HH:MM-HH:MM`; `00:00-24:00` is the whole day; a start later than the
 * end crosses midnight.
 */
window: string, 
/**
 * `free`, `periodic` or `tiered`.
 */
type: string, 
/**
 * The length of a unit (periodic and tiered): a started unit is charged.
 */
unit_minutes?: number | null, 
/**
 * The price of a unit (periodic).
 */
unit_price?: Money | null, 
/**
 * The unit prices by offset into the piece (tiered).
 */
tiers?: Array<Tier> | null, 
/**
 * The most one occurrence of the window costs (it resets every day).
 */
cap?: Money | null, };

/**
 * The three segment types, as they appear in JSON.
 */
export type SegmentType = "free" | "periodic" | "tiered";

export type Session = { id: string, 
/**
 * The repair order's number: the shop's prefix and a sequence.
 */
ro_number: string, created_at: Timestamp, updated_at: Timestamp, status: SessionStatus, language: string, customer: string | null, customer_phone: string | null, customer_email: string | null, complaint: string, technician: string | null, unit: Unit, turn_count: number, artifact_count: number, };

/**
 * `session_context`: the engine's view of the session plus what the store knows.
 */
export type SessionContext = { session_id: string, last_transition: LastTransition | null, reports: Array<ReportRef>, language: string, mode: Mode, submode: Submode, system: SystemView | null, steps: Array<StepView>, facts: Array<Fact>, isolation: IsolationView, labor: LaborView, topic_stack: Array<TopicFrame>, escalated: boolean, 
/**
 * Why the session was escalated, for the banner.
 */
escalation_reason: string | null, report_ready: boolean, quick_answers: Array<QuickAnswer>, 
/**
 * The visit's other complaint lines: the closed ones (those set aside
 * as not diagnosed among them), then the queued.
 */
other_complaints: Array<ComplaintLineView>, };

export type SessionDeleteRequest = { session_id: string, purge?: boolean, };

export type SessionDeleted = { deleted: boolean, purged_artifacts: number, };

export type SessionDetail = { session: Session, turns: Array<Turn>, artifacts: Array<Artifact>, state: SessionState, 
/**
 * Changes to the header since the session was opened, oldest first.
 */
edits: Array<SessionEdit>, 
/**
 * The unit's other visits (same VIN or plate), newest first.
 */
earlier_visits: Array<Session>, };

/**
 * One change to a session's header: who made it, when, and both values.
 */
export type SessionEdit = { field: string, old_value: string | null, new_value: string | null, edited_by: string | null, edited_at: Timestamp, };

export type SessionExport = { format: string, session: Session, turns: Array<Turn>, artifacts: Array<Artifact>, state: SessionState, 
/**
 * Changes to the header since the session was opened, oldest first.
 */
edits: Array<SessionEdit>, 
/**
 * The unit's other visits (same VIN or plate), newest first.
 */
earlier_visits: Array<Session>, };

export type SessionList = { sessions: Array<SessionListItem>, };

/**
 * A session as the sidebar lists it: the stored session plus where it
 * stands for the people in the shop.
 */
export type SessionListItem = { stage: SessionStage, id: string, 
/**
 * The repair order's number: the shop's prefix and a sequence.
 */
ro_number: string, created_at: Timestamp, updated_at: Timestamp, status: SessionStatus, language: string, customer: string | null, customer_phone: string | null, customer_email: string | null, complaint: string, technician: string | null, unit: Unit, turn_count: number, artifact_count: number, };

export type SessionListRequest = { query?: string | null, status?: SessionStatus | null, };

export type SessionNewRequest = { complaint: string, customer?: string | null, customer_phone?: string | null, customer_email?: string | null, technician?: string | null, language?: string | null, vin?: string | null, plate?: string | null, make_model?: string | null, model_year?: number | null, odometer?: number | null, odometer_unit?: OdometerUnit | null, engine_hours?: number | null, };

export type SessionRef = { session_id: string, };

/**
 * Where a session stands for the people in the shop.
 */
export type SessionStage = "open" | "report_ready" | "escalated" | "finalized" | "synced";

/**
 * The aggregate. Every field has a default so a snapshot missing a field
 * added later still loads.
 */
export type SessionState = { version: number, language: string, mode: Mode, submode: Submode, active_procedure: string | null, active_step: string | null, completed_steps: Array<string>, open_steps: Array<string>, facts: Array<Fact>, hypotheses: Array<string>, contradictions: Array<string>, isolation: Isolation, topic_stack: Array<TopicFrame>, 
/**
 * Most recent agent actions, newest last, for the loop guard.
 */
recent_actions: Array<AgentAction>, 
/**
 * The symptom that started the active procedure.
 */
symptom: string | null, 
/**
 * Set once the technician's language is known; later turns never change it.
 */
language_locked: boolean, 
/**
 * How many times each step has been asked.
 */
asked: { [key in string]: number }, 
/**
 * Number of turns in the session.
 */
turn: number, 
/**
 * The technician reported the repair done and the unit working.
 */
repair_done: boolean, 
/**
 * Final report revisions written so far.
 */
report_revision: number, labor: Labor, escalation: Escalation, 
/**
 * Lane-specific state (clarification loop, billing slots, ...) that later
 * lanes own; kept as JSON so this aggregate does not depend on them.
 */
lanes: { [key in string]: JsonValue }, 
/**
 * The technician's own wording for the report's 3C paragraphs.
 */
report_edits?: ReportEdits, 
/**
 * An answer the engine asked the technician to confirm ("So the panel
 * fuse is OK?"): recorded only on a yes.
 */
pending_confirmation?: PendingConfirmation | null, 
/**
 * What the complaint said about a check ("blower doesn't even come
 * on"): the customer's words, not a verified check, so nothing is
 * recorded; when the walk reaches the check it is put as a question to
 * confirm instead of asked as if nothing had been said.
 */
reported?: Array<PendingConfirmation>, 
/**
 * Further complaints of this visit ("also the water heater won't
 * light"), as `system:symptom`, each diagnosed after the current one.
 */
queued_complaints?: Array<string>, 
/**
 * Complaints of this visit already diagnosed, in order; the current
 * one is the last block of the report.
 */
closed_complaints?: Array<ClosedComplaint>, 
/**
 * Complaint lines of this visit written up as not diagnosed (the
 * technician asked for the report before any of them was started), as
 * `system:symptom`, in order.
 */
undiagnosed_complaints?: Array<string>, };

export type SessionStatus = "open" | "escalated" | "finalized";

/**
 * A corrected header, sent whole as the edit form holds it: a blank field
 * clears it. Every changed field is recorded with `edited_by`.
 */
export type SessionUpdateRequest = { session_id: string, edited_by?: string | null, complaint: string, customer?: string | null, customer_phone?: string | null, customer_email?: string | null, technician?: string | null, vin?: string | null, plate?: string | null, make_model?: string | null, model_year?: number | null, odometer?: number | null, odometer_unit?: OdometerUnit | null, engine_hours?: number | null, };

/**
 * The shop's logo, as stored.
 */
export type ShopLogo = { sha256: string, mime: string, };

/**
 * The shop's name, address (one line per address line) and logo.
 */
export type ShopProfile = { name: string | null, address: string | null, logo: ShopLogo | null, };

/**
 * `shop_settings`: read (empty payload) or change the shop's name, address
 * and logo, printed at the top of every report PDF.
 */
export type ShopSettingsRequest = { 
/**
 * The shop's name; empty clears it.
 */
name?: string | null, 
/**
 * Its address, one line per address line; empty clears it.
 */
address?: string | null, 
/**
 * A PNG or JPEG, base64; at most 2 MiB.
 */
logo_base64?: string | null, remove_logo?: boolean, };

export type SimulateRequest = { 
/**
 * A payload to simulate directly (no store).
 */
payload?: JsonValue | null, 
/**
 * Or a stored rule by code...
 */
rule_code?: string | null, 
/**
 * ...or the active rule covering this city and lot.
 */
city_code?: string | null, lot_code?: string | null, entry: string, exit: string, 
/**
 * For `payload` only (a stored rule has its own zone); default UTC.
 */
time_zone?: string | null, };

/**
 * A payload's breakdown, or a stored rule's (with `rule_code` and `version_no`).
 */
export type SimulateResponse = Breakdown | RuleSimulation;

/**
 * A record that was not imported, and exactly why.
 */
export type SkippedRecord = { line: number, 
/**
 * 1-based position of the record in the file (array element or JSONL record).
 */
record: number, key?: string | null, field?: string | null, message: string, };

/**
 * Whose document a source is. The shop's own (anything imported) outranks
 * the shipped defaults (`knowledge/*.md` and the component notes) on the
 * same subject: of the chunks that clear the relevance floor, the shop's
 * come first.
 */
export type Source = "shop" | "default";

/**
 * The file a source version was imported from, as the app shows it.
 */
export type SourceFile = { source_id: string, version: number, title: string, media_type: string, 
/**
 * The file, base64 (standard alphabet, padded).
 */
data_base64: string, 
/**
 * The page the chunk the request named is on (a chat citation names
 * its chunk, not its page); none when no chunk was named.
 */
page: number | null, };

/**
 * Which imported file to show: a citation's source and version, and the
 * cited chunk (`source@vN#i`) when the page to open is the one it is on.
 */
export type SourceFileRequest = { source_id: string, version: number, chunk_id?: string | null, };

/**
 * A stored source version, for `knowledge list`.
 */
export type SourceInfo = { source_id: string, version: number, doc_type: string, source_type: string, title: string, language: string, city_code: string | null, lot_codes: Array<string>, effective_from: string | null, effective_to: string | null, superseded_at: string | null, 
/**
 * Answers retrieval now.
 */
active: boolean, chunks: number, clarifying_questions: number, requires_handoff: boolean, origin: string, ingested_at: string, 
/**
 * The shop's own document or a shipped default.
 */
source: Source, 
/**
 * The version was imported from a file that is kept (a PDF the app
 * opens at a cited page).
 */
has_file: boolean, };

export type Sources = { sources: Array<SourceInfo>, };

export type StatedCause = { cause: string, correction: string, };

export type StepStatus = "completed" | "active" | "open";

export type StepView = { id: string, question: string, status: StepStatus, 
/**
 * What was said of this check but not yet confirmed, in the session
 * language ("furnace blower start: no"): the complaint's account, or
 * an unsure note the engine asked to confirm. Shown until the
 * technician confirms or answers it.
 */
reported?: string, };

export type Submode = "main" | "locate" | "explain" | "howto" | "replan";

/**
 * A fact this turn took back, and the one that replaced it.
 */
export type Superseded = { fact: string, by: string, };

export type SyncRetryRequest = { 
/**
 * The outbox item's id (its Idempotency-Key).
 */
item: string, };

/**
 * Where sync stands, as the indicator shows it.
 */
export type SyncState = "online" | "offline" | "paused" | "not_configured" | "unknown";

/**
 * `sync status`: what the UI shows.
 */
export type SyncStatus = { state: SyncState, 
/**
 * The last probe or delivery reached the portal (None: not tried yet).
 */
online: boolean | null, paused: string | null, portal_url: string | null, token_set: boolean, 
/**
 * Items not yet delivered.
 */
pending: number, 
/**
 * Pending items due now (each session's oldest, being delivered while online).
 */
syncing: number, 
/**
 * Pending items waiting for their next attempt (backoff, Retry-After;
 * the reason is on the session's oldest item, in `problems`), or behind
 * such an item in their session.
 */
waiting: number, 
/**
 * Pending items held back by a photo that was not sent (see `problems`).
 */
blocked: number, failed: number, conflicts: number, done: number, last_success: string | null, 
/**
 * Failed and conflicting items, and pending ones with an error, with the reason.
 */
problems: Array<ItemInfo>, };

export type SystemView = { id: string, title: string, };

export type ThumbnailKind = "generated" | "placeholder" | "none";

/**
 * One price of a tiered segment, as written.
 */
export type Tier = { 
/**
 * Units starting before this offset (minutes from the start of the
 * piece) take this tier's price; `null` on the last tier: no limit.
 */
up_to_minutes: number | null, 
/**
 * The price of each unit in this tier.
 */
unit_price: Money, };

/**
 * A UTC instant at millisecond precision (what the text form keeps, so a
 * value read back equals the value written).
 */
export type Timestamp = string;

export type TokenOrigin = "env" | "keyring" | "memory";

/**
 * Which store holds the token, for status displays.
 */
export type TokenStore = "secret-service" | "keyutils" | "keychain" | "credential-manager" | "memory";

export type TopicFrame = { submode: Submode, topic: string, 
/**
 * The step the technician was on when the subflow was pushed: popping returns here.
 */
return_step: string | null, };

/**
 * A side topic the conversation will return from.
 */
export type TopicView = { topic: string, submode: Submode, return_step: string | null, };

export type TranscriptLabor = { mode: LaborStatus, 
/**
 * Confirmed hours, else the estimate (`"1.5"`).
 */
hours: string | null, };

export type TranslationEdits = { complaint?: string | null, cause?: string | null, correction?: string | null, };

export type Turn = { id: string, session_id: string, seq: number, created_at: Timestamp, input: string, reply: string, intent: string | null, transition: string | null, trace: JsonValue, };

export type Unit = { vin: string | null, plate: string | null, make_model: string | null, model_year: number | null, odometer: number | null, odometer_unit: OdometerUnit | null, engine_hours: number | null, 
/**
 * The maker the VIN names, decoded offline; never stored.
 */
manufacturer: string | null, };

/**
 * `billing verify --order NO --json`.
 */
export type Verification = { order_no: string, city_code: string, lot_code: string, plate_no: string, entry_time: string, exit_time: string, result: FeeCheck, action: VerifyAction, order_total: Money, simulated_total: Money, 
/**
 * `order_total - simulated_total`.
 */
difference: Money, paid_amount: Money, rule_code: string, version_no: number, time_zone: string, pieces: Array<Piece>, };

export type VerifyAction = "auto_approve" | "manual_review";

export type VerifyReport = { checked: number, ok: number, results: Array<VerifyResult>, };

export type VerifyRequest = { order_no: string, };

export type VerifyResult = { artifact_id: string, session_id: string, sha256: string, file_name: string, status: BlobStatus, };

/**
 * A stored rule version. Times are site-local wall clock (`2026-03-01T00:00`).
 */
export type VersionInfo = { rule_code: string, version_no: number, 
/**
 * Inclusive.
 */
effective_from: string, 
/**
 * Exclusive; `None`: open-ended.
 */
effective_to: string | null, payload: Payload, created_at: Timestamp, };

/**
 * For a warranty line: whose warranty pays.
 */
export type WarrantyPayer = "chassis" | "coach" | "component";

/**
 * A daily window in minutes of the day: `start` in `0..1440`, `end` in
 * `0..=1440`, `start != end`. `end <= start` crosses midnight. On the wire
 * it is `HH:MM-HH:MM`.
 */
export type Window = string;
