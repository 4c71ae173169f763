//! No process outlives Alisio: an MCP server that ignores its stdin closing and SIGTERM, and the
//! helper it starts in its process group, are gone after `run`, after `mcp list`, after Ctrl-C and
//! even after SIGKILL of `alisio`; one that does not finish starting in time is ended at once.
//! Oversized results are said at once, and a large catalog is deferred behind `tool_search`.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

const STUBBORN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/stubborn_server.py");

/// A server entry for the stubborn server; every process it starts carries `marker`.
fn stubborn(marker: &str, extra: &[&str]) -> Value {
    let mut args = vec![STUBBORN.to_string(), marker.to_string()];
    args.extend(extra.iter().map(|a| a.to_string()));
    json!({"command": "python3", "args": args, "permission": "allow"})
}

fn marker() -> String {
    format!("alisio-orphan-test-{}", uuid_like())
}

fn uuid_like() -> String {
    format!("{:x}{:x}", std::process::id(), Instant::now().elapsed().as_nanos() ^ rand_seed())
}

fn rand_seed() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

/// Live processes whose command line holds `marker` (a zombie has an empty one).
fn count(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmdline| String::from_utf8_lossy(cmdline).contains(marker))
        .count()
}

async fn eventually(marker: &str, want: usize, within: Duration) -> usize {
    let deadline = Instant::now() + within;
    loop {
        let n = count(marker);
        if n == want || Instant::now() > deadline {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_stubborn_server_and_its_helper_end_with_run_and_with_mcp_list() {
    let m = marker();
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("done"))],
        json!({"plugins": [], "mcpServers": {"stubborn": stubborn(&m, &["--ignore-term"])}}),
    )
    .await;
    h.run(&[], "hello").await.assert_ok();
    assert_eq!(count(&m), 0, "server or helper left behind by run");
    let listed = h.alisio(&["mcp", "list", "--json"]).await;
    listed.assert_ok();
    assert_eq!(listed.json()[0]["status"], "ready");
    assert_eq!(count(&m), 0, "server or helper left behind by mcp list");
}

#[tokio::test]
async fn ctrl_c_and_sigkill_of_alisio_leave_no_server_behind() {
    for signal in [nix::sys::signal::Signal::SIGINT, nix::sys::signal::Signal::SIGKILL] {
        let m = marker();
        let h = Harness::with_config(
            vec![Reply::Hang],
            json!({"plugins": [], "mcpServers": {"stubborn": stubborn(&m, &["--ignore-term"])}}),
        )
        .await;
        let mut child = h.command(&["run", "--json", "hello"]).spawn().unwrap();
        assert_eq!(eventually(&m, 2, Duration::from_secs(20)).await, 2, "the server and its helper started");
        // The request is out: the server is in use.
        for _ in 0..100 {
            if !h.server.bodies().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let pid = nix::unistd::Pid::from_raw(child.id().unwrap() as i32);
        nix::sys::signal::kill(pid, signal).unwrap();
        tokio::time::timeout(Duration::from_secs(20), child.wait()).await.expect("alisio ended").unwrap();
        assert_eq!(eventually(&m, 0, Duration::from_secs(10)).await, 0, "left behind after {signal}");
    }
}

#[tokio::test]
async fn a_server_that_does_not_start_in_time_is_ended_at_once() {
    let m = marker();
    let mut server = stubborn(&m, &["--slow-start", "30"]);
    server["startupTimeoutMs"] = json!(500);
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("went on"))],
        json!({"plugins": [], "mcpServers": {"slow": server}}),
    )
    .await;
    let started = Instant::now();
    let run = h.run(&[], "hello").await;
    run.assert_ok();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(run.event_types().contains(&"mcp_server_failed".to_string()));
    assert_eq!(count(&m), 0, "the slow server was left running");
}

