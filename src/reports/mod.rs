//! Final reports outside the chat: finalizing from the report preview (with
//! the technician's edits), reading a revision with its photos for export,
//! each revision's portal delivery state, and the reports a date range holds.
//!
//! A finalize is recorded as a turn, like a report asked for in the chat: the
//! revision, the session's status and the portal's items (the photos, then
//! the report) commit in one transaction, and the transcript shows it.

pub mod batch;

use std::collections::HashMap;
use ts_rs::TS;

use serde::Serialize;

use crate::desk::{Desk, DeskError, Result};
use crate::engine::report::{normalize_edit, ReportEdits, SectionEdits};
use crate::engine::TurnContext;
use crate::export::pdf::PhotoFile;
use crate::export::StoredReport;
use crate::store::{DeliveryState, Session};

/// What a finalize produced.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Finalized {
    pub revision: u32,
    pub created_at: String,
    /// The report (and its photos) went to the portal's outbox.
    pub queued: bool,
    pub turn_id: String,
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

/// The words the transcript shows for a finalize from the preview.
fn finalize_input(language: &str, edited: bool) -> &'static str {
    match (language, edited) {
        ("es", false) => "Finalizar el informe",
        ("es", true) => "Finalizar el informe (editado)",
        ("ru", false) => "Оформить отчёт",
        ("ru", true) => "Оформить отчёт (с правками)",
        (_, false) => "Finalize the report",
        (_, true) => "Finalize the report (edited)",
    }
}

impl Desk {
    /// Finalizes the session's report as a new revision, with `edits`
    /// applied (and kept for later revisions), and queues it for the portal
    /// with its photos. Refused, with the reason, while the diagnosis has no
    /// finding: nothing is recorded then.
    pub async fn finalize_report(&self, session_id: &str, edits: ReportEdits) -> Result<Finalized> {
        let engine = self.engine();
        let edited = !edits.is_empty();
        let ro = self.ro_payload(session_id).await?;
        let decided = self
            .store()
            .turn_with(session_id, |session, state, stored| {
                let (photos, portal_photos) = crate::desk::turn_photos(&stored, &[]);
                let ctx = TurnContext {
                    id_prefix: format!("{session_id}:"),
                    complaint: Some(session.complaint.clone()),
                    photos,
                };
                let outcome = engine.finalize(&state, &ctx, edits);
                let Some((revision, _)) = outcome.report else {
                    return Err(outcome.reply.text);
                };
                let input = finalize_input(&outcome.state.language, edited);
                // A report always finalizes the session (turn_record).
                let mut turn = crate::desk::turn_record(input, &outcome, Vec::new());
                turn.outbox = crate::store::outbox_items::for_turn(
                    &engine.catalog,
                    session,
                    &state,
                    &outcome.state,
                    Some(revision),
                    &portal_photos,
                    &ro,
                );
                Ok((turn, revision))
            })
            .await?;
        let (recorded, revision) = decided.map_err(|why| DeskError::Invalid {
            field: "session_id",
            message: format!("the report cannot be finalized yet: {why}"),
        })?;
        let queued = !recorded.outbox_ids.is_empty();
        if queued {
            self.outbox_changed();
        }
        Ok(Finalized {
            revision,
            created_at: recorded.turn.created_at.clone(),
            queued,
            turn_id: recorded.turn.id.clone(),
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
                    "session {session_id} has no final report yet: finish the diagnosis and ask for the report"
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

    /// The revision as a PDF.
    pub async fn report_pdf(
        &self,
        session_id: &str,
        revision: Option<u32>,
    ) -> Result<(Session, StoredReport, Vec<u8>)> {
        let (session, report) = self.report_revision(session_id, revision).await?;
        let photos = self.report_photos(session_id).await?;
        let (s, r) = (session.clone(), report.clone());
        let pdf =
            tokio::task::spawn_blocking(move || crate::export::pdf::report_pdf(&s, &r, &photos))
                .await
                .map_err(|e| DeskError::Join(e.to_string()))?
                .map_err(|e| DeskError::Invalid {
                    field: "report",
                    message: e.to_string(),
                })?;
        Ok((session, report, pdf))
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
