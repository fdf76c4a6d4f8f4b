//! Turns: one technician input and the reply, with the state snapshot, facts,
//! artifacts and outbox items it produced — all committed in one transaction.

use serde_json::Value;

use super::artifacts::{insert_artifact, NewArtifact};
use super::outbox::{enqueue, NewOutboxItem};
use sqlx::pool::PoolConnection;
use sqlx::{Row, Sqlite, SqliteConnection};

use super::artifacts::list_artifacts;
use super::sessions::{decode_state, BEGIN_TURN_READ};
use super::{
    new_id, now, Artifact, Result, Session, SessionStatus, Store, StoreError, Timestamp, Turn,
};
use crate::engine::state::Fact;
use crate::engine::{SessionState, STATE_VERSION};

#[derive(Debug, Clone)]
pub struct NewTurn {
    pub input: String,
    pub reply: String,
    pub intent: Option<String>,
    pub transition: Option<String>,
    pub trace: Value,
    /// The state after this turn.
    pub state: SessionState,
    /// Facts this turn added (they are also in `state`; the table makes them queryable).
    pub new_facts: Vec<Fact>,
    /// (old fact id, new fact id): facts this turn superseded.
    pub superseded: Vec<(String, String)>,
    /// A report revision written by this turn: (revision, language, text).
    pub report: Option<(u32, String, String)>,
    /// The report is the session's draft (replacing any draft before it),
    /// not a final revision; a final one removes the draft.
    pub report_draft: bool,
    /// Files attached with this turn; their blobs are already durable.
    pub artifacts: Vec<NewArtifact>,
    pub outbox: Vec<NewOutboxItem>,
    pub status: Option<SessionStatus>,
}

