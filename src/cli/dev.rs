//! `servicedesk dev write-turns|seed-scale` (hidden): tools for testing the
//! store itself. The crash test SIGKILLs `write-turns` at random moments; the
//! size and memory checks fill a store with `seed-scale`.

use std::io::Write;
use std::process::ExitCode;

use clap::Subcommand;

use servicedesk::api::AppError;
use servicedesk::desk::Desk;
use servicedesk::engine::state::{Fact, FactKind, FactSource};
use servicedesk::store::{NewSession, NewTurn};

#[derive(Subcommand)]
pub(super) enum DevCmd {
    /// Commit turns in a loop, printing `committed SEQ` after each commit
    WriteTurns {
        session_id: String,
        #[arg(long, default_value_t = 1000)]
        count: u32,
        /// Attach a small document to turns 1, 1+N, 1+2N, ... (0: never)
        #[arg(long, default_value_t = 5)]
        artifact_every: u32,
    },
    /// Fill the store like a busy shop's year: sessions with a short
    /// diagnosis each and small real photos (for size and memory checks)
    SeedScale {
        #[arg(long, default_value_t = 1000)]
        sessions: u32,
        #[arg(long, default_value_t = 10)]
        photos_per_session: u32,
    },
}

/// Sessions through the real paths (a chat diagnosis to its finalized report, photos
/// stored and thumbnailed), each photo a distinct small PNG.
async fn seed_scale(desk: &Desk, sessions: u32, photos: u32) -> Result<ExitCode, AppError> {
    let script = [
        "the roof fan does not work",
        "the panel fuse is blown",
        "write the report",
    ];
    for i in 0..sessions {
        let session = desk
            .new_session(NewSession {
                complaint: format!("roof fan does not run (unit {i})"),
                customer: Some(format!("Customer {i}")),
                technician: Some(["Alex", "Marta", "Ivan"][i as usize % 3].to_string()),
                language: None,
                unit: servicedesk::store::Unit {
                    plate: Some(format!("SEED{i:05}")),
                    make_model: Some("Winnebago View 24D".into()),
                    ..Default::default()
                },
                ..Default::default()
            })
            .await?;
        for p in 0..photos {
            let n = i * photos + p;
            let mut img = image::RgbImage::new(48, 36);
            for (x, y, px) in img.enumerate_pixels_mut() {
                *px = image::Rgb([
                    (n % 251) as u8,
                    (x * 5) as u8,
                    ((n / 251) as u8) ^ (y as u8),
                ]);
            }
            let mut bytes = std::io::Cursor::new(Vec::new());
            image::DynamicImage::ImageRgb8(img)
                .write_to(&mut bytes, image::ImageFormat::Png)
                .map_err(|e| AppError::new("internal", e.to_string()))?;
            desk.add_artifact_bytes(
                &session.id,
                &format!("photo-{p}.png"),
                bytes.into_inner(),
                Some(format!("photo {p} of unit {i}")),
            )
            .await?;
        }
        for line in script {
            desk.chat_turn(&session.id, line, vec![]).await?;
        }
        desk.finalize_report(&session.id, Default::default())
            .await?;
        if (i + 1) % 100 == 0 {
            eprintln!("seeded {} of {sessions} sessions", i + 1);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Commit turns one after another, each with a new state snapshot and fact,
/// some with a file; after each commit print its sequence number. The crash
/// test kills this at random moments and checks that every printed turn is
/// there after a restart.
pub(super) async fn run(desk: &Desk, cmd: DevCmd) -> Result<ExitCode, AppError> {
    let (session_id, count, artifact_every) = match cmd {
        DevCmd::WriteTurns {
            session_id,
            count,
            artifact_every,
        } => (session_id, count, artifact_every),
        DevCmd::SeedScale {
            sessions,
            photos_per_session,
        } => return seed_scale(desk, sessions, photos_per_session).await,
    };
    let (last_seq, mut state) = desk
        .latest_state(&session_id)
        .await
        .map_err(AppError::from)?;
    let mut out = std::io::stdout().lock();
    for i in 0..count {
        let fact = Fact {
            id: uuid::Uuid::new_v4().to_string(),
            kind: FactKind::Measurement,
            source: FactSource::Technician,
            subject: "board_supply".into(),
            value: Some(format!("12.{}", i % 10)),
            unit: Some("VDC".into()),
            text: format!("12.{} V at the board", i % 10),
            turn_seq: 0,
            superseded_by: None,
            name: None,
            outcome: None,
        };
        state.completed_steps.push(format!("step-{i}"));
        state.facts.push(fact.clone());
        let mut turn = NewTurn::new(format!("measured 12.{} V", i % 10), "Noted.", state.clone());
        turn.intent = Some("main_diagnostic".into());
        turn.transition = Some("D1_step_answer".into());
        turn.trace = serde_json::json!({ "writer": "dev write-turns", "i": i });
        turn.new_facts.push(fact);
        // Keyed on the turn's own number so the pattern holds across restarts.
        let seq = last_seq + 1 + i64::from(i);
        if artifact_every > 0 && (seq - 1) % i64::from(artifact_every) == 0 {
            let body = format!("%PDF-1.4\n% crash-test document for turn {seq} of {session_id}\n");
            turn.artifacts.push(
                desk.prepare_artifact(format!("doc-{seq}.pdf"), body.into_bytes(), None)
                    .await?,
            );
        }
        let recorded = desk.record_turn(&session_id, &turn).await?;
        let _ = writeln!(out, "committed {}", recorded.turn.seq);
        let _ = out.flush();
    }
    Ok(ExitCode::SUCCESS)
}
