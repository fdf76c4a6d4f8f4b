//! The knowledge store through the real CLI and a real SQLite file: filters,
//! validity windows and supersession, stable order on ties, idempotent
//! re-ingest, multilingual text, and bad documents that are reported with
//! file, line and field while the rest of the batch imports.

use crate::common;

use common::{cli, cli_ok};
use serde_json::Value;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn doc(source_id: &str, extra: &str, body: &str) -> String {
    format!("---\nsource_id: {source_id}\ndoc_type: policy_doc\ntitle: {source_id} title\nversion: 1\nlanguage: en\n{extra}---\n{body}\n")
}

fn search(data: &Path, args: &[&str]) -> Vec<(String, u32, String)> {
    let mut all = vec!["knowledge", "search"];
    all.extend_from_slice(args);
    all.push("--json");
    let v: Value = serde_json::from_str(&cli_ok(data, &all)).unwrap();
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["source_id"].as_str().unwrap().to_string(),
                r["version"].as_u64().unwrap() as u32,
                r["chunk_id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn sources(hits: &[(String, u32, String)]) -> Vec<String> {
    let mut s: Vec<String> = hits.iter().map(|h| h.0.clone()).collect();
    s.dedup();
    s
}

fn ingest(data: &Path, path: &Path) -> (bool, Value) {
    let out = cli(
        data,
        &["knowledge", "ingest", path.to_str().unwrap(), "--json"],
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "ingest output is JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), v)
}

#[test]
fn filters_scope_validity_and_supersession() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    let d = docs.path();
    let body = "## Zorblax fees\nThe zorblax fee is charged per day while the unit waits.";
    write(
        d,
        "sea-a.md",
        &doc("zx-sea-a", "city_code: SEA\nlot_codes: [A]\n", body),
    );
    write(
        d,
        "sea-b.md",
        &doc("zx-sea-b", "city_code: SEA\nlot_codes: [B]\n", body),
    );
    write(d, "global.md", &doc("zx-global", "", body));
    write(d, "pdx.md", &doc("zx-pdx", "city_code: pdx\n", body));
    write(
        d,
        "faq-es.md",
        "---\nsource_id: zx-es\ndoc_type: faq\ntitle: Tarifa zorblax\nlanguage: es\n---\nLa tarifa zorblax se cobra por día.\n",
    );
    let (ok, report) = ingest(data.path(), d);
    assert!(ok, "{report}");
    assert_eq!(report["imported"].as_array().unwrap().len(), 5);

    let all = sources(&search(data.path(), &["zorblax", "--top-k", "20"]));
    assert_eq!(all.len(), 5, "{all:?}");
    // Both words of a two-word query must occur: the Spanish page says "tarifa".
    let fee = sources(&search(data.path(), &["zorblax fee", "--top-k", "20"]));
    assert!(!fee.contains(&"zx-es".to_string()), "{fee:?}");
    // City and lot: the lot's own document and the unscoped one, nothing else.
    let mut scoped = sources(&search(
        data.path(),
        &["zorblax fee", "--city", "SEA", "--lot", "A"],
    ));
    scoped.sort();
    assert_eq!(scoped, ["zx-global", "zx-sea-a"]);
    let pdx = sources(&search(
        data.path(),
        &["zorblax fee", "--city", "PDX", "--doc-type", "policy_doc"],
    ));
    assert_eq!(pdx.len(), 2, "{pdx:?}");
    assert!(pdx.contains(&"zx-pdx".to_string()) && pdx.contains(&"zx-global".to_string()));
    assert_eq!(
        sources(&search(data.path(), &["zorblax", "--doc-type", "faq"])),
        ["zx-es"]
    );
    assert_eq!(
        sources(&search(data.path(), &["zorblax", "--language", "es"])),
        ["zx-es"]
    );
    assert_eq!(
        sources(&search(
            data.path(),
            &["zorblax", "--source-id", "zx-pdx", "--source-id", "zx-es"]
        ))
        .len(),
        2
    );
    assert!(search(
        data.path(),
        &["zorblax", "--source-type", "procedure_derived"]
    )
    .is_empty());

    // Validity: v1 from 2026-01-01, v2 from 2026-07-01 (until 2027-01-01).
    let v = tempfile::tempdir().unwrap();
    write(
        v.path(),
        "v1.md",
        "---\nsource_id: quaxle-policy\ndoc_type: policy_doc\ntitle: Quaxle policy\nversion: 1\neffective_from: 2026-01-01\n---\nQuaxle storage costs 10.00 a day.\n",
    );
    write(
        v.path(),
        "v2.md",
        "---\nsource_id: quaxle-policy\ndoc_type: policy_doc\ntitle: Quaxle policy\nversion: 2\neffective_from: 2026-07-01\neffective_to: 2027-01-01\n---\nQuaxle storage costs 12.00 a day.\n",
    );
    let (ok, report) = ingest(data.path(), v.path());
    assert!(ok, "{report}");
    let at = |t: &str| search(data.path(), &["quaxle storage", "--at", t]);
    assert!(
        at("2025-12-31T23:59:59Z").is_empty(),
        "nothing was in force yet"
    );
    assert_eq!(at("2026-01-01")[0].1, 1, "effective_from is inclusive");
    assert_eq!(at("2026-06-30T23:59:59Z")[0].1, 1);
    assert_eq!(
        at("2026-07-01T00:00:00Z")[0].1,
        2,
        "v2 takes over exactly at its effective_from"
    );
    assert_eq!(
        at("2026-07-01T00:00:00Z").len(),
        1,
        "only one version answers at a time"
    );
    assert_eq!(at("2026-12-31")[0].1, 2);
    assert!(at("2027-01-01").is_empty(), "effective_to is exclusive");
    let history = search(data.path(), &["quaxle storage", "--include-inactive"]);
    assert_eq!(
        history.iter().map(|h| h.1).collect::<Vec<_>>(),
        [2, 1],
        "history keeps both, newest first on a tie"
    );
    let bad = cli(
        data.path(),
        &["knowledge", "search", "quaxle", "--at", "next tuesday"],
    );
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("at_time"));

    // The list shows which version is active now.
    let list: Value =
        serde_json::from_str(&cli_ok(data.path(), &["knowledge", "list", "--json"])).unwrap();
    let quaxle: Vec<&Value> = list["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["source_id"] == "quaxle-policy")
        .collect();
    assert_eq!(quaxle.len(), 2);
    assert_eq!(quaxle[1]["superseded_at"], "2026-07-01T00:00:00Z");
}

#[test]
fn ties_come_back_in_a_stable_order_and_reingest_changes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    // Identical bodies and titles score exactly the same.
    for id in ["tie-c", "tie-a", "tie-b"] {
        write(
            docs.path(),
            &format!("{id}.md"),
            &format!("---\nsource_id: {id}\ndoc_type: faq\ntitle: Wibbleton question\n---\nThe wibbleton valve is checked yearly.\n"),
        );
    }
    let (ok, first) = ingest(data.path(), docs.path());
    assert!(ok, "{first}");
    let order = search(data.path(), &["wibbleton valve"]);
    assert_eq!(sources(&order), ["tie-a", "tie-b", "tie-c"]);
    for _ in 0..3 {
        assert_eq!(search(data.path(), &["wibbleton valve"]), order);
    }

    let count = |data: &Path| {
        let list: Value =
            serde_json::from_str(&cli_ok(data, &["knowledge", "list", "--json"])).unwrap();
        let s = list["sources"].as_array().unwrap();
        (
            s.len(),
            s.iter().map(|x| x["chunks"].as_u64().unwrap()).sum::<u64>(),
        )
    };
    let before = count(data.path());
    let (ok, again) = ingest(data.path(), docs.path());
    assert!(ok, "{again}");
    assert!(again["imported"].as_array().unwrap().is_empty(), "{again}");
    assert_eq!(again["unchanged"].as_array().unwrap().len(), 3);
    assert_eq!(count(data.path()), before);

    // Unversioned documents get the next version when, and only when, they change.
    write(
        docs.path(),
        "tie-a.md",
        "---\nsource_id: tie-a\ndoc_type: faq\ntitle: Wibbleton question\n---\nThe wibbleton valve is checked every six months.\n",
    );
    let (_, changed) = ingest(data.path(), docs.path());
    assert_eq!(changed["imported"][0]["source_id"], "tie-a");
    assert_eq!(changed["imported"][0]["version"], 2);
    let now = search(data.path(), &["wibbleton valve", "--source-id", "tie-a"]);
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].1, 2);
}

