//! Every write waits its turn (issue 17): knowledge ingests and billing rule
//! imports run while technicians chat, all at once on real SQLite. No
//! "database is locked" (SQLITE_BUSY) reaches a caller, and every imported
//! rule is stored with its explanation (they commit together).

use serde_json::{json, Value};
use servicedesk::api;
use servicedesk::Desk;

async fn call(desk: &Desk, command: &str, payload: Value) -> Result<Value, api::AppError> {
    api::dispatch(desk, command, payload).await
}

fn knowledge_doc(i: usize) -> Value {
    json!({ "files": [{
        "name": format!("contention-{i}.md"),
        "content": format!(
            "---\nsource_id: contention-{i}\ndoc_type: faq\ntitle: Contention note {i}\nversion: 1\nlanguage: en\n---\n\
             ## Awning motor {i}\n\nCheck the awning motor fuse {i} before replacing the motor.\n"
        ),
    }]})
}

fn rule(i: usize) -> Value {
    let rules = json!([{
        "rule_code": format!("CT-{i}"),
        "name": format!("Contention rule {i}"),
        "city_code": "CT",
        "lot_codes": [format!("LOT-{i}")],
        "status": "active",
        "time_zone": "UTC",
        "versions": [{
            "version_no": 1,
            "effective_from": "2026-01-01T00:00",
            "payload": {
                "free_minutes": 0,
                "segments": [{
                    "name": "all day",
                    "window": "00:00-24:00",
                    "type": "periodic",
                    "unit_minutes": 60,
                    "unit_price": "1.00"
                }]
            }
        }]
    }]);
    json!({ "content": rules.to_string(), "name": format!("rules-{i}.json") })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ingests_and_rule_imports_during_chat_never_see_a_locked_database() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    // Three waves: a deferred BEGIN fails in most single waves, not all.
    for wave in 0..3 {
        contend(&desk, wave * 30).await;
    }
}

/// 20 chatting sessions, 15 knowledge ingests and 15 rule imports at once.
async fn contend(desk: &Desk, first: usize) {
    let mut sessions = Vec::new();
    for i in 0..20 {
        let s = call(
            desk,
            "session_new",
            json!({ "complaint": format!("roof fan {i} does not run") }),
        )
        .await
        .unwrap();
        sessions.push(s["id"].as_str().unwrap().to_owned());
    }
    let mut tasks = tokio::task::JoinSet::new();
    for id in sessions {
        let desk = desk.clone();
        tasks.spawn(async move {
            let mut errors = Vec::new();
            for text in [
                "the roof fan does not work",
                "how old can the tires be?",
                "panel fuse is good",
                "12.4 volts at the fan",
            ] {
                let r = call(
                    &desk,
                    "chat_turn",
                    json!({ "session_id": id, "text": text }),
                )
                .await;
                if let Err(e) = r {
                    errors.push(format!("chat_turn {text:?}: {e}"));
                }
            }
            errors
        });
    }
    for i in first..first + 30 {
        let desk = desk.clone();
        tasks.spawn(async move {
            let (cmd, payload) = if i % 2 == 0 {
                ("knowledge_ingest", knowledge_doc(i))
            } else {
                ("billing_rules_import", rule(i))
            };
            match call(&desk, cmd, payload).await {
                Ok(_) => Vec::new(),
                Err(e) => vec![format!("{cmd} {i}: {e}")],
            }
        });
    }
    let mut errors = Vec::new();
    while let Some(done) = tasks.join_next().await {
        errors.extend(done.unwrap());
    }
    assert!(
        errors.is_empty(),
        "{} call(s) failed: {errors:#?}",
        errors.len()
    );

    let sources = call(desk, "knowledge_sources", json!({})).await.unwrap();
    let ids: Vec<&str> = sources["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["source_id"].as_str())
        .collect();
    for i in first..first + 30 {
        let want = if i % 2 == 0 {
            format!("contention-{i}")
        } else {
            format!("rule.CT-{i}")
        };
        assert!(
            ids.contains(&want.as_str()),
            "{want} is missing from the knowledge store"
        );
    }
}
