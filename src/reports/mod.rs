//! Reports outside the chat: the lifecycle (a draft saved with the
//! technician's edits, an explicit finalize, a reopen), reading a revision
//! with its photos for export, each revision's portal delivery state, and the
//! reports a date range holds.
//!
//! A report written up in the chat is a draft (`report_drafts`); only a
//! finalize makes a final revision (`reports`), finalizes the session and
//! queues the photos then the report for the portal, in the finalize turn's
//! transaction. A finalized session is read-only (a chat note is answered
//! and changes nothing) until it is reopened, which the audit trail records;
//! the next finalize is the next revision. The engine's
//! `SessionState::report_revision` counts final revisions only.

pub mod batch;

use std::collections::HashMap;
use ts_rs::TS;

use serde::{Deserialize, Serialize};

use crate::desk::{Desk, DeskError, Result};
use crate::engine::report::{normalize_edit, ReportEdits, SectionEdits};
use crate::engine::TurnContext;
use crate::export::pdf::PhotoFile;
use crate::export::StoredReport;
use crate::store::{DeliveryState, Session, SessionStatus};

/// The document a report revision is exported as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReportFormat {
    Markdown,
    Json,
    Pdf,
}

impl ReportFormat {
    /// A format as a request names it: `markdown` or `md`, `json`, `pdf`, in
    /// any case, blanks around ignored.
    pub fn parse(text: &str) -> Option<ReportFormat> {
        match text.trim().to_ascii_lowercase().as_str() {
            "markdown" | "md" => Some(ReportFormat::Markdown),
            "json" => Some(ReportFormat::Json),
            "pdf" => Some(ReportFormat::Pdf),
            _ => None,
        }
    }

    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            ReportFormat::Markdown => "md",
            ReportFormat::Json => "json",
            ReportFormat::Pdf => "pdf",
        }
    }

    /// The document's media type.
    pub fn mime(self) -> &'static str {
        match self {
            ReportFormat::Markdown => "text/markdown",
            ReportFormat::Json => "application/json",
            ReportFormat::Pdf => "application/pdf",
        }
    }
}

/// A report revision laid out as one document.
#[derive(Debug, Clone)]
pub struct ReportDocument {
    pub revision: u32,
    pub file_name: String,
    pub content: ReportContent,
}

/// A document's content: text (Markdown, JSON) or bytes (PDF).
#[derive(Debug, Clone)]
pub enum ReportContent {
    Text(String),
    Bytes(Vec<u8>),
}

/// The file name a revision of `session`'s report is exported under.
pub fn report_file_name(session: &Session, revision: u32, format: ReportFormat) -> String {
    crate::export::report_file_name(session, revision, format.extension())
}

/// What a finalize produced.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Finalized {
    pub revision: u32,
    pub created_at: crate::store::Timestamp,
    /// The report (and its photos) went to the portal's outbox.
    pub queued: bool,
    pub turn_id: String,
}

/// Where a session's report stands in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReportStage {
    /// No draft, and not finalized (never written up, or reopened).
    None,
    /// A draft waits for review and finalize.
    Draft,
    /// Finalized: read-only until reopened.
    Finalized,
}

/// The draft as the report view shows it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ReportDraftView {
    pub revision: u32,
    pub language: String,
    pub body: String,
    pub updated_at: crate::store::Timestamp,
}

/// The last reopening of a session that is open again.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ReopenView {
    pub at: crate::store::Timestamp,
    pub by: Option<String>,
}

/// A session's report lifecycle: draft, finalized, reopened, draft, ...
#[derive(Debug, Clone, Serialize, TS)]
pub struct ReportState {
    pub stage: ReportStage,
    /// The newest final revision, if any.
    pub final_revision: Option<u32>,
    pub draft: Option<ReportDraftView>,
    /// Set while the session is open again after a finalize.
    pub reopened: Option<ReopenView>,
}

/// A revision's delivery to the portal, as the outbox knows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ReportSync {
    pub state: DeliveryState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One row of a date range's reports (the newest revision of each session
/// finalized in the range).
#[derive(Debug, Clone)]
pub struct RangeReport {
    pub session: Session,
    pub report: StoredReport,
    pub sync: ReportSync,
}

