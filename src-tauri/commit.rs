// The commit a build names (`alisio --version`, the window's About): the checkout's HEAD, else
// `ALISIO_COMMIT` (set by whoever builds from a source archive), else `unknown`. Included by the
// build scripts of the `alisio` and `alisio-api` crates, which pass it on as `ALISIO_COMMIT`.

fn commit(repository: &std::path::Path) -> String {
    println!("cargo:rerun-if-env-changed=ALISIO_COMMIT");
    if let Some(given) = std::env::var("ALISIO_COMMIT").ok().filter(|c| !c.trim().is_empty()) {
        return given.trim().to_string();
    }
    let git = repository.join(".git");
    // A new commit moves HEAD's branch: rebuild then, not on every build.
    for watched in ["HEAD", "packed-refs"] {
        println!("cargo:rerun-if-changed={}", git.join(watched).display());
    }
    if let Ok(head) = std::fs::read_to_string(git.join("HEAD")) {
        if let Some(reference) = head.trim().strip_prefix("ref: ") {
            println!("cargo:rerun-if-changed={}", git.join(reference).display());
        }
    }
    let output =
        std::process::Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).current_dir(repository).output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        _ => "unknown".to_string(),
    }
}