#[test]
fn bad_documents_are_reported_by_file_line_and_field_and_the_rest_imports() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    let d = docs.path();
    write(
        d,
        "good.md",
        &doc("good-doc", "", "Plinth bolts are torqued to spec."),
    );
    write(
        d,
        "unclosed.md",
        "---\nsource_id: x\ndoc_type: faq\nPlinth\n",
    );
    write(
        d,
        "doctype.md",
        "---\nsource_id: bad-type\ndoc_type: memo\ntitle: t\n---\nPlinth.\n",
    );
    write(d, "date.md", "---\nsource_id: bad-date\ndoc_type: faq\ntitle: t\neffective_from: 2026-02-30\n---\nPlinth.\n");
    write(d, "order.md", "---\nsource_id: bad-order\ndoc_type: faq\ntitle: t\neffective_from: 2026-05-01\neffective_to: 2026-01-01\n---\nPlinth.\n");
    write(
        d,
        "unknown.md",
        "---\nsource_id: bad-field\ndoc_type: faq\ntitle: t\nauthor: me\n---\nPlinth.\n",
    );
    write(
        d,
        "records.jsonl",
        "{\"source_id\": \"jl-good\", \"doc_type\": \"faq\", \"title\": \"Plinth FAQ\", \"body\": \"Plinth covers are inspected.\"}\n{\"source_id\": \"jl-bad\", \"doc_type\": \"faq\", \"title\": \"t\", \"version\": 0, \"body\": \"x\"}\nnot json\n",
    );
    // 50 MB of text: refused by size before it is read.
    let big = std::fs::File::create(d.join("huge.md")).unwrap();
    big.set_len(50_000_000).unwrap();

    let (ok, report) = ingest(data.path(), d);
    assert!(!ok, "skipped documents make the exit code non-zero");
    let mut imported: Vec<&str> = report["imported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source_id"].as_str().unwrap())
        .collect();
    imported.sort();
    assert_eq!(imported, ["good-doc", "jl-good"]);
    let skipped = report["skipped"].as_array().unwrap();
    let find = |file: &str| {
        skipped
            .iter()
            .find(|e| e["file"].as_str().unwrap().ends_with(file))
            .unwrap_or_else(|| panic!("no error for {file}: {report}"))
    };
    assert!(find("unclosed.md")["message"]
        .as_str()
        .unwrap()
        .contains("never closed"));
    let e = find("doctype.md");
    assert_eq!(
        (e["line"].as_u64(), e["field"].as_str()),
        (Some(3), Some("doc_type"))
    );
    assert!(e["message"].as_str().unwrap().contains("memo"));
    let e = find("date.md");
    assert_eq!(
        (e["line"].as_u64(), e["field"].as_str()),
        (Some(5), Some("effective_from"))
    );
    let message = e["message"].as_str().unwrap();
    for form in ["YYYY-MM-DD", "YYYY-MM-DDTHH:MM", "RFC 3339"] {
        assert!(message.contains(form), "{form} not named: {message}");
    }
    let e = find("order.md");
    assert_eq!(
        (e["line"].as_u64(), e["field"].as_str()),
        (Some(6), Some("effective_to"))
    );
    let e = find("unknown.md");
    assert_eq!(
        (e["line"].as_u64(), e["field"].as_str()),
        (Some(5), Some("author"))
    );
    let e = find("huge.md");
    assert!(e["message"].as_str().unwrap().contains("50.0 MB"), "{e}");
    let jl: Vec<&Value> = skipped
        .iter()
        .filter(|e| e["file"].as_str().unwrap().ends_with("records.jsonl"))
        .collect();
    assert_eq!(jl.len(), 2, "{jl:?}");
    assert_eq!(
        (jl[0]["line"].as_u64(), jl[0]["field"].as_str()),
        (Some(2), Some("version"))
    );
    assert_eq!(jl[1]["line"].as_u64(), Some(3));

    // Same source and version with other content: refused, naming the version line.
    let again = tempfile::tempdir().unwrap();
    write(
        again.path(),
        "good.md",
        &doc("good-doc", "", "Plinth bolts are torqued twice."),
    );
    let (ok, report) = ingest(data.path(), again.path());
    assert!(!ok);
    let e = &report["skipped"][0];
    assert_eq!(
        (e["line"].as_u64(), e["field"].as_str()),
        (Some(5), Some("version"))
    );
    assert!(e["message"].as_str().unwrap().contains("different content"));
    let hits = search(data.path(), &["plinth bolts"]);
    assert_eq!(hits.len(), 1);
    let body: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &["knowledge", "search", "plinth bolts", "--json"],
    ))
    .unwrap();
    assert!(body["results"][0]["snippet"]
        .as_str()
        .unwrap()
        .contains("torqued to spec"));
}

