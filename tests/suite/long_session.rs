//! One long session in the spirit of CWL (continual work across compactions): many small tasks
//! back to back, the history pruned automatically again and again, and at the end every task's
//! result still checked — in the workspace, in the store and in what the model was last sent.

use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

const TASKS: usize = 30;
/// The model's window, in tokens: small enough for the history to be pruned again and again.
const WINDOW: u64 = 4500;

/// Task `n`'s command: an 80-line log whose last line is its result.
fn command(n: usize) -> String {
    format!("seq -f 'task {n} step %g' 1 79; echo 'RESULT-{n:02}: {}'", n * n)
}

#[tokio::test]
async fn thirty_tasks_across_many_automatic_compactions_each_result_checked_at_the_end() {
    let mut script = Vec::new();
    for n in 1..=TASKS {
        script.push(Reply::Answer(Answer::calls(&[(
            &format!("task_{n:02}"),
            "shell",
            json!({"command": command(n)}),
        )])));
        script.push(Reply::Answer(Answer::text(&format!("Task {n} done: RESULT-{n:02} is {}.", n * n))));
    }
    let config = json!({"plugins": [], "compaction": {"strategy": "prune", "keepTurns": 2}});
    let h = Harness::with_config(script, config).await;
    h.server.set_models(json!({"data": [{"id": "test-model", "context_length": WINDOW}]}));
    let mut session: Option<String> = None;
    for n in 1..=TASKS {
        let mut args = vec![];
        let id = session.clone().unwrap_or_default();
        if session.is_some() {
            args = vec!["--session", id.as_str()];
        }
        let run = h.run(&args, &format!("Task {n}: run the task-{n} script and report its RESULT line.")).await;
        run.assert_ok();
        session.get_or_insert_with(|| run.session());
    }
    let session = session.unwrap();

    // Many compactions, each a pruning the guard asked for; nothing uncertain, nothing unanswered.
    let pruned = h.rows(&format!(
        "SELECT count(*) FROM compactions WHERE session_id = '{session}' AND reason = 'prune' AND status = 'applied'"
    ))[0][0]
        .as_u64()
        .unwrap();
    assert!(pruned >= 4, "{pruned} prunings over {TASKS} tasks");
    let states = h.rows(&format!("SELECT DISTINCT state FROM tool_calls WHERE session_id = '{session}'"));
    assert_eq!(states, vec![vec![json!("finished")]], "every call finished");

    // Every task's output is stored whole (the originals behind the pruned copies).
    for n in 1..=TASKS {
        let stored = h.rows(&format!(
            "SELECT content FROM messages WHERE session_id = '{session}' AND tool_call_id = 'task_{n:02}' AND created_by IS NULL"
        ));
        let text = stored[0][0].as_str().unwrap();
        assert_eq!(text.lines().count(), 81, "task {n}: the 80 lines and the exit code: {text}");
        assert!(text.contains(&format!("RESULT-{n:02}: {}", n * n)), "task {n}");
    }

    // The last request: every earlier task's answer and every task's result line, the pruned outputs
    // keeping their last lines; no message the model was sent is over budget.
    let last = h.server.bodies().last().unwrap().clone();
    let sent: Vec<&Value> = last["messages"].as_array().unwrap().iter().collect();
    let text: String = sent.iter().filter_map(|m| m["content"].as_str()).collect::<Vec<_>>().join("\n");
    for n in 1..=TASKS {
        // (The last request is the one that answered the last task.)
        let answered = n == TASKS || text.contains(&format!("Task {n} done: RESULT-{n:02} is {}.", n * n));
        assert!(answered, "answer {n} kept");
        assert!(text.contains(&format!("RESULT-{n:02}: {}", n * n)), "result line {n} kept in its output");
    }
    assert!(text.contains("lines pruned]"), "older outputs were pruned");
    // Every request the session sent stayed within the model's window (Alisio's own estimate).
    let largest = h.rows("SELECT max(estimated_tokens) FROM model_calls")[0][0].as_u64().unwrap();
    assert!(largest < WINDOW, "every request fits the window: the largest was {largest} tokens");
}
