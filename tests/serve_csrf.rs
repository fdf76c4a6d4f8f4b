//! `servicedesk serve` answers only its own UI (issue 17): every command,
//! tried the ways a page on another origin can (a no-cors `text/plain` POST,
//! a foreign `Origin`, `Sec-Fetch-Site: cross-site`, no CSRF token), is
//! refused and changes nothing; the served page carries the per-launch
//! CSRF token; no page may frame it; no command takes a path on the server.

use crate::common;

use std::path::Path;

use common::Server;
use serde_json::{json, Value};

const CSRF: &str = "csrf-test-token-5b0e";

fn start(data_dir: &Path, ui_dir: &Path, csrf: Option<&str>) -> Server {
    let env: Vec<(&str, &str)> = csrf
        .map(|t| ("SERVICEDESK_CSRF_TOKEN", t))
        .into_iter()
        .collect();
    common::serve(data_dir, ui_dir, &[], &env)
}

/// A POST with the given headers; (status, body).
async fn post(
    c: &reqwest::Client,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Value) {
    let mut r = c.post(url).body(body.to_owned());
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    let r = r.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// What an attack is called, its headers, and the status it must get.
type Attack<'a> = (&'a str, Vec<(&'a str, &'a str)>, u16);

const GOOD: [(&str, &str); 2] = [("content-type", "application/json"), ("x-csrf-token", CSRF)];

/// What the attacks would change if they got through.
async fn snapshot(c: &reqwest::Client, base: &str) -> Value {
    let mut out = serde_json::Map::new();
    for cmd in [
        "session_list",
        "portal_settings",
        "knowledge_sources",
        "billing_rules",
        "ro_settings",
    ] {
        let (status, v) = post(c, &format!("{base}/api/{cmd}"), &GOOD, "{}").await;
        assert_eq!(status, 200, "{cmd}: {v}");
        out.insert(cmd.into(), v);
    }
    Value::Object(out)
}

#[tokio::test]
async fn cross_origin_plain_text_and_tokenless_calls_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ui = dir.path().join("ui");
    std::fs::create_dir_all(&ui).unwrap();
    std::fs::write(
        ui.join("index.html"),
        "<!doctype html><html><head><title>t</title></head><body><div id=\"root\"></div></body></html>",
    )
    .unwrap();
    let server = start(dir.path(), &ui, Some(CSRF));
    let base = server.base.clone();
    let own_origin = base.clone();
    let c = reqwest::Client::new();

    let (status, s) = post(
        &c,
        &format!("{base}/api/session_new"),
        &GOOD,
        r#"{"complaint":"Generator surges under load"}"#,
    )
    .await;
    assert_eq!(status, 200, "{s}");
    let session = s["id"].as_str().unwrap().to_owned();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "private").unwrap();
    let before = snapshot(&c, &base).await;

    // A payload per command that would change something if it got through.
    let payload = |cmd: &str| -> Value {
        match cmd {
            "session_new" => json!({ "complaint": "planted by a web page" }),
            "session_delete" => json!({ "session_id": session, "purge": true }),
            "chat_turn" => json!({ "session_id": session, "text": "the panel fuse is blown" }),
            "artifact_add" => json!({ "session_id": session, "path": secret }),
            "portal_settings" => json!({ "url": "https://evil.example" }),
            "ro_settings" => json!({ "tax_rate": "99", "rate_customer": "0" }),
            "ro_line_authorize" => json!({ "session_id": session, "authorization": {
                "line_id": "x", "decision": "approved", "by": "a web page", "method": "phone" } }),
            "ro_line_save" => json!({ "session_id": session, "line": {
                "complaint": "planted", "pay_type": "internal",
                "parts": [{"description": "x", "qty": "1", "unit_price": "999.00"}] } }),
            "reports_export_start" => {
                json!({ "from": "2026-01-01", "to": "2026-12-31", "out_dir": dir.path().join("planted") })
            }
            _ => json!({ "session_id": session }),
        }
    };
    let evil = "http://evil.example";
    let attacks: [Attack; 6] = [
        // The no-cors form of fetch / a form post: text/plain, foreign Origin.
        (
            "no-cors text/plain from another origin",
            vec![("content-type", "text/plain"), ("origin", evil)],
            403,
        ),
        (
            "another origin even with JSON and the token",
            vec![
                ("content-type", "application/json"),
                ("x-csrf-token", CSRF),
                ("origin", evil),
            ],
            403,
        ),
        (
            "a cross-site fetch without Origin",
            vec![
                ("content-type", "application/json"),
                ("x-csrf-token", CSRF),
                ("sec-fetch-site", "cross-site"),
            ],
            403,
        ),
        (
            "no CSRF token",
            vec![
                ("content-type", "application/json"),
                ("origin", &own_origin),
            ],
            403,
        ),
        (
            "a wrong CSRF token",
            vec![
                ("content-type", "application/json"),
                ("x-csrf-token", "guess"),
            ],
            403,
        ),
        (
            "text/plain from the own origin with the token",
            vec![
                ("content-type", "text/plain"),
                ("x-csrf-token", CSRF),
                ("origin", &own_origin),
            ],
            415,
        ),
    ];
    for cmd in servicedesk::api::COMMANDS {
        let body = payload(cmd).to_string();
        for (what, headers, want) in &attacks {
            let (status, err) = post(&c, &format!("{base}/api/{cmd}"), headers, &body).await;
            assert_eq!(status, *want, "{cmd}, {what}: {err}");
            assert!(
                matches!(
                    err["code"].as_str(),
                    Some("forbidden" | "unsupported_media_type")
                ),
                "{cmd}, {what}: {err}"
            );
        }
    }
    let after = snapshot(&c, &base).await;
    assert_eq!(before, after, "a refused request changed something");
    assert!(!dir.path().join("planted").exists());

    // The same request from the page itself goes through (the control).
    let own = [
        ("content-type", "application/json; charset=utf-8"),
        ("x-csrf-token", CSRF),
        ("origin", own_origin.as_str()),
        ("sec-fetch-site", "same-origin"),
    ];
    let (status, v) = post(
        &c,
        &format!("{base}/api/session_new"),
        &own,
        &payload("session_new").to_string(),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let (_, list) = post(&c, &format!("{base}/api/session_list"), &GOOD, "{}").await;
    assert_eq!(list["sessions"].as_array().unwrap().len(), 2);

    // Server-side paths are refused even with every check passed.
    for cmd in ["artifact_add", "reports_export_start"] {
        let (status, err) = post(
            &c,
            &format!("{base}/api/{cmd}"),
            &own,
            &payload(cmd).to_string(),
        )
        .await;
        assert_eq!(status, 403, "{cmd}: {err}");
        assert_eq!(err["code"], "server_path_refused", "{cmd}: {err}");
    }
    assert!(!dir.path().join("planted").exists());
    let (_, arts) = post(
        &c,
        &format!("{base}/api/artifact_list"),
        &GOOD,
        &json!({ "session_id": session }).to_string(),
    )
    .await;
    assert_eq!(arts["artifacts"], json!([]), "no server file was read");
    // An export without out_dir is still allowed (it is a download).
    let (status, job) = post(
        &c,
        &format!("{base}/api/reports_export_start"),
        &own,
        r#"{"from":"2026-01-01","to":"2026-12-31"}"#,
    )
    .await;
    assert_eq!(status, 200, "{job}");
}