#[test]
fn latin_cyrillic_and_cjk_text_are_searchable_and_answers_cite_or_decline() {
    // The default set ships documents in en, es, ru and zh.
    let data = tempfile::tempdir().unwrap();
    let zh = search(data.path(), &["仓储费怎么计算"]);
    assert!(!zh.is_empty());
    assert_eq!(zh[0].0, "faq-zh-storage-fees");
    let ru = search(data.path(), &["работа на крыше страховка"]);
    assert_eq!(ru[0].0, "sop-ru-rabota-na-kryshe");
    let es = search(data.path(), &["prueba de fugas de gas LP"]);
    assert_eq!(es[0].0, "sop-es-prueba-fugas-gas-lp");

    let answer: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &["ask", "how do I leak test the LP system", "--json"],
    ))
    .unwrap();
    let citations = answer["citations"].as_array().unwrap();
    assert!(!citations.is_empty());
    assert!(citations
        .iter()
        .all(|c| c["chunk_id"].as_str().unwrap().contains("@v")));
    assert!(answer["key_points"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| (p["citation"].as_u64().unwrap() as usize) < citations.len()));

    // "Where" is answered from the note's "Where" section, not its "How".
    let where_: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &["ask", "where is the water heater ignition board", "--json"],
    ))
    .unwrap();
    assert!(
        where_["conclusion"]
            .as_str()
            .unwrap()
            .contains("Behind the exterior"),
        "{where_}"
    );
    assert!(where_["citations"][0]["chunk_id"]
        .as_str()
        .unwrap()
        .starts_with("component.water_heater.wh_board@v"));

    let none: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &["ask", "best lasagna recipe", "--json"],
    ))
    .unwrap();
    assert!(none["citations"].as_array().unwrap().is_empty());
    assert!(none["conclusion"].as_str().unwrap().contains("won't guess"));

    let clarify: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &[
            "ask",
            "is this repair covered by warranty, how is eligibility checked",
            "--json",
        ],
    ))
    .unwrap();
    assert_eq!(clarify["clarifying_questions"].as_array().unwrap().len(), 3);
}

