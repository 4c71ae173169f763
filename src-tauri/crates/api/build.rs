//! The commit the application names in its About (see src-tauri/commit.rs).

include!("../../commit.rs");

fn main() {
    let repository = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    println!("cargo:rustc-env=ALISIO_COMMIT={}", commit(&repository));
}
