//! Bad input in the middle of a diagnosis, through the real `Desk` and
//! SQLite: an empty message, a 100 KB message, binary garbage, only emoji and
//! a language the engine does not speak each get a sensible reply, nothing
//! panics, the turn is stored whole, and the diagnosis is exactly where it
//! was (no fact, step, isolation or language change).

use servicedesk::engine::state::FactSource;
use servicedesk::store::NewSession;
use servicedesk::Desk;

/// What a technician would notice change in the diagnosis.
fn diagnosis(st: &servicedesk::engine::SessionState) -> serde_json::Value {
    serde_json::json!({
        "language": st.language,
        "procedure": st.active_procedure,
        "step": st.active_step,
        "completed": st.completed_steps,
        "facts": st.facts,
        "isolation": st.isolation,
        "labor": st.labor,
        "mode": st.mode,
    })
}

fn garbage(len: usize, seed: u64) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    let bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[tokio::test]
async fn bad_input_mid_diagnosis_changes_nothing_and_gets_a_reply() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let session = desk
        .new_session(NewSession {
            complaint: "Roof vent fan does not run".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let (_, first) = desk
        .chat_turn(&session.id, "roof vent fan doesn't work", Vec::new())
        .await
        .unwrap();
    assert_eq!(first.state.active_procedure.as_deref(), Some("dc_12v"));
    let (_, second) = desk
        .chat_turn(&session.id, "panel fuse is good", Vec::new())
        .await
        .unwrap();
    let baseline = diagnosis(&second.state);
    assert!(!second.state.completed_steps.is_empty());

    let huge = "lorem ipsum dolor sit amet ".repeat(100 * 1024 / 27 + 1);
    assert!(huge.len() >= 100 * 1024);
    // Nothing readable: nothing is learned and nothing is counted as an asking.
    let noise: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("whitespace", " \n\t ".into()),
        ("binary garbage", garbage(4096, 7)),
        ("emoji only", "🙂🔥🚐🙂".into()),
        ("control characters", "\u{0}\u{1}\u{7f}\u{1b}[31m".into()),
    ];
    // Words the engine cannot use: a fallback, then a change of strategy.
    let unclear: Vec<(&str, String)> = vec![
        ("100 KB", huge.clone()),
        (
            "unknown language",
            "Die Heizung funktioniert überhaupt nicht".into(),
        ),
    ];
    let mut last_kind = String::new();
    for (i, (what, input)) in noise.iter().chain(&unclear).enumerate() {
        let (recorded, out) = desk
            .chat_turn(&session.id, input, Vec::new())
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(!out.reply.text.trim().is_empty(), "{what}: empty reply");
        let kind = out.reply.kind.as_str().to_string();
        assert!(
            !(kind == "fallback" && last_kind == "fallback"),
            "{what}: two fallbacks in a row"
        );
        assert!(
            out.reply.text.len() < 4_000,
            "{what}: the reply echoes the input"
        );
        assert_eq!(
            out.state.language, "en",
            "{what}: the session language changed"
        );
        assert!(
            out.new_facts
                .iter()
                .all(|f| f.source == FactSource::Inference),
            "{what}: a fact was read from it: {:?}",
            out.new_facts
        );
        if i < noise.len() {
            assert_eq!(
                diagnosis(&out.state),
                baseline,
                "{what}: the diagnosis changed"
            );
            assert_eq!(
                out.state.asked, second.state.asked,
                "{what}: counted as an asking"
            );
            assert_eq!(kind, "clarification", "{what}");
        }
        last_kind = kind;
        // The technician's words are kept whole even when only the start is read.
        assert_eq!(
            &recorded.turn.input, input,
            "{what}: input not stored whole"
        );
    }
    let inputs = noise.len() + unclear.len();

    // The session is still usable: the next real answer is taken.
    let (_, next) = desk
        .chat_turn(&session.id, "lid switch closes fine", Vec::new())
        .await
        .unwrap();
    assert!(next.state.completed_steps.iter().any(|s| s == "lid_switch"));
    let detail = desk.session_detail(&session.id).await.unwrap();
    assert_eq!(detail.turns.len(), 2 + inputs + 1);
    assert_eq!(detail.turns[2 + noise.len()].input.len(), huge.len());
    desk.close().await;
}