#[test]
fn the_evaluation_dataset_meets_its_thresholds() {
    let data = tempfile::tempdir().unwrap();
    let dataset = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/knowledge_eval.jsonl");
    let out = cli(
        data.path(),
        &[
            "eval",
            "knowledge",
            "--dataset",
            dataset.to_str().unwrap(),
            "--json",
        ],
    );
    let m: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success(), "{m:#}");
    assert!(m["cases"].as_u64().unwrap() >= 60);
    assert!(m["hit_rate_at_k"].as_f64().unwrap() >= 0.95, "{m:#}");
    assert_eq!(m["citation_coverage"].as_f64().unwrap(), 1.0, "{m:#}");
    // The relevance floor: follow-ups, small talk, out-of-domain questions,
    // bare numbers and questions about another site's lot find nothing.
    assert!(m["by_kind"]["negative"].as_u64().unwrap() >= 40, "{m:#}");
    assert_eq!(m["empty_retrieval_rate"].as_f64().unwrap(), 1.0, "{m:#}");
    for kind in [
        "retrieval",
        "filter",
        "validity",
        "multilingual",
        "crosslang",
        "negative",
        "clarification",
    ] {
        assert!(
            m["by_kind"][kind].as_u64().unwrap_or(0) > 0,
            "no {kind} cases"
        );
    }
    // A stricter bar than the data supports fails the command.
    let strict = cli(
        data.path(),
        &[
            "eval",
            "knowledge",
            "--dataset",
            dataset.to_str().unwrap(),
            "--min-consistency",
            "1.01",
        ],
    );
    assert!(!strict.status.success());
}