impl NewTurn {
    pub fn new(input: impl Into<String>, reply: impl Into<String>, state: SessionState) -> Self {
        Self {
            input: input.into(),
            reply: reply.into(),
            intent: None,
            transition: None,
            trace: Value::Object(Default::default()),
            state,
            new_facts: Vec::new(),
            superseded: Vec::new(),
            report: None,
            report_draft: false,
            artifacts: Vec::new(),
            outbox: Vec::new(),
            status: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct RecordedTurn {
    pub turn: Turn,
    pub artifact_ids: Vec<String>,
    pub outbox_ids: Vec<String>,
}

impl Store {
    /// Report revisions of a session, oldest first:
    /// (revision, language, body, created_at).
    pub async fn reports(&self, session_id: &str) -> Result<Vec<(u32, String, String, Timestamp)>> {
        Ok(sqlx::query_as(
            "SELECT revision, language, body, created_at FROM reports
             WHERE session_id = ? ORDER BY revision",
        )
        .bind(session_id)
        .fetch_all(self.pool())
        .await?)
    }

    /// Commit a turn and everything it changes, or nothing at all.
    ///
    /// One round trip when the turn has no files or outbox items:
    /// `BEGIN IMMEDIATE`, the write batch and `COMMIT` travel together.
    pub async fn record_turn(&self, session_id: &str, new: &NewTurn) -> Result<RecordedTurn> {
        let mut write = OpenWrite {
            conn: self.pool().acquire().await?,
            open: true,
        };
        let recorded = write_turn(
            &mut write.conn,
            session_id,
            new,
            "BEGIN IMMEDIATE",
            "COMMIT",
        )
        .await?;
        write.open = false;
        Ok(recorded)
    }

    /// One conversation turn as one write transaction: read the session, its
    /// newest state and (when it has any) its photos, let `decide` compute the
    /// turn, and commit it. Two turns on one session can never start from the
    /// same state.
    ///
    /// Every message pays for this, so it is two round trips to SQLite, not
    /// four: `BEGIN IMMEDIATE` goes with the read, `COMMIT` with the writes.
    /// That is outside sqlx's transaction type, so [`OpenWrite`] keeps its
    /// guarantee: a turn that fails or is cancelled midway closes its
    /// connection, and SQLite rolls the transaction back.
    ///
    /// `decide` may decline (`Err`): the transaction is rolled back, nothing
    /// is written, and its value is returned for the caller to act on (the
    /// conversation asks for a knowledge retrieval this way, which must not
    /// run while the write lock is held).
    pub async fn turn_with<T, A>(
        &self,
        session_id: &str,
        decide: impl FnOnce(
            &Session,
            SessionState,
            Vec<Artifact>,
        ) -> std::result::Result<(NewTurn, T), A>,
    ) -> Result<std::result::Result<(RecordedTurn, T), A>> {
        let mut write = OpenWrite {
            conn: self.pool().acquire().await?,
            open: true,
        };
        let row = sqlx::query(BEGIN_TURN_READ)
            .bind(session_id)
            .fetch_optional(&mut *write.conn)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "session",
                id: session_id.to_owned(),
            })?;
        let session = Session::from_row(&row);
        let state = decode_state(session_id, row.get("state_version"), row.get("state_json"))?;
        let artifacts = if session.artifact_count > 0 {
            list_artifacts(&mut *write.conn, Some(session_id)).await?
        } else {
            Vec::new()
        };
        let (new, out) = match decide(&session, state, artifacts) {
            Ok(decided) => decided,
            Err(declined) => {
                sqlx::query("ROLLBACK").execute(&mut *write.conn).await?;
                write.open = false;
                return Ok(Err(declined));
            }
        };
        let recorded = write_turn(&mut write.conn, session_id, &new, "", "COMMIT").await?;
        write.open = false;
        Ok(Ok((recorded, out)))
    }

    /// The newest turn of a session, if it has any.
    pub async fn last_turn(&self, session_id: &str) -> Result<Option<Turn>> {
        let row = sqlx::query("SELECT * FROM turns WHERE session_id = ? ORDER BY seq DESC LIMIT 1")
            .bind(session_id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.as_ref().map(Turn::from_row))
    }

    pub async fn turns(&self, session_id: &str) -> Result<Vec<Turn>> {
        let rows = sqlx::query("SELECT * FROM turns WHERE session_id = ? ORDER BY seq")
            .bind(session_id)
            .fetch_all(self.pool())
            .await?;
        Ok(rows.iter().map(Turn::from_row).collect())
    }
}

/// One turn's rows, as one batch of statements (see `write_turn`).
const WRITE_TURN: &str = "INSERT INTO turns (id, session_id, seq, created_at, input, reply, intent, transition, trace)
         SELECT ?1 ->> '$.id', s.id,
                COALESCE((SELECT MAX(t.seq) FROM turns t WHERE t.session_id = s.id), 0) + 1,
                ?1 ->> '$.at', ?1 ->> '$.input', ?1 ->> '$.reply', ?1 ->> '$.intent',
                ?1 ->> '$.transition', ?1 ->> '$.trace'
         FROM sessions s WHERE s.id = ?1 ->> '$.session_id';
         INSERT INTO session_states (session_id, turn_seq, version, state, created_at)
         SELECT session_id, seq, ?1 ->> '$.version', ?2, created_at
         FROM turns WHERE id = ?1 ->> '$.id';
         INSERT INTO facts (id, session_id, turn_id, kind, source, subject, value, unit, text, created_at)
         SELECT f.value ->> 0, t.session_id, t.id, f.value ->> 1, f.value ->> 2, f.value ->> 3,
                f.value ->> 4, f.value ->> 5, f.value ->> 6, t.created_at
         FROM turns t, json_each(?1, '$.facts') AS f
         WHERE t.id = ?1 ->> '$.id' ORDER BY f.key;
         UPDATE facts SET superseded_by = j.value ->> 1
         FROM json_each(?1, '$.superseded') AS j
         WHERE facts.id = j.value ->> 0 AND facts.session_id = ?1 ->> '$.session_id';
         INSERT INTO reports (session_id, revision, turn_id, language, body, created_at)
         SELECT t.session_id, ?1 ->> '$.revision', t.id, ?1 ->> '$.report_language',
                ?1 ->> '$.report_body', t.created_at
         FROM turns t WHERE t.id = ?1 ->> '$.id' AND ?1 ->> '$.revision' IS NOT NULL;
         INSERT INTO report_drafts (session_id, revision, turn_id, language, body, created_at, updated_at)
         SELECT t.session_id, ?1 ->> '$.draft_revision', t.id, ?1 ->> '$.report_language',
                ?1 ->> '$.report_body', t.created_at, t.created_at
         FROM turns t WHERE t.id = ?1 ->> '$.id' AND ?1 ->> '$.draft_revision' IS NOT NULL
         ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision,
                turn_id = excluded.turn_id, language = excluded.language, body = excluded.body,
                updated_at = excluded.updated_at;
         DELETE FROM report_drafts
         WHERE session_id = ?1 ->> '$.session_id' AND ?1 ->> '$.revision' IS NOT NULL;
         UPDATE sessions SET status = ?1 ->> '$.status'
         WHERE id = ?1 ->> '$.session_id' AND ?1 ->> '$.status' IS NOT NULL";

/// The new turn's seq, read last: a batch's statements run in order up to the
/// first row, so a `COMMIT` placed before this has run when the row arrives.
const TURN_SEQ: &str = "SELECT seq FROM turns WHERE id = ?1 ->> '$.id'";

/// The statements of one turn, on an open write transaction.
///
/// The turn, its state snapshot, its facts, the facts it supersedes, its
/// report revision and the session's status go to SQLite as one batch of
/// statements: each call into sqlx is a round trip to the connection's
/// thread, and these rows are written on every message.
///
/// `head` runs first and `tail` after the batch, in the same round trip
/// (`BEGIN IMMEDIATE` and `COMMIT` for a transaction held by [`OpenWrite`]).
/// Artifact rows and outbox items, which few turns have, then come between
/// the batch and `tail`, as statements of their own.
async fn write_turn(
    conn: &mut SqliteConnection,
    session_id: &str,
    new: &NewTurn,
    head: &str,
    tail: &str,
) -> Result<RecordedTurn> {
    let id = new_id();
    let at = now();
    let facts: Vec<Value> = new
        .new_facts
        .iter()
        .map(|f| {
            serde_json::json!([
                f.id,
                enum_str(&f.kind),
                enum_str(&f.source),
                f.subject,
                f.value,
                f.unit,
                f.text
            ])
        })
        .collect();
    let superseded: Vec<Value> = new
        .superseded
        .iter()
        .map(|(old, by)| serde_json::json!([old, by]))
        .collect();
    let (revision, report_language, report_body) = match &new.report {
        Some((r, l, b)) => (Some(*r), Some(l.as_str()), Some(b.as_str())),
        None => (None, None, None),
    };
    let (revision, draft_revision) = if new.report_draft {
        (None, revision)
    } else {
        (revision, None)
    };
    // The statements of the batch read their values from one JSON argument
    // (?1), and the state snapshot, the largest value, comes separately (?2,
    // used only by its own statement, so it is parsed once): sqlx binds a
    // batch's parameters statement by statement, and a statement that uses
    // `?N` without every lower number would not receive it.
    let turn = serde_json::json!({
        "id": id,
        "session_id": session_id,
        "at": at,
        "input": new.input,
        "reply": new.reply,
        "intent": new.intent,
        "transition": new.transition,
        "trace": new.trace.to_string(),
        "version": STATE_VERSION,
        "facts": facts,
        "superseded": superseded,
        "revision": revision,
        "draft_revision": draft_revision,
        "report_language": report_language,
        "report_body": report_body,
        "status": new.status.map(|s| s.as_str()),
    });
    // The next seq is computed inside the insert; no session means no row,
    // and the final SELECT then finds nothing.
    let batch_tail = if new.artifacts.is_empty() && new.outbox.is_empty() {
        tail
    } else {
        ""
    };
    let sql = [head, WRITE_TURN, batch_tail, TURN_SEQ]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(";\n");
    let seq: Option<i64> = sqlx::query_scalar(&sql)
        .bind(turn.to_string())
        .bind(new.state.to_json())
        .fetch_optional(&mut *conn)
        .await?;
    let Some(seq) = seq else {
        return Err(StoreError::NotFound {
            what: "session",
            id: session_id.to_owned(),
        });
    };
    let mut artifact_ids = Vec::with_capacity(new.artifacts.len());
    for artifact in &new.artifacts {
        artifact_ids.push(insert_artifact(conn, session_id, Some(&id), artifact, at).await?);
    }
    let mut outbox_ids = Vec::with_capacity(new.outbox.len());
    for item in &new.outbox {
        if let Some(id) = enqueue(conn, Some(session_id), item).await? {
            outbox_ids.push(id);
        }
    }
    if batch_tail.is_empty() && !tail.is_empty() {
        sqlx::query(tail).execute(&mut *conn).await?;
    }
    Ok(RecordedTurn {
        turn: Turn {
            id,
            session_id: session_id.to_owned(),
            seq,
            created_at: at,
            input: new.input.clone(),
            reply: new.reply.clone(),
            intent: new.intent.clone(),
            transition: new.transition.clone(),
            trace: new.trace.clone(),
        },
        artifact_ids,
        outbox_ids,
    })
}

/// The snake_case name serde gives a unit enum variant.
fn enum_str<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// A write transaction begun with a plain `BEGIN IMMEDIATE` on a pooled
/// connection. Unless the turn clears `open` after its `COMMIT`, dropping it
/// (an error, a cancelled future) closes the connection instead of returning
/// it to the pool, and SQLite rolls the transaction back: nothing half-written
/// stays, and no pooled connection keeps the write lock.
struct OpenWrite {
    conn: PoolConnection<Sqlite>,
    open: bool,
}

impl Drop for OpenWrite {
    fn drop(&mut self) {
        if self.open {
            self.conn.close_on_drop();
        }
    }
}