/// The edits of a finalize, checked: each paragraph is one line of at most
/// 4,000 characters; the error names the field.
pub fn checked_edits(
    en: [(&'static str, Option<String>); 3],
    translation: [(&'static str, Option<String>); 3],
) -> Result<ReportEdits> {
    fn side(
        prefix: &'static str,
        fields: [(&'static str, Option<String>); 3],
    ) -> Result<SectionEdits> {
        let mut out = SectionEdits::default();
        for (name, value) in fields {
            let Some(value) = value else { continue };
            let text = normalize_edit(&value).map_err(|message| DeskError::Invalid {
                field: if prefix.is_empty() {
                    name
                } else {
                    translation_field(name)
                },
                message,
            })?;
            match name {
                "complaint" => out.complaint = Some(text),
                "cause" => out.cause = Some(text),
                _ => out.correction = Some(text),
            }
        }
        Ok(out)
    }
    Ok(ReportEdits {
        en: side("", en)?,
        translation: side("translation", translation)?,
    })
}

fn translation_field(name: &str) -> &'static str {
    match name {
        "complaint" => "translation.complaint",
        "cause" => "translation.cause",
        _ => "translation.correction",
    }
}

/// The words the transcript shows for a finalize, or a draft saved, from
/// the report view.
fn report_input(language: &str, edited: bool, finalize: bool) -> &'static str {
    match (language, edited, finalize) {
        ("es", false, true) => "Finalizar el informe",
        ("es", true, true) => "Finalizar el informe (editado)",
        ("es", _, false) => "Guardar el borrador del informe",
        ("ru", false, true) => "Оформить отчёт",
        ("ru", true, true) => "Оформить отчёт (с правками)",
        ("ru", _, false) => "Сохранить черновик отчёта",
        (_, false, true) => "Finalize the report",
        (_, true, true) => "Finalize the report (edited)",
        (_, _, false) => "Save the report draft",
    }
}

/// What a saved draft holds.
#[derive(Debug, Clone, Serialize, TS)]
pub struct DraftSaved {
    /// The revision its finalize will take.
    pub revision: u32,
    pub body: String,
    pub turn_id: String,
}

/// What a reopen recorded.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Reopened {
    /// The revision the next finalize will take.
    pub next_revision: u32,
    pub reopened_at: crate::store::Timestamp,
    pub reopened_by: Option<String>,
}

impl Desk {
    /// Finalizes the session's report as a new revision, with `edits`
    /// applied (and kept for later revisions), and queues it for the portal
    /// with its photos; the session is then read-only until reopened.
    /// Refused, with the reason and nothing recorded, while the diagnosis has
    /// no finding or when the session is already finalized (so a revision is
    /// queued once).
    pub async fn finalize_report(&self, session_id: &str, edits: ReportEdits) -> Result<Finalized> {
        let (recorded, revision, _) = self.write_report(session_id, edits, true).await?;
        let queued = !recorded.outbox_ids.is_empty();
        if queued {
            self.outbox_changed();
        }
        Ok(Finalized {
            revision,
            created_at: recorded.turn.created_at,
            queued,
            turn_id: recorded.turn.id.clone(),
        })
    }

    /// Saves the technician's edits into the session's report draft (made
    /// when none exists yet): nothing goes to the portal.
    pub async fn save_report_draft(
        &self,
        session_id: &str,
        edits: ReportEdits,
    ) -> Result<DraftSaved> {
        let (recorded, revision, body) = self.write_report(session_id, edits, false).await?;
        Ok(DraftSaved {
            revision,
            body,
            turn_id: recorded.turn.id,
        })
    }

    /// The report with `edits` as a turn: the session's draft, or (`finalize`)
    /// its next final revision with the session finalized and the photos then
    /// the report queued, in the turn's transaction.
    async fn write_report(
        &self,
        session_id: &str,
        edits: ReportEdits,
        finalize: bool,
    ) -> Result<(crate::store::RecordedTurn, u32, String)> {
        let engine = self.engine();
        let edited = !edits.is_empty();
        let ro = self.ro_payload(session_id).await?;
        let decided = self
            .store()
            .turn_with(session_id, |session, state, stored| {
                if session.status == SessionStatus::Finalized {
                    return Err(format!(
                        "repair order {} is already finalized as report revision {}; reopen it to change the report",
                        session.ro_number, state.report_revision
                    ));
                }
                let (photos, portal_photos) = crate::desk::turn_photos(&stored, &[]);
                let ctx = TurnContext {
                    id_prefix: format!("{session_id}:"),
                    complaint: Some(session.complaint.clone()),
                    photos,
                };
                let mut outcome = engine.finalize(&state, &ctx, edits);
                if let Some((_, body)) = &mut outcome.report {
                    *body = crate::desk::repair_order::with_answers(
                        &engine.catalog,
                        session,
                        &outcome.state,
                        &ro,
                        body,
                    );
                    outcome.reply.text = body.clone();
                }
                let Some((revision, body)) = outcome.report.clone() else {
                    return Err(format!(
                        "the report cannot be {} yet: {}",
                        if finalize { "finalized" } else { "drafted" },
                        outcome.reply.text
                    ));
                };
                if !finalize {
                    // A draft uses no revision number up (as in the chat).
                    outcome.state.report_revision = state.report_revision;
                }
                let input = report_input(&outcome.state.language, edited, finalize);
                let mut turn = crate::desk::turn_record(input, &outcome, Vec::new());
                let (queued_revision, queued_photos) = if finalize {
                    turn.report_draft = false;
                    turn.status = Some(SessionStatus::Finalized);
                    (Some(revision), portal_photos)
                } else {
                    (None, Vec::new())
                };
                turn.outbox = crate::store::outbox_items::for_turn(
                    &engine.catalog,
                    session,
                    &state,
                    &outcome.state,
                    queued_revision,
                    &queued_photos,
                    &ro,
                );
                Ok((turn, (revision, body)))
            })
            .await?;
        let (recorded, (revision, body)) = decided.map_err(|message| DeskError::Invalid {
            field: "session_id",
            message,
        })?;
        Ok((recorded, revision, body))
    }

    /// Reopens a finalized session so it can change again: recorded in its
    /// audit trail (who, when); the next finalize makes the next revision.
    pub async fn reopen_report(&self, session_id: &str, by: Option<&str>) -> Result<Reopened> {
        let Some(edit) = self.store().reopen_session(session_id, by).await? else {
            let session = self.store().session(session_id).await?;
            return Err(DeskError::Invalid {
                field: "session_id",
                message: format!(
                    "repair order {} is not finalized, so there is nothing to reopen",
                    session.ro_number
                ),
            });
        };
        let (_, state) = self.store().latest_state(session_id).await?;
        Ok(Reopened {
            next_revision: state.report_revision + 1,
            reopened_at: edit.edited_at,
            reopened_by: edit.edited_by,
        })
    }

    /// Where the session's report stands: its draft, its newest final
    /// revision, finalized or reopened.
    pub async fn report_state(&self, session_id: &str) -> Result<ReportState> {
        let session = self.store().session(session_id).await?;
        let draft = self.store().report_draft(session_id).await?;
        let (_, state) = self.store().latest_state(session_id).await?;
        let finalized = session.status == SessionStatus::Finalized;
        let reopened = if finalized {
            None
        } else {
            self.store()
                .session_edits(session_id)
                .await?
                .into_iter()
                .rev()
                .find(|e| e.field == "status" && e.old_value.as_deref() == Some("finalized"))
        };
        Ok(ReportState {
            stage: match (finalized, &draft) {
                (true, _) => ReportStage::Finalized,
                (false, Some(_)) => ReportStage::Draft,
                (false, None) => ReportStage::None,
            },
            final_revision: (state.report_revision > 0).then_some(state.report_revision),
            draft: draft.map(|d| ReportDraftView {
                revision: d.revision,
                language: d.language,
                body: d.body,
                updated_at: d.updated_at,
            }),
            reopened: reopened.map(|e| ReopenView {
                at: e.edited_at,
                by: e.edited_by,
            }),
        })
    }

    /// A stored revision (the newest when `revision` is None) with its session.
    pub async fn report_revision(
        &self,
        session_id: &str,
        revision: Option<u32>,
    ) -> Result<(Session, StoredReport)> {
        let session = self.store().session(session_id).await?;
        let reports = self.store().reports(session_id).await?;
        let found = match revision {
            Some(rev) => reports.into_iter().find(|r| r.0 == rev),
            None => reports.into_iter().last(),
        };
        let (revision, language, body, created_at) = found.ok_or_else(|| DeskError::Invalid {
            field: "revision",
            message: match revision {
                Some(rev) => format!("session {session_id} has no report revision {rev}"),
                None => format!(
                    "session {session_id} has no final report yet: finish the diagnosis, write the report up and finalize it"
                ),
            },
        })?;
        Ok((
            session,
            StoredReport {
                revision,
                language,
                body,
                created_at,
            },
        ))
    }

    /// The session's photos with their verified bytes (None when a blob is
    /// missing or damaged: the PDF then says so instead of the picture).
    pub async fn report_photos(&self, session_id: &str) -> Result<Vec<PhotoFile>> {
        let artifacts = self.store().artifacts(Some(session_id)).await?;
        let blobs = self.blobs().clone();
        tokio::task::spawn_blocking(move || {
            artifacts
                .into_iter()
                .filter(|a| a.mime.starts_with("image/"))
                .map(|a| PhotoFile {
                    bytes: blobs.get(&a.sha256).ok(),
                    file_name: a.file_name,
                    mime: a.mime,
                })
                .collect()
        })
        .await
        .map_err(|e| DeskError::Join(e.to_string()))
    }

    /// A stored revision (the newest when `revision` is None) as a document.
    pub async fn report_document(
        &self,
        session_id: &str,
        revision: Option<u32>,
        format: ReportFormat,
    ) -> Result<ReportDocument> {
        let (session, report, content) = match format {
            ReportFormat::Markdown => {
                let (session, report) = self.report_revision(session_id, revision).await?;
                let text = crate::export::report_markdown(&session, &report);
                (session, report, ReportContent::Text(text))
            }
            ReportFormat::Json => {
                let (session, report) = self.report_revision(session_id, revision).await?;
                let value = crate::export::report_json(&session, &report);
                // A `serde_json::Value` always serializes.
                let text = serde_json::to_string_pretty(&value).unwrap_or_default();
                (session, report, ReportContent::Text(text))
            }
            ReportFormat::Pdf => {
                let (session, report, pdf) = self.report_pdf(session_id, revision).await?;
                (session, report, ReportContent::Bytes(pdf))
            }
        };
        Ok(ReportDocument {
            revision: report.revision,
            file_name: report_file_name(&session, report.revision, format),
            content,
        })
    }

    /// The revision as a PDF.
    pub async fn report_pdf(
        &self,
        session_id: &str,
        revision: Option<u32>,
    ) -> Result<(Session, StoredReport, Vec<u8>)> {
        let (session, report) = self.report_revision(session_id, revision).await?;
        let photos = self.report_photos(session_id).await?;
        let shop = self.letterhead().await?;
        let (s, r) = (session.clone(), report.clone());
        let pdf = tokio::task::spawn_blocking(move || {
            crate::export::pdf::report_pdf(&s, &r, &photos, &shop)
        })
        .await
        .map_err(|e| DeskError::Join(e.to_string()))?
        .map_err(|e| DeskError::Invalid {
            field: "report",
            message: e.to_string(),
        })?;
        Ok((session, report, pdf))
    }

    /// The shop's letterhead for a PDF: name, address and the logo's bytes.
    pub async fn letterhead(&self) -> Result<crate::export::pdf::Shop> {
        let profile = self.shop_profile().await?;
        Ok(crate::export::pdf::Shop {
            name: profile.name,
            address: profile.address,
            logo: self.shop_logo().await?,
        })
    }

    /// Each revision's portal delivery state, by revision.
    pub async fn report_sync(&self, session_id: &str) -> Result<HashMap<u32, ReportSync>> {
        Ok(self
            .store()
            .report_delivery(session_id)
            .await?
            .into_iter()
            .map(|(revision, (state, reason))| (revision, ReportSync { state, reason }))
            .collect())
    }

    /// The newest revision of each session finalized in `[from, to)` (RFC
    /// 3339 instants), oldest first, optionally one technician's only.
    pub async fn reports_in_range(
        &self,
        from: &str,
        to: &str,
        technician: Option<&str>,
    ) -> Result<Vec<RangeReport>> {
        Ok(self
            .store()
            .reports_in_range(from, to, technician)
            .await?
            .into_iter()
            .map(|r| RangeReport {
                session: r.session,
                report: StoredReport {
                    revision: r.revision,
                    language: r.language,
                    body: r.body,
                    created_at: r.created_at,
                },
                sync: ReportSync {
                    state: r.delivery,
                    reason: r.last_error,
                },
            })
            .collect())
    }
}
