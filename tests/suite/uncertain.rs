//! A crash mid-tool leaves an uncertain result that is never re-run; recovery records it.

use std::time::Duration;

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{conversation, Answer, Harness, Reply};

#[tokio::test]
async fn sigkill_during_a_shell_tool_leaves_it_uncertain_until_acknowledged() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[
            ("k-1", "shell", json!({"command": "echo $$ > shell.pid; echo run >> count.txt; sleep 20"})),
            ("k-2", "list_dir", json!({"path": "."})),
        ])),
        Reply::Answer(Answer::text("understood")),
    ])
    .await;
    let mut child = h.command(&["run", "--json", "do it"]).spawn().unwrap();
    let count = h.ws().join("count.txt");
    for _ in 0..400 {
        if count.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(count.exists(), "the shell tool started");
    kill(Pid::from_raw(child.id().unwrap() as i32), Signal::SIGKILL).unwrap();
    child.wait().await.unwrap();
    let shell_pid: i32 = std::fs::read_to_string(h.ws().join("shell.pid")).unwrap().trim().parse().unwrap();
    let _ = killpg(Pid::from_raw(shell_pid), Signal::SIGKILL);

    assert_eq!(
        h.rows("SELECT call_id, state FROM tool_calls ORDER BY id"),
        vec![vec![json!("k-1"), json!("started")], vec![json!("k-2"), json!("requested")]]
    );
    let session = h.rows("SELECT id FROM sessions")[0][0].as_str().unwrap().to_string();

    let refused = h.run(&["--session", &session], "continue").await;
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(refused.stderr.contains(&format!("alisio sessions recover {session} --acknowledge")), "{}", refused.stderr);
    assert_eq!(h.server.bodies().len(), 1, "nothing is sent while a result is uncertain");
    let list = h.alisio(&["sessions", "list", "--json"]).await.json();
    assert_eq!(list[0]["uncertainToolCalls"], 1);
    let stored = h.alisio(&["sessions", "show", &session, "--json"]).await.json();
    assert_eq!(stored["messages"][1]["uncertain"], true, "the assistant message with the uncertain call is flagged");

    let unacknowledged = h.alisio(&["sessions", "recover", &session]).await;
    assert_eq!(unacknowledged.code, 2);
    assert!(unacknowledged.stderr.contains("k-1"), "{}", unacknowledged.stderr);

    let recovered = h.alisio(&["sessions", "recover", &session, "--acknowledge", "--json"]).await;
    recovered.assert_ok();
    let report = recovered.json();
    assert_eq!(report["acknowledged"][0]["callId"], "k-1");
    assert_eq!(report["notRun"][0]["callId"], "k-2");

    h.run(&["--session", &session], "continue").await.assert_ok();
    let sent = conversation(&h.server.bodies()[1]);
    assert_eq!(sent.len(), 5);
    assert_eq!(sent[1]["tool_calls"][0]["id"], "k-1");
    assert_eq!(sent[2]["tool_call_id"], "k-1");
    assert!(sent[2]["content"].as_str().unwrap().starts_with("result unknown"), "{}", sent[2]);
    assert_eq!(sent[3]["tool_call_id"], "k-2");
    assert!(sent[3]["content"].as_str().unwrap().starts_with("not run"));
    assert_eq!(sent[4], json!({"role": "user", "content": "continue"}));
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "run\n", "the uncertain tool never ran twice");
    assert_eq!(
        h.rows("SELECT call_id, state, result_seq FROM tool_calls ORDER BY id"),
        vec![vec![json!("k-1"), json!("acknowledged"), json!(3)], vec![json!("k-2"), json!("finished"), json!(4)]]
    );
    assert_eq!(h.rows("SELECT uncertain FROM messages WHERE seq = 3"), vec![vec![json!(1)]]);
}
