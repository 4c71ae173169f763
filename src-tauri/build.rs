//! The window's build (Tauri), and the commit `alisio --version` names (see commit.rs).

include!("commit.rs");

fn main() {
    let repository = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    println!("cargo:rustc-env=ALISIO_COMMIT={}", commit(&repository));
    tauri_build::build()
}