#[tokio::test]
async fn the_page_carries_a_per_launch_token_and_cannot_be_framed() {
    let dir = tempfile::tempdir().unwrap();
    let ui = dir.path().join("ui");
    std::fs::create_dir_all(&ui).unwrap();
    std::fs::write(
        ui.join("index.html"),
        "<!doctype html><html><head><title>t</title></head><body></body></html>",
    )
    .unwrap();
    let c = reqwest::Client::new();
    let mut tokens = Vec::new();
    for _ in 0..2 {
        let server = start(dir.path(), &ui, None);
        let base = &server.base;
        for path in ["/", "/index.html", "/sessions/123"] {
            let r = c.get(format!("{base}{path}")).send().await.unwrap();
            assert_eq!(r.status(), 200, "{path}");
            assert_eq!(
                r.headers()["content-security-policy"],
                "frame-ancestors 'none'"
            );
            assert_eq!(r.headers()["x-frame-options"], "DENY");
            let page = r.text().await.unwrap();
            let token = page
                .split(r#"<meta name="servicedesk-csrf" content=""#)
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_else(|| panic!("{path}: no CSRF meta in {page}"))
                .to_owned();
            assert!(token.len() >= 32, "{token}");
            tokens.push(token);
        }
        // A script on this machine may ask for it; a page elsewhere may not.
        let r: Value = c
            .get(format!("{base}/api/csrf"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(r["csrf_token"], tokens[tokens.len() - 1]);
        let r = c
            .get(format!("{base}/api/csrf"))
            .header("origin", "http://evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        // The token the page holds works; api answers are not frameable either.
        let tok = tokens[tokens.len() - 1].clone();
        let r = c
            .post(format!("{base}/api/session_list"))
            .header("content-type", "application/json")
            .header("x-csrf-token", &tok)
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["x-frame-options"], "DENY");
    }
    assert_eq!(tokens[0], tokens[2], "one token per launch");
    assert_ne!(tokens[0], tokens[3], "a new token each launch");
}
