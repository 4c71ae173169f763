//! The codebase's own limits, as a test: every hand-written Rust file of the engine, the API and
//! the app at most 600 lines, every hand-written UI file at most 400, and no function longer than
//! 100 lines (from its `fn` line to its closing brace, as rustfmt and the UI's formatting lay them
//! out). Generated files (the TypeScript bindings, the config schema, the price table) are left out.

use std::path::{Path, PathBuf};

const RUST_LINES: usize = 600;
const UI_LINES: usize = 400;
const FUNCTION_LINES: usize = 100;

/// Generated, not written: exempt from the limits.
const GENERATED: [&str; 3] = ["ui/src/bindings.ts", "ui/src/configSchema.ts", "ui/src/api.ts"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        let name = entry.file_name().unwrap().to_string_lossy().to_string();
        if entry.is_dir() && !matches!(name.as_str(), "node_modules" | "dist" | "target" | "gen") {
            files(&entry, extensions, out);
        } else if extensions.iter().any(|e| name.ends_with(e)) {
            out.push(entry);
        }
    }
}

/// `(first line, lines)` of every function whose body spans lines of `source`: a line opening a
/// `fn` (Rust) or a `function` / arrow-function constant (TypeScript), to the first line after it
/// that closes at the same indentation.
fn functions(source: &str) -> Vec<(usize, usize, String)> {
    let lines: Vec<&str> = source.lines().collect();
    let opens = |line: &str| {
        let t = line.trim_start();
        let words: Vec<&str> = t.split_whitespace().collect();
        let rust = words.iter().take(5).any(|w| *w == "fn" || w.starts_with("fn<")) && !t.starts_with("//");
        let ts = t.starts_with("function ")
            || t.starts_with("export function ")
            || t.starts_with("async function ")
            || t.starts_with("export async function ")
            || ((t.starts_with("const ") || t.starts_with("export const ")) && t.contains("=>") && t.ends_with('{'));
        rust || ts
    };
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !opens(line) {
            continue;
        }
        // A signature may span lines: a body only if it ends in `{` before any `;`.
        let Some(signature_end) =
            lines[i..].iter().position(|l| l.trim_end().ends_with('{') || l.trim_end().ends_with(';'))
        else {
            continue;
        };
        if lines[i + signature_end].trim_end().ends_with(';') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let end = lines[i + 1..].iter().position(|l| {
            let t = l.trim_start();
            l.len() - t.len() == indent && t.starts_with('}')
        });
        if let Some(end) = end {
            out.push((i + 1, end + 2, line.trim().chars().take(70).collect()));
        }
    }
    out
}

#[test]
fn files_and_functions_stay_within_their_limits() {
    let root = root();
    let mut rust = Vec::new();
    for dir in ["src-tauri/src", "src-tauri/crates", "tests/suite"] {
        files(&root.join(dir), &[".rs"], &mut rust);
    }
    let mut ui = Vec::new();
    files(&root.join("ui/src"), &[".ts", ".tsx"], &mut ui);
    let mut over = Vec::new();
    for (paths, limit) in [(&rust, RUST_LINES), (&ui, UI_LINES)] {
        for path in paths.iter() {
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            if GENERATED.contains(&name.as_str()) {
                continue;
            }
            let source = std::fs::read_to_string(path).unwrap();
            let lines = source.lines().count();
            if lines > limit {
                over.push(format!("{name}: {lines} lines (at most {limit})"));
            }
            for (at, length, head) in functions(&source) {
                if length > FUNCTION_LINES {
                    over.push(format!("{name}:{at}: a function of {length} lines (at most {FUNCTION_LINES}): {head}"));
                }
            }
        }
    }
    assert!(rust.len() > 100 && ui.len() > 10, "the walk found {} Rust and {} UI files", rust.len(), ui.len());
    assert!(over.is_empty(), "split these along their seams:\n{}", over.join("\n"));
}

#[test]
fn the_function_reader_sees_rust_and_typescript_bodies() {
    let rust = "impl X {\n    pub async fn run(&self) -> u8 {\n        1\n    }\n}\n";
    assert_eq!(functions(rust), [(2, 3, "pub async fn run(&self) -> u8 {".to_string())]);
    let long_signature =
        "trait T {\n    fn a(\n        x: u8,\n    ) -> u8;\n}\nfn b(\n    y: u8,\n) -> u8 {\n    y\n}\n";
    assert_eq!(functions(long_signature).into_iter().map(|(a, l, _)| (a, l)).collect::<Vec<_>>(), [(6, 5)]);
    let ts = "export function f(a: number): number {\n  return a;\n}\nconst g = (x: number) => {\n  return x;\n};\n";
    let found: Vec<(usize, usize)> = functions(ts).into_iter().map(|(a, l, _)| (a, l)).collect();
    assert_eq!(found, [(1, 3), (4, 3)]);
}

/// One version people can quote: the crates, the window's bundle and the UI package say the same.
#[test]
fn one_version_number_everywhere() {
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let workspace = cargo
        .lines()
        .skip_while(|l| l.trim() != "[workspace.package]")
        .find_map(|l| l.trim().strip_prefix("version = ").map(|v| v.trim_matches('"').to_string()))
        .expect("[workspace.package] version");
    let json_version = |path: &str| -> String {
        let text = std::fs::read_to_string(root().join(path)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value["version"].as_str().unwrap_or_default().to_string()
    };
    assert_eq!(workspace, env!("CARGO_PKG_VERSION"), "the alisio crate takes the workspace's version");
    assert_eq!(json_version("tauri.conf.json"), workspace, "tauri.conf.json");
    assert_eq!(json_version("ui/package.json"), workspace, "ui/package.json");
}
