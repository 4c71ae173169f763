//! Tools as the model experiences them: confinement, permissions, odd output, timeouts.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{conversation, Answer, Harness, Reply};

/// Tool results of the second request, by call id order.
fn results(h: &Harness) -> Vec<String> {
    conversation(&h.server.bodies()[1])
        .into_iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused_as_tool_errors() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "top secret").unwrap();
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[
            ("a", "read_file", json!({"path": "../../../../../../etc/passwd"})),
            ("b", "read_file", json!({"path": secret.display().to_string()})),
            ("c", "read_file", json!({"path": "link/secret.txt"})),
            ("d", "write_file", json!({"path": "link/secret.txt", "content": "pwned"})),
            ("e", "edit_file", json!({"path": "escape", "old": "top", "new": "pwned"})),
            ("f", "list_dir", json!({"path": "link"})),
            ("g", "grep", json!({"pattern": "secret", "path": "link"})),
        ])),
        Reply::Answer(Answer::text("ok")),
    ])
    .await;
    std::os::unix::fs::symlink(outside.path(), h.ws().join("link")).unwrap();
    std::os::unix::fs::symlink(&secret, h.ws().join("escape")).unwrap();
    h.run(&[], "try to escape").await.assert_ok();
    let refusals = results(&h);
    assert_eq!(refusals.len(), 7);
    for result in &refusals {
        assert!(result.starts_with("error: refused:") && result.contains("outside the workspace"), "{result}");
        assert!(!result.contains("top secret"));
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "top secret");
    assert_eq!(h.rows("SELECT count(*) FROM tool_calls WHERE ok = 0"), vec![vec![json!(7)]]);
}

#[tokio::test]
async fn permissions_ask_needs_yes_and_deny_always_refuses() {
    let script = || {
        vec![
            Reply::Answer(Answer::calls(&[
                ("s", "shell", json!({"command": "echo ran >> shell.log"})),
                ("w", "write_file", json!({"path": "w.txt", "content": "x"})),
            ])),
            Reply::Answer(Answer::text("ok")),
        ]
    };
    let ask = json!({"permissions": {"shell": "ask", "write": "ask"}});

    let refused = Harness::with_config(script(), ask.clone()).await;
    refused.run(&[], "go").await.assert_ok();
    let refusals = results(&refused);
    assert!(
        refusals[0].contains("permission refused")
            && refusals[0].contains("permissions.shell")
            && refusals[0].contains("--yes"),
        "{}",
        refusals[0]
    );
    assert!(refusals[1].contains("permissions.write"), "{}", refusals[1]);
    assert!(!refused.ws().join("shell.log").exists() && !refused.ws().join("w.txt").exists());

    let approved = Harness::with_config(script(), ask).await;
    approved.run(&["--yes"], "go").await.assert_ok();
    assert_eq!(results(&approved)[0], "[exit code 0]");
    assert_eq!(std::fs::read_to_string(approved.ws().join("shell.log")).unwrap(), "ran\n");

    let denied = Harness::with_config(script(), json!({"permissions": {"shell": "deny", "write": "allow"}})).await;
    denied.run(&["--yes"], "go").await.assert_ok();
    assert!(results(&denied)[0].contains("permissions.shell is \"deny\""));
    assert!(!denied.ws().join("shell.log").exists());
    assert!(denied.ws().join("w.txt").exists());
}

#[tokio::test]
async fn non_utf8_and_huge_outputs_are_stored_marked_and_bounded() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[
            ("bin", "read_file", json!({"path": "latin1.txt"})),
            ("big", "shell", json!({"command": "head -c 11534336 /dev/zero | tr '\\0' 'a'; echo tail >&2"})),
        ])),
        Reply::Answer(Answer::text("ok")),
    ])
    .await;
    std::fs::write(h.ws().join("latin1.txt"), b"caf\xe9 ol\xe9\n").unwrap();
    let run = h.run(&[], "read").await;
    run.assert_ok();
    let outputs = results(&h);
    assert!(outputs[0].starts_with("caf\u{fffd} ol\u{fffd}\n"), "{}", outputs[0]);
    assert!(outputs[0].contains("not valid UTF-8"));

    // The full output is stored (capped at 10 MiB, saying how much was dropped)…
    let cap = 10 * 1024 * 1024;
    let stored = h.rows("SELECT content, compacted FROM messages WHERE tool_call_id = 'big' ORDER BY seq");
    assert_eq!(stored.len(), 2, "the original and its reduced copy");
    let original = stored[0][0].as_str().unwrap();
    assert_eq!(stored[0][1], json!(1), "the original stays stored, marked compacted");
    assert!(original.len() > cap && original.len() < cap + 1024, "the stored copy is capped");
    assert!(original.contains(&format!("{} more bytes were dropped", 11534336 - cap)));
    assert!(original.contains("[stderr]\ntail\n[exit code 0]"));
    assert_eq!(
        h.rows("SELECT call_id, lossy, dropped_bytes FROM tool_calls ORDER BY id"),
        vec![vec![json!("bin"), json!(1), json!(0)], vec![json!("big"), json!(0), json!(11534336 - cap)]]
    );
    // …while the model got the kept tail reduced to fit limits.maxContextChars (docs/compaction.md).
    assert_eq!(outputs[1].chars().count(), 8000);
    assert!(outputs[1].ends_with("\n… [truncated by context budget]"));
    assert_eq!(stored[1][0].as_str().unwrap(), outputs[1]);
    let reduced: Vec<_> = run.events().into_iter().filter(|e| e["type"] == "context_reduced").collect();
    assert_eq!(reduced.len(), 1);
    assert_eq!(reduced[0]["messages"], 1);
}

fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.split_whitespace().nth(2).is_none_or(|state| state != "Z"),
        Err(_) => false,
    }
}

#[tokio::test]
async fn a_shell_timeout_kills_the_whole_process_group() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[(
            "t",
            "shell",
            json!({"command": "sleep 30 & echo $! > bg.pid; echo started; wait", "timeoutMs": 500}),
        )])),
        Reply::Answer(Answer::text("ok")),
    ])
    .await;
    let run = h.run(&[], "hang").await;
    run.assert_ok();
    let result: Value = conversation(&h.server.bodies()[1])[2].clone();
    let content = result["content"].as_str().unwrap();
    assert!(content.starts_with("started\n") && content.contains("timed out after 500 ms"), "{content}");
    let pid: i32 = std::fs::read_to_string(h.ws().join("bg.pid")).unwrap().trim().parse().unwrap();
    assert!(!process_alive(pid), "the background child {pid} was killed with its group");
    assert_eq!(run.events()[3]["ok"], false);
}
