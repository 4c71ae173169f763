//! The command line's own surface: `--version` names the release and the commit the binary was
//! built from; `completions` prints a script each shell loads; a home from a newer release is
//! refused naming both releases.

use super::support::Harness;

#[tokio::test]
async fn the_version_names_the_release_and_the_commit_built_from() {
    let h = Harness::new(vec![]).await;
    let run = h.alisio(&["--version"]).await;
    run.assert_ok();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let head = std::process::Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).current_dir(&root).output();
    let commit = match head {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        _ => "unknown".to_string(),
    };
    assert_eq!(run.stdout.trim(), format!("alisio {} ({commit})", env!("CARGO_PKG_VERSION")));

    // The window's About says the same, with the home in use.
    let app = alisio_api::App::open(alisio_api::AppOptions {
        home: h.home.path().to_path_buf(),
        overlay: None,
        profile: None,
        access: alisio_api::Access::WriteOrRead,
        approvals: alisio_api::Approvals::Ask,
        emit: std::sync::Arc::new(|_| {}),
    })
    .unwrap();
    let about = alisio_api::dispatch(&app, "app_about", serde_json::json!({})).await.unwrap().unwrap();
    assert_eq!(about["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(about["commit"], commit.as_str());
    assert_eq!(about["home"], h.home.path().display().to_string());
}

#[tokio::test]
async fn completion_scripts_load_in_their_shells_and_know_every_command() {
    let h = Harness::new(vec![]).await;
    let bash = h.alisio(&["completions", "bash"]).await;
    bash.assert_ok();
    for command in ["sessions", "import", "search", "bench", "calls", "completions"] {
        assert!(bash.stdout.contains(command), "{command} is completed");
    }
    let script = h.home.path().join("alisio.bash");
    std::fs::write(&script, &bash.stdout).unwrap();
    let loaded = std::process::Command::new("bash")
        .args(["-c", &format!("source {} && complete -p alisio", script.display())])
        .output()
        .unwrap();
    assert!(loaded.status.success(), "{}", String::from_utf8_lossy(&loaded.stderr));
    assert!(String::from_utf8_lossy(&loaded.stdout).contains("_alisio"), "bash completes alisio with the script");

    assert!(h.alisio(&["completions", "zsh"]).await.assert_ok().stdout.starts_with("#compdef alisio"));
    assert!(h.alisio(&["completions", "fish"]).await.assert_ok().stdout.contains("complete -c alisio"));
    let unknown = h.alisio(&["completions", "tcsh"]).await;
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("bash") && unknown.stderr.contains("zsh"), "{}", unknown.stderr);
    // Printed before any configuration is read: a broken config does not stop it.
    std::fs::write(h.home.path().join("config.json"), "{ not json").unwrap();
    h.alisio(&["completions", "bash"]).await.assert_ok();
}

#[tokio::test]
async fn a_home_written_by_a_newer_release_is_refused_naming_both_and_left_untouched() {
    let h = Harness::new(vec![]).await;
    // A home as this release leaves it, then as a newer one would: a later schema, its release.
    h.alisio(&["sessions", "list", "--json"]).await.assert_ok();
    let db = h.db();
    assert_eq!(
        h.rows("SELECT value FROM library_state WHERE key = 'written_by'"),
        vec![vec![serde_json::json!(env!("CARGO_PKG_VERSION"))]],
        "the home records the release that wrote it"
    );
    db.execute_batch("UPDATE library_state SET value = '9.4.0' WHERE key = 'written_by'; PRAGMA user_version = 999;")
        .unwrap();
    drop(db);
    let before = std::fs::read(h.db_path()).unwrap();
    for args in [&["sessions", "list"][..], &["run", "hello"][..]] {
        let run = h.alisio(args).await;
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("written by Alisio 9.4.0"), "{}", run.stderr);
        assert!(run.stderr.contains(&format!("this is Alisio {}", env!("CARGO_PKG_VERSION"))), "{}", run.stderr);
    }
    assert_eq!(std::fs::read(h.db_path()).unwrap(), before, "the newer home is left as it was");
}
