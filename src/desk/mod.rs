//! `Desk`: the one façade every front end (CLI, HTTP, Tauri) calls. It owns
//! the data dir: the SQLite database and the artifact store beside it.

mod billing;
pub mod billing_eval;
mod eval;
mod knowledge_store;
mod photos;
pub mod pricing;
pub mod repair_order;
pub mod shop;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use ts_rs::TS;

use serde::Serialize;

use crate::artifacts::{
    inspect, sha256_hex, ArtifactError, BlobStatus, BlobStore, ThumbnailKind, MAX_FILE_BYTES,
};
use crate::conversation::{self, Fetched, Need, Retrieved};
use crate::engine::catalog::{Catalog, CatalogError};
use crate::engine::report::PhotoRef;
use crate::engine::view::{session_view, SessionView};
use crate::engine::{Engine, SessionState, TurnContext, TurnOutcome};
use crate::knowledge;
use crate::store::outbox_items::PhotoItem;
use crate::store::{
    Artifact, NewArtifact, NewSession, NewTurn, RecordedTurn, Session, SessionFilter,
    SessionHeader, Store, StoreError, SweepReport, Turn,
};

pub const DATA_DIR_ENV: &str = "SERVICEDESK_DATA_DIR";
/// A directory of procedure files to use instead of the built-in catalog.
pub const PROCEDURES_DIR_ENV: &str = "SERVICEDESK_PROCEDURES_DIR";
const DB_FILE: &str = "servicedesk.db";
/// Orphan blobs, stale pins and temp files younger than this are left alone
/// by the sweep (an add or a purge may still be on its way).
pub const SWEEP_GRACE: Duration = Duration::from_secs(60 * 60);
/// How often a long-running front end sweeps the artifact store.
pub const SWEEP_EVERY: Duration = Duration::from_secs(6 * 60 * 60);
/// Longest complaint a session takes (characters).
pub const MAX_COMPLAINT_CHARS: usize = 4000;
/// Longest customer, technician or make/model (characters).
pub const MAX_NAME_CHARS: usize = 200;
/// Longest plate (characters).
pub const MAX_PLATE_CHARS: usize = 20;
/// Longest photo caption (characters).
pub const MAX_CAPTION_CHARS: usize = 1000;
/// The memory image decodes (inspection, thumbnails) may hold at once,
/// process-wide, in MB: a decoded photo can take hundreds of MB whatever its
/// file size, so each decode waits for as much of this budget as its
/// pixels will take (many small photos at once, one large one alone).
pub const DECODE_BUDGET_MB: u32 = 256;

/// A permit to decode one file's image, sized by the pixels its header
/// declares; waits while the budget is spent.
async fn decode_permit(bytes: &[u8]) -> tokio::sync::SemaphorePermit<'static> {
    static BUDGET: tokio::sync::Semaphore =
        tokio::sync::Semaphore::const_new(DECODE_BUDGET_MB as usize);
    let mb = crate::artifacts::decoded_bytes_estimate(bytes)
        .map_or(1, |b| b.div_ceil(1024 * 1024))
        .clamp(1, u64::from(DECODE_BUDGET_MB)) as u32;
    BUDGET
        .acquire_many(mb)
        .await
        .expect("the decode budget is never closed")
}

