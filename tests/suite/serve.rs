//! `alisio serve` over a real PostgreSQL archive, through HTTP as a browser would use it: a token
//! made and refused once revoked, 401 without one, 403 for every command that writes, the library
//! of both machines, a session's stored view answered by the window's own code, the team's search
//! and usage, the page with the window's CSP.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;

use super::archive::{claude_session, home};
use super::support::postgres::Postgres;
use super::support::{Answer, Reply};

async fn post(client: &reqwest::Client, base: &str, command: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = client.post(format!("{base}/api/{command}")).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `alisio serve` on a free loopback port, and the base URL it says it listens on.
async fn start(h: &super::support::Harness) -> (tokio::process::Child, String) {
    let mut server = h.command(&["serve", "--archive", "team", "--listen", "127.0.0.1:0"]).spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
        if let Some(at) = line.find("http://") {
            let base = line[at..].split_whitespace().next().unwrap().trim_end_matches('/').to_string();
            return (server, base);
        }
        assert!(Instant::now() < deadline, "serve said where it listens");
    }
}

#[tokio::test]
async fn a_served_archive_reads_like_the_window_behind_tokens_and_writes_nothing() {
    let pg = Postgres::start();
    let script = vec![
        Reply::Answer(Answer::calls(&[("r1", "read_file", json!({"path": "notes.txt"}))])),
        Reply::Answer(Answer::text("The notes name ERR-42.")),
    ];
    let ana = home(&pg, "laptop-ana", "ana", script).await;
    std::fs::write(ana.ws().join("notes.txt"), "ERR-42 in src/parser.rs\n").unwrap();
    let own = ana.run(&[], "what do notes.txt say?").await.assert_ok().session();
    ana.alisio(&["push"]).await.assert_ok();
    let ben = home(&pg, "desktop-ben", "ben", vec![]).await;
    let file = claude_session(ben.ws(), 12);
    ben.alisio(&["import", file.to_str().unwrap()]).await.assert_ok();
    ben.alisio(&["push"]).await.assert_ok();

    let made = ana.alisio(&["serve", "token", "create", "--archive", "team", "--label", "reviewers"]).await;
    let token = made.assert_ok().stdout.split_whitespace().last().unwrap().to_string();
    let listed = ana.alisio(&["serve", "token", "list", "--json"]).await.json();
    assert_eq!(listed[0]["label"], "reviewers");
    assert!(!listed.to_string().contains(&token), "a listed token is never the token");

    // The server, on a free loopback port; it says where.
    let (mut server, base) = start(&ana).await;
    let client = super::proxy::client();

    let (status, body) = post(&client, &base, "sessions_list", None, json!({})).await;
    assert_eq!((status, body["code"].as_str()), (401, Some("unauthorized")));
    let (status, list) = post(&client, &base, "sessions_list", Some(&token), json!({})).await;
    assert_eq!(status, 200, "{list}");
    let titles: Vec<&str> = list.as_array().unwrap().iter().map(|s| s["source"].as_str().unwrap_or("alisio")).collect();
    assert!(titles.contains(&"claude-code") && titles.contains(&"alisio"), "both machines: {list:#}");
    // Each line as its home lists it, with who pushed it from where, and what it cost.
    let line = list.as_array().unwrap().iter().find(|s| s["id"] == own.as_str()).unwrap();
    assert_eq!((line["user"].as_str(), line["machine"].as_str()), (Some("ana"), Some("laptop-ana")));
    let at_home = ana.alisio(&["sessions", "list", "--json"]).await.json();
    let home_line = at_home.as_array().unwrap().iter().find(|s| s["id"] == own.as_str()).unwrap().clone();
    assert_eq!(line["costUsd"].as_f64(), home_line["costUsd"].as_f64(), "{line} vs {home_line}");
    assert_eq!(
        (line["title"].clone(), line["calls"].clone()),
        (home_line["title"].clone(), home_line["calls"].clone())
    );

    // A session's stored view, by the window's own function, from the home of its machine.
    let (status, view) = post(&client, &base, "views_stored", Some(&token), json!({"session": own})).await;
    assert_eq!(status, 200, "{view}");
    assert!(view.to_string().contains("ERR-42"), "{view}");
    let (status, calls) = post(&client, &base, "calls_list", Some(&token), json!({"session": own})).await;
    assert_eq!((status, calls.as_array().map(Vec::len)), (200, Some(2)), "{calls}");

    // The team's search and usage.
    let (_, found) = post(&client, &base, "search_messages", Some(&token), json!({"query": "ERR-42"})).await;
    assert!(found["hits"].as_array().unwrap().iter().any(|h| h["user"] == "ana"), "{found}");
    let (_, usage) = post(&client, &base, "usage_report", Some(&token), json!({"by": "machine"})).await;
    assert_eq!(usage["rows"].as_array().unwrap().len(), 2, "{usage}");

    // Nothing that writes is served.
    for (command, body) in [
        ("pins_add", json!({"session": own, "text": "x"})),
        ("turns_run", json!({"session": own, "prompt": "x"})),
        ("config_save", json!({"raw": {}})),
        ("sessions_remove", json!({"session": own})),
        ("archive_push", json!({})),
    ] {
        let (status, body) = post(&client, &base, command, Some(&token), body).await;
        assert_eq!((status, body["code"].as_str()), (403, Some("forbidden")), "{command}");
    }
    assert_eq!(ana.rows("SELECT count(*) FROM pins")[0][0], 0);

    // The page: the UI with the window's policy; the cookie the token form gets.
    let page = client.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(page.text().await.unwrap().contains("<div id=\"app\""));
    let bad = client.post(format!("{base}/api/login")).json(&json!({"token": "alisio_guess"})).send().await.unwrap();
    assert_eq!(bad.status(), 401);
    let good = client.post(format!("{base}/api/login")).json(&json!({"token": token})).send().await.unwrap();
    assert_eq!(good.status(), 204);
    let cookie = good.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let with_cookie = client
        .post(format!("{base}/api/serve_info"))
        .header("cookie", cookie.split(';').next().unwrap())
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(with_cookie.status(), 200);

    // Revoked: refused from then on.
    let id = listed[0]["id"].as_i64().unwrap().to_string();
    ana.alisio(&["serve", "token", "revoke", &id]).await.assert_ok();
    assert_eq!(post(&client, &base, "sessions_list", Some(&token), json!({})).await.0, 401);
    let _ = server.start_kill();
}