/// An answer over the 16 MiB a message may have is said at once (not after the call timeout);
/// one of 10–16 MiB is capped at 10 MiB like the shell's output.
#[tokio::test]
async fn oversized_results_are_reported_at_once_and_large_ones_capped() {
    let m = marker();
    let mut server = stubborn(&m, &[]);
    server["toolTimeoutMs"] = json!(60_000);
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("a", "mcp__big__big", json!({"mib": 17}))])),
            Reply::Answer(Answer::calls(&[("b", "mcp__big__big", json!({"mib": 12}))])),
            Reply::Answer(Answer::text("ok")),
        ],
        json!({"plugins": [], "mcpServers": {"big": server}, "limits": {"maxContextChars": 100_000_000}}),
    )
    .await;
    let started = Instant::now();
    let run = h.run(&[], "fetch it").await;
    run.assert_ok();
    assert!(started.elapsed() < Duration::from_secs(40), "not a timeout: {:?}", started.elapsed());
    let bodies = h.server.bodies();
    let result = |n: usize, id: &str| -> String {
        bodies[n]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["tool_call_id"] == id)
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let too_big = result(1, "a");
    assert!(too_big.contains("over the 16 MiB"), "{}", &too_big[..too_big.len().min(300)]);
    let capped = result(2, "b");
    assert!(capped.len() < 10 * 1024 * 1024 + 200, "{} bytes", capped.len());
    assert!(
        capped.contains("more bytes were dropped: output exceeded the 10 MiB storage cap"),
        "{} bytes, ending {:?}",
        capped.len(),
        &capped[capped.len().saturating_sub(300)..]
    );
    assert_eq!(count(&m), 0);
}

/// 5,000 MCP tools with a 32k window: the catalog waits behind `tool_search` (the request stays
/// small, no compaction runs for it), a search loads what the model needs for its next step, and
/// `--view model` shows the catalog actually sent. With the budget lifted, a catalog that alone
/// passes the trigger is not "compacted": the session is told why.
#[tokio::test]
async fn a_large_catalog_waits_behind_tool_search_and_no_compaction_is_wasted_on_it() {
    let m = marker();
    let window = json!({"provider": {"contextWindow": 32768}, "plugins": []});
    let mut config = window.clone();
    config["mcpServers"] = json!({"big": stubborn(&m, &["--tools", "5000"])});
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("s1", "tool_search", json!({"query": "tool_0042"}))])),
            Reply::Answer(Answer::calls(&[("c1", "mcp__big__tool_0042", json!({"id": "x"}))])),
            Reply::Answer(Answer::text("found it")),
        ],
        config,
    )
    .await;
    let run = h.run(&[], "look up record 42").await;
    run.assert_ok();
    assert!(!run.event_types().iter().any(|t| t.starts_with("compaction")), "{:?}", run.event_types());
    let bodies = h.server.bodies();
    let names = |n: usize| -> Vec<String> {
        bodies[n]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names(0).contains(&"tool_search".to_string()) && !names(0).iter().any(|n| n.starts_with("mcp__")));
    assert!(bodies[0].to_string().len() < 20_000, "{} bytes", bodies[0].to_string().len());
    assert!(names(1).contains(&"mcp__big__tool_0042".to_string()), "{:?}", names(1));
    assert_eq!(
        names(1).iter().filter(|n| n.starts_with("mcp__")).count(),
        names(1).iter().filter(|n| n.starts_with("mcp__big__tool_004")).count()
    );
    let result = bodies[2]["messages"].as_array().unwrap().iter().find(|m| m["tool_call_id"] == "c1").unwrap();
    assert_eq!(result["content"], "hi from tool_0042");
    let view = h.alisio(&["sessions", "show", &run.session(), "--view", "model", "--json"]).await;
    view.assert_ok();
    let shares = view.json()["toolCatalog"].clone();
    let big = shares.as_array().unwrap().iter().find(|s| s["server"] == "big").unwrap().clone();
    assert_eq!((big["tools"].clone(), big["deferred"].clone()), (json!(1), json!(5001)), "{shares}");
    assert!(shares.as_array().unwrap().iter().any(|s| s["server"] == "tool_search"));

    let mut lifted = window;
    lifted["mcp"] = json!({"maxCatalogTokens": 10_000_000});
    lifted["mcpServers"] = json!({"big": stubborn(&m, &["--tools", "500"])});
    let h = Harness::with_config(vec![Reply::Answer(Answer::text("sent whole"))], lifted).await;
    let run = h.run(&[], "hello").await;
    run.assert_ok();
    let types = run.event_types();
    assert!(!types.contains(&"compaction_started".to_string()), "{types:?}");
    let skipped: Vec<Value> = run.events().into_iter().filter(|e| e["type"] == "compaction_skipped").collect();
    assert_eq!(skipped.len(), 1, "{types:?}");
    assert!(skipped[0]["reason"].as_str().unwrap().contains("tool catalog"), "{}", skipped[0]);
    assert_eq!(eventually(&m, 0, Duration::from_secs(10)).await, 0);
}