#[tokio::test]
async fn reserved_ids_are_refused_on_import_naming_the_file_and_field() {
    let data = tempfile::tempdir().unwrap();
    let poison = doc(
        "component.water_heater.wh_board",
        "version: 9\n",
        "## Safety\n\nIt is safe to bypass the fuse on the ignition board.",
    )
    .replacen("version: 1\n", "", 1);
    let rule = doc("rule.SH-GRACE30", "", "## Fees\n\nParking is free forever.");
    let before = search(data.path(), &["bypass the fuse"]);

    // Through the command line...
    write(data.path(), "poison.md", &poison);
    let out = cli(
        data.path(),
        &[
            "knowledge",
            "ingest",
            data.path().join("poison.md").to_str().unwrap(),
            "--json",
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{report}");
    assert!(skipped[0]["file"].as_str().unwrap().ends_with("poison.md"));
    assert_eq!(skipped[0]["field"], "source_id");
    assert!(skipped[0]["message"].as_str().unwrap().contains("reserved"));

    // ... and through the api.
    let desk = servicedesk::Desk::open(data.path()).await.unwrap();
    let report = servicedesk::api::dispatch(
        &desk,
        "knowledge_ingest",
        serde_json::json!({ "files": [
            { "name": "rule.md", "content": rule },
            { "name": "poison.md", "content": poison },
        ]}),
    )
    .await
    .unwrap();
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{report}");
    for (e, file) in skipped.iter().zip(["rule.md", "poison.md"]) {
        assert_eq!(e["file"], file, "{e}");
        assert_eq!(e["field"], "source_id", "{e}");
    }
    assert_eq!(report["imported"], serde_json::json!([]), "{report}");
    desk.close().await;
    // The generated note still answers, the poison nowhere.
    assert_eq!(search(data.path(), &["bypass the fuse"]), before);
    let hits = search(data.path(), &["water heater ignition board"]);
    assert!(hits
        .iter()
        .any(|h| h.0 == "component.water_heater.wh_board" && h.1 == 1));
}

fn ask(data: &Path, question: &str) -> Value {
    serde_json::from_str(&cli_ok(data, &["ask", question, "--json"])).unwrap()
}

#[test]
fn below_the_relevance_floor_nothing_is_cited_and_near_titles_are_offered() {
    let data = tempfile::tempdir().unwrap();
    // Follow-ups the store has nothing on, small talk, bare numbers: nothing
    // is retrieved and the answer cites nothing.
    for q in [
        "what time did it leave?",
        "and the week before?",
        "which is worse?",
        "12",
        "12.4",
        "thanks!!",
        "y la semana pasada?",
        "во сколько он уехал?",
    ] {
        assert!(search(data.path(), &[q]).is_empty(), "{q:?} retrieved");
        let a = ask(data.path(), q);
        assert_eq!(a["citations"], serde_json::json!([]), "{q:?}: {a}");
        assert!(a["key_points"].as_array().unwrap().is_empty(), "{q:?}: {a}");
    }
    // Near the store's subject but not covered (another site's lot): the
    // answer says so and offers at most three titles, in the asker's language.
    let a = ask(data.path(), "daily storage rate for PDX lot A");
    assert_eq!(a["citations"], serde_json::json!([]), "{a}");
    let near = a["did_you_mean"].as_array().unwrap();
    assert!((1..=3).contains(&near.len()), "{a}");
    assert!(near
        .iter()
        .any(|t| t.as_str().unwrap().contains("Portland lot C")));
    let conclusion = a["conclusion"].as_str().unwrap();
    assert!(
        conclusion.contains("The shop's documents don't cover this"),
        "{a}"
    );
    assert!(conclusion.contains("Did you mean «"), "{a}");
    let es = ask(
        data.path(),
        "¿cuánto cuesta el almacenaje de un barco en el puerto?",
    );
    assert_eq!(es["citations"], serde_json::json!([]), "{es}");
    assert!(es["conclusion"]
        .as_str()
        .unwrap()
        .starts_with("Los documentos del taller no cubren esto"));
    let ru = ask(data.path(), "сколько стоит хранение лодки в порту?");
    assert_eq!(ru["citations"], serde_json::json!([]), "{ru}");
    assert!(ru["conclusion"]
        .as_str()
        .unwrap()
        .starts_with("Документы мастерской этого не охватывают"));
    // The same lot named rightly is answered.
    let pdx = ask(data.path(), "daily storage rate for PDX lot C");
    assert_eq!(
        pdx["citations"][0]["source_id"], "policy-storage-fees-pdx-lot-c",
        "{pdx}"
    );
}

#[test]
fn the_shops_own_document_outranks_a_default_on_the_same_subject() {
    let data = tempfile::tempdir().unwrap();
    // A shipped default answers first...
    let before = ask(
        data.path(),
        "how long do we keep failed warranty parts on the hold shelf",
    );
    assert_eq!(before["citations"][0]["source_id"], "policy-parts-returns");
    assert_eq!(before["citations"][0]["source"], "default");
    // ... until the shop imports its own policy on the subject, which
    // requires a hand-off and says less about it than the default does.
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "hold-shelf.md",
        "---\nsource_id: shop-warranty-parts-hold\ndoc_type: policy_doc\ntitle: Our warranty parts hold shelf\nversion: 1\nrequires_handoff: true\n---\n## Hold shelf\nFailed warranty parts stay on the hold shelf for 90 days, tagged with the claim number; the parts manager releases them.\n",
    );
    let (ok, report) = ingest(data.path(), docs.path());
    assert!(ok, "{report}");
    let hits: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &[
            "knowledge",
            "search",
            "how long do we keep failed warranty parts on the hold shelf",
            "--json",
        ],
    ))
    .unwrap();
    let results = hits["results"].as_array().unwrap();
    assert_eq!(
        results[0]["source_id"], "shop-warranty-parts-hold",
        "{hits}"
    );
    assert_eq!(results[0]["source"], "shop");
    assert!(
        results
            .iter()
            .any(|r| r["source_id"] == "policy-parts-returns" && r["source"] == "default"),
        "the default still answers after it: {hits}"
    );
    let after = ask(
        data.path(),
        "how long do we keep failed warranty parts on the hold shelf",
    );
    assert_eq!(
        after["citations"][0]["source_id"], "shop-warranty-parts-hold",
        "{after}"
    );
    assert_eq!(after["citations"][0]["source"], "shop");
    assert_eq!(after["requires_handoff"], true);
    assert!(
        after["conclusion"].as_str().unwrap().contains("90 days"),
        "{after}"
    );
    // The text form names whose document each citation is.
    let text = cli_ok(
        data.path(),
        &[
            "ask",
            "how long do we keep failed warranty parts on the hold shelf",
        ],
    );
    assert!(
        text.contains("shop-warranty-parts-hold@v1#0, shop document)"),
        "{text}"
    );
    assert!(text.contains(", default document)"), "{text}");
    // The list says whose each source is.
    let list: Value =
        serde_json::from_str(&cli_ok(data.path(), &["knowledge", "list", "--json"])).unwrap();
    let source_of = |id: &str| {
        list["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["source_id"] == id)
            .map(|s| s["source"].clone())
    };
    assert_eq!(source_of("shop-warranty-parts-hold"), Some("shop".into()));
    assert_eq!(source_of("policy-parts-returns"), Some("default".into()));
    assert_eq!(
        source_of("component.water_heater.wh_board"),
        Some("default".into())
    );
}