#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("cannot use data dir {path}: {source}")]
    DataDir {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open the database {path}: {source}")]
    OpenDatabase {
        path: String,
        #[source]
        source: StoreError,
    },
    #[error("the database {path} is empty (0 bytes) but photos are stored beside it in {blobs}; restore the database from a backup (or move the empty file away to start over with an empty one)")]
    EmptyDatabase { path: String, blobs: String },
    #[error("background task failed: {0}")]
    Join(String),
    #[error("procedure catalog: {0}")]
    Catalog(#[from] CatalogError),
}

pub type Result<T, E = DeskError> = std::result::Result<T, E>;

/// Where data lives when nothing else is said: `$SERVICEDESK_DATA_DIR`, else
/// the OS's per-user app-data dir (`%APPDATA%\RVServiceDesk\ServiceDesk\data`,
/// `~/Library/Application Support/com.RVServiceDesk.ServiceDesk`,
/// `~/.local/share/servicedesk`).
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    directories::ProjectDirs::from("com", "RVServiceDesk", "ServiceDesk")
        .map(|p| p.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("servicedesk-data"))
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct SessionDetail {
    pub session: Session,
    pub turns: Vec<Turn>,
    pub artifacts: Vec<Artifact>,
    pub state: SessionState,
    /// Changes to the header since the session was opened, oldest first.
    pub edits: Vec<crate::store::SessionEdit>,
    /// The unit's other visits (same VIN or plate), newest first.
    pub earlier_visits: Vec<Session>,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct VerifyResult {
    pub artifact_id: String,
    pub session_id: String,
    pub sha256: String,
    pub file_name: String,
    pub status: BlobStatus,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct VerifyReport {
    pub checked: usize,
    pub ok: usize,
    pub results: Vec<VerifyResult>,
}

#[derive(Debug)]
struct Inner {
    data_dir: PathBuf,
    store: Store,
    blobs: BlobStore,
    engine: Engine,
    /// Signalled after a commit that queued portal items: wakes the sync worker.
    outbox_wake: Arc<tokio::sync::Notify>,
}

#[derive(Debug, Clone)]
pub struct Desk {
    inner: Arc<Inner>,
}

impl Desk {
    /// Open (creating if needed) the data dir and migrate its database.
    pub async fn open(data_dir: impl AsRef<Path>) -> Result<Desk> {
        let data_dir = data_dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&data_dir).map_err(|source| DeskError::DataDir {
            path: data_dir.display().to_string(),
            source,
        })?;
        let db_path = data_dir.join(DB_FILE);
        // An empty database file next to stored photos is damage, not a
        // first run: refuse it instead of creating an empty store over it.
        let empty_db = std::fs::metadata(&db_path).is_ok_and(|m| m.is_file() && m.len() == 0);
        if empty_db && has_blobs(&data_dir.join("artifacts").join("sha256")) {
            return Err(DeskError::EmptyDatabase {
                path: db_path.display().to_string(),
                blobs: data_dir.join("artifacts").display().to_string(),
            });
        }
        let store = Store::open(&db_path)
            .await
            .map_err(|source| DeskError::OpenDatabase {
                path: db_path.display().to_string(),
                source,
            })?;
        let blobs = BlobStore::open(data_dir.join("artifacts"))?;
        let catalog = match std::env::var_os(PROCEDURES_DIR_ENV) {
            Some(dir) => Arc::new(Catalog::from_dir(Path::new(&dir))?),
            None => Catalog::embedded_shared()?,
        };
        // First run (or new shipped documents / procedures): ingest the
        // default knowledge set. One SELECT when nothing changed.
        knowledge::ensure_default_set(store.pool(), &catalog)
            .await
            .map_err(StoreError::from)?;
        // No billing demo data here: a real store starts empty of it
        // (`billing seed-demo` loads it on request).
        Ok(Desk {
            inner: Arc::new(Inner {
                data_dir,
                store,
                blobs,
                engine: Engine::new(catalog),
                outbox_wake: Arc::new(tokio::sync::Notify::new()),
            }),
        })
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn blobs(&self) -> &BlobStore {
        &self.inner.blobs
    }

    /// The sync worker waits on this; front ends that queue outbox items
    /// outside a turn call [`Desk::outbox_changed`] after their commit.
    pub fn outbox_wake(&self) -> Arc<tokio::sync::Notify> {
        self.inner.outbox_wake.clone()
    }

    pub fn outbox_changed(&self) {
        self.inner.outbox_wake.notify_one();
    }

    pub async fn close(&self) {
        self.inner.store.close().await;
    }

    pub async fn new_session(&self, mut new: NewSession) -> Result<Session> {
        let mut header = SessionHeader {
            complaint: std::mem::take(&mut new.complaint),
            customer: new.customer.take(),
            customer_phone: new.customer_phone.take(),
            customer_email: new.customer_email.take(),
            technician: new.technician.take(),
            unit: std::mem::take(&mut new.unit),
        };
        check_header(&mut header)?;
        if let Some(lang) = &new.language {
            if !crate::engine::lexicon::is_language_tag(lang) {
                return Err(invalid(
                    "language",
                    format!("{lang:?} is not a language code like \"en\", \"es\" or \"ru\""),
                ));
            }
        }
        let new = NewSession {
            complaint: header.complaint,
            customer: header.customer,
            customer_phone: header.customer_phone,
            customer_email: header.customer_email,
            technician: header.technician,
            language: new.language,
            unit: header.unit,
        };
        Ok(self.store().create_session(&new).await?)
    }

    /// Corrects a session's header (customer, contact, unit, complaint):
    /// checked like a new session's, and every changed field recorded
    /// with `edited_by` and the old value.
    pub async fn update_session(
        &self,
        id: &str,
        mut header: SessionHeader,
        edited_by: Option<&str>,
    ) -> Result<Session> {
        check_header(&mut header)?;
        Ok(self.store().update_session(id, &header, edited_by).await?)
    }

    pub async fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>> {
        Ok(self.store().sessions(filter).await?)
    }

    /// Per session: whether a report can be written, and the portal state
    /// of its newest report (`Store::session_stages`).
    pub async fn session_stages(
        &self,
        sessions: &[Session],
    ) -> Result<std::collections::HashMap<String, (bool, crate::store::DeliveryState)>> {
        let ids: Vec<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
        Ok(self.store().session_stages(&ids).await?)
    }

    /// The schema version and how many sessions and artifacts are stored.
    pub async fn store_summary(&self) -> Result<(i64, usize, usize)> {
        let (sessions, artifacts) = self.store().counts().await?;
        Ok((self.store().schema_version().await?, sessions, artifacts))
    }

    pub async fn session(&self, id: &str) -> Result<Session> {
        Ok(self.store().session(id).await?)
    }

    /// A session's artifacts (an unknown session is an error, not an empty list).
    pub async fn session_artifacts(&self, id: &str) -> Result<Vec<Artifact>> {
        self.store().session(id).await?;
        Ok(self.store().artifacts(Some(id)).await?)
    }

    pub async fn session_detail(&self, id: &str) -> Result<SessionDetail> {
        let session = self.store().session(id).await?;
        let turns = self.store().turns(id).await?;
        let artifacts = self.store().artifacts(Some(id)).await?;
        let (_, state) = self.store().latest_state(id).await?;
        let edits = self.store().session_edits(id).await?;
        let earlier_visits = self.store().unit_visits(&session).await?;
        Ok(SessionDetail {
            session,
            turns,
            artifacts,
            state,
            edits,
            earlier_visits,
        })
    }

    /// Delete a session. One with photos is refused unless `purge`; then its
    /// artifacts go too, and blobs no other session uses are removed.
    pub async fn delete_session(&self, id: &str, purge: bool) -> Result<usize> {
        Ok(self.store().delete_session(id, purge, self.blobs()).await?)
    }

    /// Remove orphans a crash or a failed add left: unreferenced blobs, stale
    /// pins and temp files older than `grace` (`Store::sweep_blobs`).
    pub async fn sweep_artifacts(&self, grace: Duration) -> Result<SweepReport> {
        Ok(self.store().sweep_blobs(self.blobs(), grace).await?)
    }

    /// Long-running front ends (the desktop app, `serve`) sweep the artifact
    /// store now and then every [`SWEEP_EVERY`], with [`SWEEP_GRACE`].
    pub fn start_sweeper(&self) {
        let desk = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SWEEP_EVERY);
            loop {
                every.tick().await;
                match desk.sweep_artifacts(SWEEP_GRACE).await {
                    Ok(r) if r.blobs_removed + r.temp_files_removed > 0 || r.pins_dropped > 0 => {
                        tracing::info!(
                            "artifact sweep: {} orphan blob(s), {} temp file(s), {} stale pin(s) removed",
                            r.blobs_removed,
                            r.temp_files_removed,
                            r.pins_dropped
                        )
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!("artifact sweep: {e}"),
                }
            }
        });
    }

    /// Inspect a file and make its blob (and thumbnail) durable: the first half
    /// of attaching it. The row is written by the caller's transaction, which
    /// also drops the pin taken here: the blobs are pinned (committed) before
    /// their files are checked or written, so a concurrent purge or sweep
    /// never removes a blob this add relies on.
    pub async fn prepare_artifact(
        &self,
        file_name: String,
        bytes: Vec<u8>,
        caption: Option<String>,
    ) -> Result<NewArtifact> {
        let caption = photos::check_caption(caption)?;
        // Inspection decodes the image: at most a few at a time (memory).
        let permit = decode_permit(&bytes).await;
        let (info, file_name, bytes, sha256, thumb_sha256) =
            tokio::task::spawn_blocking(move || -> Result<_> {
                let info = inspect(&file_name, &bytes)?;
                let sha = sha256_hex(&bytes);
                let thumb_sha = info.thumbnail.as_deref().map(sha256_hex);
                Ok((info, file_name, bytes, sha, thumb_sha))
            })
            .await
            .map_err(|e| DeskError::Join(e.to_string()))??;
        drop(permit);
        let mut pinned = vec![sha256.as_str()];
        pinned.extend(thumb_sha256.as_deref());
        let pin = self.store().pin_blobs(&pinned).await?;
        let blobs = self.blobs().clone();
        let thumb = info.thumbnail;
        let size_bytes = bytes.len() as i64;
        let put = tokio::task::spawn_blocking(move || -> Result<()> {
            blobs.put(&bytes)?;
            if let Some(t) = thumb.as_deref() {
                blobs.put(t)?;
            }
            Ok(())
        })
        .await
        .map_err(|e| DeskError::Join(e.to_string()))
        .and_then(|r| r);
        if let Err(e) = put {
            let _ = self.store().unpin_blobs(&pin).await;
            return Err(e);
        }
        Ok(NewArtifact {
            sha256,
            file_name,
            mime: info.mime.to_owned(),
            kind: info.kind,
            size_bytes,
            caption,
            taken_at: info.taken_at,
            width: info.width.map(i64::from),
            height: info.height.map(i64::from),
            thumb_sha256,
            thumbnail: info.thumbnail_kind,
            condition: None,
            derived_from: None,
            pin: Some(pin),
        })
    }

    /// Attach file content (file picker, drag and drop, paste) to a session.
    pub async fn add_artifact_bytes(
        &self,
        session_id: &str,
        file_name: &str,
        bytes: Vec<u8>,
        caption: Option<String>,
    ) -> Result<Artifact> {
        // Fail on an unknown session before writing any blob.
        self.store().session(session_id).await?;
        let new = self
            .prepare_artifact(file_name.to_owned(), bytes, caption)
            .await?;
        match self.store().add_artifact(session_id, &new).await {
            Ok(a) => Ok(a),
            Err(e) => {
                if let Some(pin) = &new.pin {
                    let _ = self.store().unpin_blobs(pin).await;
                }
                Err(e.into())
            }
        }
    }

    /// Attach a file on this machine to a session; the file is copied in.
    pub async fn add_artifact_path(
        &self,
        session_id: &str,
        path: &Path,
        caption: Option<String>,
    ) -> Result<Artifact> {
        // A file on this machine: read off the async workers (a slow disk
        // or a network share must not stall other requests).
        let owned = path.to_path_buf();
        let (name, bytes) = tokio::task::spawn_blocking(move || read_file_for_artifact(&owned))
            .await
            .map_err(|e| DeskError::Join(e.to_string()))??;
        self.add_artifact_bytes(session_id, &name, bytes, caption)
            .await
    }

    /// Check every blob (of one session, or of all) against its hash.
    pub async fn verify_artifacts(&self, session_id: Option<&str>) -> Result<VerifyReport> {
        if let Some(id) = session_id {
            self.store().session(id).await?;
        }
        let artifacts = self.store().artifacts(session_id).await?;
        let blobs = self.blobs().clone();
        tokio::task::spawn_blocking(move || -> Result<VerifyReport> {
            let mut results = Vec::with_capacity(artifacts.len());
            for a in artifacts {
                let status = blobs.status(&a.sha256)?;
                results.push(VerifyResult {
                    artifact_id: a.id,
                    session_id: a.session_id,
                    sha256: a.sha256,
                    file_name: a.file_name,
                    status,
                });
            }
            Ok(VerifyReport {
                checked: results.len(),
                ok: results
                    .iter()
                    .filter(|r| r.status == BlobStatus::Ok)
                    .count(),
                results,
            })
        })
        .await
        .map_err(|e| DeskError::Join(e.to_string()))?
    }

    /// An artifact's verified bytes (or its thumbnail's): (mime, bytes).
    pub async fn artifact_content(&self, id: &str, thumbnail: bool) -> Result<(String, Vec<u8>)> {
        let a = self.store().artifact(id).await?;
        let (sha, mime) = if thumbnail {
            let sha = a
                .thumb_sha256
                .clone()
                .ok_or_else(|| invalid("thumbnail", format!("{} has no thumbnail", a.file_name)))?;
            // Generated thumbnails are JPEG; the placeholder is a PNG.
            let mime = match a.thumbnail {
                ThumbnailKind::Placeholder => "image/png",
                _ => "image/jpeg",
            };
            (sha, mime.to_owned())
        } else {
            (a.sha256.clone(), a.mime.clone())
        };
        let blobs = self.blobs().clone();
        let bytes = tokio::task::spawn_blocking(move || blobs.get(&sha))
            .await
            .map_err(|e| DeskError::Join(e.to_string()))??;
        Ok((mime, bytes))
    }

    pub async fn record_turn(&self, session_id: &str, turn: &NewTurn) -> Result<RecordedTurn> {
        let recorded = self.store().record_turn(session_id, turn).await?;
        if !recorded.outbox_ids.is_empty() {
            self.outbox_changed();
        }
        Ok(recorded)
    }

    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// Long-running front ends (the desktop app, `serve`) build the
    /// procedures' pattern automata on a background thread, so the
    /// technician's first message does not pay for it; `then` runs on that
    /// thread once they are built. Short CLI commands do not call this: most
    /// never chat.
    pub fn warm_engine(&self, then: impl FnOnce() + Send + 'static) {
        let catalog = self.inner.engine.catalog.clone();
        let spawned = std::thread::Builder::new()
            .name("warm-catalog".into())
            .spawn(move || {
                if let Err(e) = catalog.build_all() {
                    tracing::error!("procedure catalog: {e}");
                }
                then();
            });
        if let Err(e) = spawned {
            tracing::warn!("could not start the catalog warm-up thread: {e}");
        }
    }

    /// One conversation turn: the engine runs on the latest state, and the
    /// turn, its state, facts, attached files and any report revision commit
    /// in one transaction. Attachments are made durable first.
    pub async fn chat_turn(
        &self,
        session_id: &str,
        text: &str,
        attachments: Vec<(String, Vec<u8>)>,
    ) -> Result<(RecordedTurn, TurnOutcome)> {
        if !attachments.is_empty() {
            // Refuse an unknown session, or a finalized one (it is read-only),
            // before any blob is written.
            let session = self.store().session(session_id).await?;
            if session.status == crate::store::SessionStatus::Finalized {
                return Err(invalid(
                    "attachments",
                    format!(
                        "repair order {} is finalized, so no photo can be added; reopen it first",
                        session.ro_number
                    ),
                ));
            }
        }
        let mut prepared = Vec::with_capacity(attachments.len());
        for (name, bytes) in attachments {
            prepared.push(self.prepare_artifact(name, bytes, None).await?);
        }
        let engine = self.engine();
        // The repair order a report revision carries, as it stands when the
        // turn begins (reading it takes no write lock).
        let ro = self.ro_payload(session_id).await?;
        // The conversation may ask for retrievals (a knowledge search, a
        // billing tool, then the evidence it names): each is read outside the
        // write transaction, and the turn runs again on the state as it is then.
        let mut retrieved: Vec<Retrieved> = Vec::new();
        for _ in 0..5 {
            let decided = self
                .store()
                .turn_with(session_id, |session, state, stored| {
                    if session.status == crate::store::SessionStatus::Finalized {
                        return Ok(read_only_turn(session, state, text));
                    }
                    let (photos, _) = turn_photos(&stored, &prepared);
                    let ctx = TurnContext {
                        id_prefix: format!("{session_id}:"),
                        complaint: Some(session.complaint.clone()),
                        photos,
                    };
                    let mut outcome = conversation::turn(engine, &state, &ctx, text, &retrieved)?;
                    // A report asked for in the chat is a draft for review: it
                    // takes the next revision's number but uses none up, and
                    // only a finalize (reports::finalize_report) sends it.
                    if let Some((_, body)) = &mut outcome.report {
                        outcome.state.report_revision = state.report_revision;
                        *body = repair_order::with_answers(
                            &engine.catalog,
                            session,
                            &outcome.state,
                            &ro,
                            body,
                        );
                        outcome.reply.text = body.clone();
                    }
                    let mut record = turn_record(text, &outcome, prepared.clone());
                    // The portal's items commit with the turn (store::outbox_items).
                    record.outbox = crate::store::outbox_items::for_turn(
                        &engine.catalog,
                        session,
                        &state,
                        &outcome.state,
                        None,
                        &[],
                        &ro,
                    );
                    Ok((record, outcome))
                })
                .await?;
            match decided {
                Ok(done) => {
                    if !done.0.outbox_ids.is_empty() {
                        self.outbox_changed();
                    }
                    return Ok(done);
                }
                Err(need) => {
                    let fetched = self.retrieve(&need).await?;
                    retrieved.push(Retrieved { need, fetched });
                }
            }
        }
        Err(invalid(
            "text",
            "the turn kept asking for new knowledge retrievals; nothing was recorded",
        ))
    }

    /// Fetches what the conversation asked for: the knowledge store, or a
    /// billing tool.
    async fn retrieve(&self, need: &Need) -> Result<Fetched> {
        let pool = self.store().pool();
        Ok(match need {
            Need::Search(q) => Fetched::Retrieval(
                knowledge::index::retrieve(pool, q)
                    .await
                    .map_err(|e| invalid("knowledge", e.to_string()))?,
            ),
            Need::Lookup { source_id, heading } => Fetched::Hits(
                knowledge::index::lookup(pool, source_id, heading)
                    .await
                    .map_err(StoreError::from)?
                    .into_iter()
                    .collect(),
            ),
            Need::Evidence { source_id, version } => Fetched::Hits(
                knowledge::index::lookup_version(pool, source_id, *version)
                    .await
                    .map_err(StoreError::from)?
                    .into_iter()
                    .collect(),
            ),
            Need::Billing(call) => Fetched::Billing(self.billing_tool(call).await),
        })
    }

    /// Where a session stands, for the app's context panel: the engine's view
    /// of its latest state, the newest turn (for the last transition) and the
    /// report revisions.
    pub async fn session_context(
        &self,
        session_id: &str,
    ) -> Result<(
        SessionView,
        Option<crate::store::Turn>,
        Vec<(u32, crate::store::Timestamp)>,
    )> {
        // An unknown session has no snapshot: `latest_state` says NotFound.
        let (_, state) = self.store().latest_state(session_id).await?;
        let last = self.store().last_turn(session_id).await?;
        let reports = self
            .store()
            .reports(session_id)
            .await?
            .into_iter()
            .map(|(revision, _, _, created_at)| (revision, created_at))
            .collect();
        Ok((session_view(&self.engine().catalog, &state), last, reports))
    }

    /// Report revisions of a session, oldest first: (revision, language, body, created_at).
    pub async fn reports(
        &self,
        session_id: &str,
    ) -> Result<Vec<(u32, String, String, crate::store::Timestamp)>> {
        self.store().session(session_id).await?;
        Ok(self.store().reports(session_id).await?)
    }
}

/// A turn's photos as its report cites them and as the portal receives
/// them: the session's stored files, then those attached with this turn.
pub(crate) fn turn_photos(
    stored: &[Artifact],
    attached: &[NewArtifact],
) -> (Vec<PhotoRef>, Vec<PhotoItem>) {
    // The report's entry carries what the technician said of each stored
    // photo (caption, condition, the photo a markup copies); the portal's
    // item keeps the caption alone, as its contract has it.
    let cited = stored
        .iter()
        .map(|a| photos::report_caption(a, stored))
        .chain(attached.iter().map(|a| a.caption.clone()));
    stored
        .iter()
        .map(NewArtifact::from)
        .chain(attached.iter().cloned())
        .zip(cited)
        .map(|(a, report_caption)| {
            let cited = PhotoRef {
                file_name: a.file_name.clone(),
                caption: report_caption,
                taken_at: a.taken_at,
            };
            let sent = PhotoItem {
                sha256: a.sha256,
                file_name: a.file_name,
                mime: a.mime,
                caption: a.caption,
                size_bytes: a.size_bytes,
            };
            (cited, sent)
        })
        .unzip()
}

/// What a chat turn commits: the turn, its state, facts, supersessions,
/// attached files, any report revision and the session's new status.
pub(crate) fn turn_record(
    text: &str,
    outcome: &TurnOutcome,
    artifacts: Vec<NewArtifact>,
) -> NewTurn {
    let mut turn = NewTurn::new(text, outcome.reply.text.clone(), outcome.state.clone());
    turn.intent = Some(outcome.intent.to_string());
    turn.transition = Some(outcome.transition.name().to_string());
    turn.trace = serde_json::json!({
        "fired": outcome.transition.name(),
        "why": outcome.trace,
        "reply_kind": outcome.reply.kind.as_str(),
        "step_id": outcome.reply.step_id,
        "citations": outcome.reply.citations,
    });
    turn.new_facts = outcome.new_facts.clone();
    turn.superseded = outcome.superseded.clone();
    turn.artifacts = artifacts;
    turn.report = outcome
        .report
        .clone()
        .map(|(rev, body)| (rev, outcome.state.language.clone(), body));
    // A report is the session's draft unless the caller finalizes it.
    turn.report_draft = true;
    if outcome.state.escalation.escalated {
        turn.status = Some(crate::store::SessionStatus::Escalated);
    }
    turn
}

/// A chat message on a finalized repair order: recorded with a reply that
/// says so and how to reopen it, and nothing else changes (the state, its
/// facts and labor, the report, the portal's items stay as they were).
fn read_only_turn(
    session: &crate::store::Session,
    state: SessionState,
    text: &str,
) -> (NewTurn, TurnOutcome) {
    let (ro, rev, id) = (&session.ro_number, state.report_revision, &session.id);
    let reply = match state.language.as_str() {
        "es" => format!(
            "La orden de reparación {ro} está finalizada (informe, revisión {rev}): esta nota no cambió nada. \
             Para cambiarla, reábrala con el botón Reabrir del informe o `servicedesk report reopen {id}`."
        ),
        "ru" => format!(
            "Заказ-наряд {ro} оформлен (отчёт, редакция {rev}): эта запись ничего не изменила. \
             Чтобы внести изменения, откройте его снова кнопкой «Открыть снова» в отчёте или `servicedesk report reopen {id}`."
        ),
        _ => format!(
            "Repair order {ro} is finalized (report revision {rev}): this note changed nothing. \
             To change it, reopen it with the Reopen button in the report or `servicedesk report reopen {id}`."
        ),
    };
    let outcome = TurnOutcome {
        state,
        intent: "FINALIZED",
        transition: crate::engine::registry::TransitionId::T10Boundary,
        reply: crate::engine::Reply {
            kind: crate::engine::ReplyKind::Refusal,
            text: reply,
            step_id: None,
            citations: Vec::new(),
        },
        trace: vec![format!(
            "T10_boundary: repair order {ro} is finalized (report revision {rev}): the note was recorded and changed nothing; read-only until reopened"
        )],
        new_facts: Vec::new(),
        superseded: Vec::new(),
        report: None,
        bases: Vec::new(),
    };
    let record = turn_record(text, &outcome, Vec::new());
    (record, outcome)
}

/// Is there any blob file under `<artifacts>/sha256/ab/`?
fn has_blobs(sha_dir: &Path) -> bool {
    std::fs::read_dir(sha_dir).is_ok_and(|dirs| {
        dirs.flatten()
            .any(|d| std::fs::read_dir(d.path()).is_ok_and(|mut files| files.next().is_some()))
    })
}

/// A session header's fields checked and normalized before anything is
/// written: required complaint, lengths, a real VIN (17 characters, its
/// check digit), a phone and e-mail that can be used, a plausible model
/// year, nothing negative.
fn check_header(h: &mut SessionHeader) -> Result<()> {
    h.complaint = h.complaint.trim().to_owned();
    if h.complaint.is_empty() {
        return Err(invalid(
            "complaint",
            "is required: what does the customer say is wrong?",
        ));
    }
    let fields = [
        ("complaint", Some(&h.complaint), MAX_COMPLAINT_CHARS),
        ("customer", h.customer.as_ref(), MAX_NAME_CHARS),
        (
            "customer_phone",
            h.customer_phone.as_ref(),
            MAX_PLATE_CHARS * 2,
        ),
        ("customer_email", h.customer_email.as_ref(), MAX_NAME_CHARS),
        ("technician", h.technician.as_ref(), MAX_NAME_CHARS),
        ("make_model", h.unit.make_model.as_ref(), MAX_NAME_CHARS),
        ("plate", h.unit.plate.as_ref(), MAX_PLATE_CHARS),
    ];
    for (field, value, limit) in fields {
        let Some(value) = value else { continue };
        let chars = value.chars().count();
        if chars > limit {
            return Err(invalid(
                field,
                format!("is {chars} characters long; at most {limit}"),
            ));
        }
    }
    if let Some(vin) = &h.unit.vin {
        match crate::vin::check(vin, crate::store::this_year()) {
            Ok(v) => {
                // The year the VIN encodes, where the writer gave none.
                h.unit.model_year = h.unit.model_year.or(v.model_year);
                h.unit.vin = Some(v.text);
            }
            Err(e) => return Err(invalid("vin", format!("{vin:?} {e}"))),
        }
    }
    if let Some(phone) = &h.customer_phone {
        let digits = phone.chars().filter(char::is_ascii_digit).count();
        let allowed = phone
            .chars()
            .all(|c| c.is_ascii_digit() || " +-().x".contains(c));
        if !allowed || digits < 7 {
            return Err(invalid(
                "customer_phone",
                format!("{phone:?} is not a phone number (digits, spaces, + - ( ) . and x for an extension)"),
            ));
        }
    }
    if let Some(email) = &h.customer_email {
        let ok = email.split_once('@').is_some_and(|(user, domain)| {
            !user.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !email.contains(char::is_whitespace)
        });
        if !ok {
            return Err(invalid(
                "customer_email",
                format!("{email:?} is not an e-mail address like name@example.com"),
            ));
        }
    }
    let latest = crate::store::this_year() + 2;
    if let Some(year) = h.unit.model_year {
        if !(1950..=latest).contains(&year) {
            return Err(invalid(
                "model_year",
                format!("{year} is not a model year between 1950 and {latest}"),
            ));
        }
    }
    if h.unit.odometer.is_some_and(|o| o < 0) {
        return Err(invalid("odometer", "must not be negative"));
    }
    if h.unit
        .engine_hours
        .is_some_and(|hours| !hours.is_finite() || hours < 0.0)
    {
        return Err(invalid("engine_hours", "must be a non-negative number"));
    }
    Ok(())
}

fn invalid(field: &'static str, message: impl Into<String>) -> DeskError {
    DeskError::Invalid {
        field,
        message: message.into(),
    }
}

/// Read a file to attach, turning every way it can fail into a clear error
/// before anything is stored: only a regular file, at most
/// [`MAX_FILE_BYTES`] (`crate::files`).
fn read_file_for_artifact(path: &Path) -> Result<(String, Vec<u8>), ArtifactError> {
    use crate::files::{read_limited, ReadError};
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let bytes = read_limited(path, MAX_FILE_BYTES, "a photo or file").map_err(|e| match e {
        ReadError::TooLarge {
            size,
            limit,
            limit_mib,
            ..
        } => ArtifactError::TooLarge {
            name: name.clone().unwrap_or_else(|| path.display().to_string()),
            size,
            limit,
            limit_mib,
        },
        ReadError::Unreadable { path, reason } => ArtifactError::UnreadablePath { path, reason },
        ReadError::NotRegular { path, kind } => ArtifactError::UnreadablePath {
            path,
            reason: format!("it is {kind}, not a regular file"),
        },
    })?;
    let name = name.ok_or_else(|| ArtifactError::UnreadablePath {
        path: path.display().to_string(),
        reason: "it does not name a file".into(),
    })?;
    Ok((name, bytes))
}
