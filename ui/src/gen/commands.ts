// Generated from the Rust types by `servicedesk::api::bindings`. Do not edit:
// run `UPDATE_BINDINGS=1 cargo test --test tests bindings` instead.

import type { Answer, AppInfo, ArrearsReport, ArrearsRequest, Artifact, ArtifactAddRequest, ArtifactAnnotateRequest, ArtifactContent, ArtifactContentRequest, ArtifactList, ArtifactMarkupRequest, ArtifactUploadRequest, ArtifactVerifyRequest, AskRequest, ChatTranscript, ChatTurnRequest, DemoReport, DraftSaved, Empty, ExportJob, ExportJobRef, ImportReport, ImportRequest, IngestReport, IngestRequest, ItemInfo, OrderList, OrdersRequest, PortalSettings, PortalSettingsRequest, Reopened, RepairOrder, ReportExport, ReportExportRequest, ReportFinalizeRequest, ReportFinalized, ReportList, ReportReopenRequest, ReportState, ReportsExportRequest, RoLineAuthorizeRequest, RoLineDeleteRequest, RoLineSaveRequest, RoSettingsPatch, RoSettingsView, RuleCreateRequest, RuleInfo, RuleList, RuleVersionAddRequest, SearchQuery, SearchResults, Session, SessionContext, SessionDeleteRequest, SessionDeleted, SessionDetail, SessionExport, SessionList, SessionListRequest, SessionNewRequest, SessionRef, SessionUpdateRequest, ShopProfile, ShopSettingsRequest, SimulateRequest, SimulateResponse, SourceFile, SourceFileRequest, Sources, SyncRetryRequest, SyncStatus, Verification, VerifyReport, VerifyRequest, VersionInfo } from './models';

/** Every command `dispatch` serves, with its request and response. */
export interface Commands {
  app_info: { request: Empty; response: AppInfo };
  session_new: { request: SessionNewRequest; response: Session };
  session_update: { request: SessionUpdateRequest; response: Session };
  session_list: { request: SessionListRequest; response: SessionList };
  session_show: { request: SessionRef; response: SessionDetail };
  session_export: { request: SessionRef; response: SessionExport };
  session_delete: { request: SessionDeleteRequest; response: SessionDeleted };
  artifact_add: { request: ArtifactAddRequest; response: Artifact };
  artifact_upload: { request: ArtifactUploadRequest; response: Artifact };
  artifact_annotate: { request: ArtifactAnnotateRequest; response: Artifact };
  artifact_markup: { request: ArtifactMarkupRequest; response: Artifact };
  artifact_list: { request: SessionRef; response: ArtifactList };
  artifact_verify: { request: ArtifactVerifyRequest; response: VerifyReport };
  artifact_content: { request: ArtifactContentRequest; response: ArtifactContent };
  chat_turn: { request: ChatTurnRequest; response: ChatTranscript };
  report_list: { request: SessionRef; response: ReportList };
  report_export: { request: ReportExportRequest; response: ReportExport };
  report_finalize: { request: ReportFinalizeRequest; response: ReportFinalized };
  report_draft_save: { request: ReportFinalizeRequest; response: DraftSaved };
  report_reopen: { request: ReportReopenRequest; response: Reopened };
  report_state: { request: SessionRef; response: ReportState };
  reports_export_start: { request: ReportsExportRequest; response: ExportJob };
  reports_export_status: { request: ExportJobRef; response: ExportJob };
  session_context: { request: SessionRef; response: SessionContext };
  knowledge_search: { request: SearchQuery; response: SearchResults };
  knowledge_sources: { request: Empty; response: Sources };
  knowledge_source_file: { request: SourceFileRequest; response: SourceFile };
  knowledge_ingest: { request: IngestRequest; response: IngestReport };
  knowledge_ask: { request: AskRequest; response: Answer };
  billing_simulate: { request: SimulateRequest; response: SimulateResponse };
  billing_rules: { request: Empty; response: RuleList };
  billing_rules_import: { request: ImportRequest; response: ImportReport };
  billing_rule_create: { request: RuleCreateRequest; response: RuleInfo };
  billing_rule_version_add: { request: RuleVersionAddRequest; response: VersionInfo };
  billing_orders: { request: OrdersRequest; response: OrderList };
  billing_orders_import: { request: ImportRequest; response: ImportReport };
  billing_arrears: { request: ArrearsRequest; response: ArrearsReport };
  billing_verify: { request: VerifyRequest; response: Verification };
  billing_seed_demo: { request: Empty; response: DemoReport };
  sync_status: { request: Empty; response: SyncStatus };
  sync_retry: { request: SyncRetryRequest; response: ItemInfo };
  portal_settings: { request: PortalSettingsRequest; response: PortalSettings };
  ro_show: { request: SessionRef; response: RepairOrder };
  ro_line_save: { request: RoLineSaveRequest; response: RepairOrder };
  ro_line_authorize: { request: RoLineAuthorizeRequest; response: RepairOrder };
  ro_line_delete: { request: RoLineDeleteRequest; response: RepairOrder };
  ro_settings: { request: RoSettingsPatch; response: RoSettingsView };
  shop_settings: { request: ShopSettingsRequest; response: ShopProfile };
}

export type Command = keyof Commands;

/** The commands, in the order of the Rust table. */
export const COMMANDS: Command[] = [
  'app_info',
  'session_new',
  'session_update',
  'session_list',
  'session_show',
  'session_export',
  'session_delete',
  'artifact_add',
  'artifact_upload',
  'artifact_annotate',
  'artifact_markup',
  'artifact_list',
  'artifact_verify',
  'artifact_content',
  'chat_turn',
  'report_list',
  'report_export',
  'report_finalize',
  'report_draft_save',
  'report_reopen',
  'report_state',
  'reports_export_start',
  'reports_export_status',
  'session_context',
  'knowledge_search',
  'knowledge_sources',
  'knowledge_source_file',
  'knowledge_ingest',
  'knowledge_ask',
  'billing_simulate',
  'billing_rules',
  'billing_rules_import',
  'billing_rule_create',
  'billing_rule_version_add',
  'billing_orders',
  'billing_orders_import',
  'billing_arrears',
  'billing_verify',
  'billing_seed_demo',
  'sync_status',
  'sync_retry',
  'portal_settings',
  'ro_show',
  'ro_line_save',
  'ro_line_authorize',
  'ro_line_delete',
  'ro_settings',
  'shop_settings',
];