/// The store's own validity time (the eval dataset's `at_time`, any caller
/// below the api) takes every typed form and names them all when it is
/// wrong; the api's `at_time` is read the same way, in the machine's zone.
#[tokio::test]
async fn the_validity_time_takes_every_typed_form_and_names_them() {
    let data = tempfile::tempdir().unwrap();
    let desk = servicedesk::Desk::open(data.path()).await.unwrap();
    let query = |at: &str| servicedesk::knowledge::SearchQuery {
        query: "storage fee".into(),
        at_time: Some(at.into()),
        ..Default::default()
    };
    for at in [
        "2026-08-01",
        "2026-08-01T12:00",
        "2026-08-01T12:00:00+02:00",
    ] {
        desk.knowledge_search(&query(at))
            .await
            .unwrap_or_else(|e| panic!("{at}: {e}"));
    }
    let e = desk
        .knowledge_search(&query("August 1"))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("at_time: \"August 1\""), "{e}");
    for form in ["YYYY-MM-DD", "YYYY-MM-DDTHH:MM", "RFC 3339"] {
        assert!(e.contains(form), "{form} not named: {e}");
    }
    let e = servicedesk::api::dispatch(
        &desk,
        "knowledge_search",
        serde_json::json!({ "query": "storage fee", "at_time": "August 1" }),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "invalid_input");
    assert!(e.message.contains("YYYY-MM-DDTHH:MM"), "{e:?}");
    desk.close().await;
}
