//! The window's build (Tauri), and the commit `alisio --version` names: the checkout's HEAD, else
//! `ALISIO_COMMIT` (set by whoever builds from a source archive), else `unknown`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rustc-env=ALISIO_COMMIT={}", commit());
    tauri_build::build()
}

fn commit() -> String {
    println!("cargo:rerun-if-env-changed=ALISIO_COMMIT");
    if let Some(given) = std::env::var("ALISIO_COMMIT").ok().filter(|c| !c.trim().is_empty()) {
        return given.trim().to_string();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let git = root.join(".git");
    // A new commit moves HEAD's branch: rebuild then, not on every build.
    for watched in ["HEAD", "packed-refs"] {
        println!("cargo:rerun-if-changed={}", git.join(watched).display());
    }
    if let Ok(head) = std::fs::read_to_string(git.join("HEAD")) {
        if let Some(reference) = head.trim().strip_prefix("ref: ") {
            println!("cargo:rerun-if-changed={}", git.join(reference).display());
        }
    }
    let output = Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).current_dir(&root).output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        _ => "unknown".to_string(),
    }
}
