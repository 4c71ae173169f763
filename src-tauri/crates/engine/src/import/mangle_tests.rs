//! Every importer against mangled copies of real files: whatever a record holds, an import ends
//! without a panic, reporting what it could not read.

use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

use super::tests::store;

/// A small deterministic generator for mangling records (no dependency, reproducible by seed).
struct Mangler(u64);

impl Mangler {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Somewhere in `value`: a key removed, a value swapped for one of another type.
    fn mangle(&mut self, value: &mut serde_json::Value) {
        use serde_json::Value;
        let swaps =
            [Value::Null, serde_json::json!(7), serde_json::json!("x"), serde_json::json!([]), serde_json::json!({})];
        match value {
            Value::Object(map) if !map.is_empty() => {
                let keys: Vec<String> = map.keys().cloned().collect();
                let key = &keys[self.below(keys.len() as u64) as usize];
                match self.below(3) {
                    0 => {
                        map.remove(key);
                    }
                    1 => {
                        let swap = swaps[self.below(swaps.len() as u64) as usize].clone();
                        map.insert(key.clone(), swap);
                    }
                    _ => self.mangle(map.get_mut(key).unwrap_or(&mut Value::Null)),
                }
            }
            Value::Array(items) if !items.is_empty() => {
                let at = self.below(items.len() as u64) as usize;
                self.mangle(&mut items[at]);
            }
            other => *other = swaps[self.below(swaps.len() as u64) as usize].clone(),
        }
    }
}

/// Every session file of the new agents' fixtures, mangled record by record (keys dropped, types
/// swapped, lines lost, the last one cut), still imports without a panic: what cannot be read is
/// skipped or reported, the rest is stored.
#[test]
fn the_new_agents_files_mangled_import_without_a_panic() {
    let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/agents");
    let mut sources = Vec::new();
    for (agent, ending) in [
        ("qwen", ".jsonl"),
        ("pi", ".jsonl"),
        ("copilot", "events.jsonl"),
        ("gemini", ".jsonl"),
        ("cline", ".messages.json"),
    ] {
        let mut stack = vec![agents.join(agent).join("home")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.to_string_lossy().ends_with(ending) && !path.ends_with("usage_record.jsonl") {
                    sources.push(path);
                }
            }
        }
    }
    assert!(sources.len() >= 10, "{sources:?}");
    for seed in 1..=12u64 {
        let mut m = Mangler(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let (dir, store) = store();
        for (i, source) in sources.iter().enumerate() {
            let text = std::fs::read_to_string(source).unwrap();
            let name = source.file_name().unwrap().to_string_lossy().into_owned();
            let target = dir.path().join(format!("{i}")).join(&name);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            let mangled = if name.ends_with(".messages.json") {
                let mut document: serde_json::Value = serde_json::from_str(&text).unwrap();
                for _ in 0..4 {
                    if let Some(messages) = document.get_mut("messages") {
                        m.mangle(messages);
                    }
                }
                document.to_string()
            } else {
                let mut out = String::new();
                for line in text.lines() {
                    match m.below(10) {
                        0 => continue,
                        1 | 2 => {
                            let mut record: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
                            m.mangle(&mut record);
                            out.push_str(&record.to_string());
                        }
                        _ => out.push_str(line),
                    }
                    out.push('\n');
                }
                let cut = out.len() - m.below(out.len() as u64 / 4) as usize;
                let cut = (0..=cut).rev().find(|c| out.is_char_boundary(*c)).unwrap_or(0);
                out[..cut].to_string()
            };
            std::fs::write(&target, mangled).unwrap();
        }
        let report = import(&store, &[dir.path().to_path_buf()]);
        // Reported, never a panic; the sessions that remain recognisable are stored.
        assert!(report.imported.len() + report.errors.len() + report.unknown.len() > 0, "seed {seed}: {report:?}");
    }
}

/// Cline's and Roo Code's task folders mangled document by document (messages, chat records,
/// rewrites, the task's record; keys dropped, types swapped), and a hidden range far past the
/// history's end, still import without a panic or a runaway loop.
#[test]
fn extension_task_folders_mangled_import_without_a_panic() {
    let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/agents");
    let mut tasks = Vec::new();
    for root in ["cline-tasks/home/.cline/data/tasks", "roo/home/.vscode-mock/global-storage/tasks"] {
        for entry in std::fs::read_dir(agents.join(root)).unwrap().flatten() {
            if entry.path().join(super::tasks::HISTORY).is_file() {
                tasks.push(entry.path());
            }
        }
    }
    assert_eq!(tasks.len(), 8, "{tasks:?}");
    for seed in 1..=12u64 {
        let mut m = Mangler(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let (dir, store) = store();
        for (i, task) in tasks.iter().enumerate() {
            let target = dir.path().join(format!("{i}")).join(task.file_name().unwrap());
            std::fs::create_dir_all(&target).unwrap();
            for entry in std::fs::read_dir(task).unwrap().flatten() {
                let text = std::fs::read_to_string(entry.path()).unwrap();
                let mut document: serde_json::Value = serde_json::from_str(&text).unwrap();
                for _ in 0..6 {
                    m.mangle(&mut document);
                }
                if seed % 3 == 0 {
                    if let Some(ui) = document.as_array_mut().filter(|_| entry.file_name() == "ui_messages.json") {
                        if let Some(first) = ui.first_mut().and_then(|u| u.as_object_mut()) {
                            first.insert("conversationHistoryDeletedRange".into(), serde_json::json!([2, 1u64 << 60]));
                        }
                    }
                }
                std::fs::write(target.join(entry.file_name()), document.to_string()).unwrap();
            }
        }
        let report = import(&store, &[dir.path().to_path_buf()]);
        assert!(report.imported.len() + report.errors.len() + report.unknown.len() > 0, "seed {seed}: {report:?}");
    }
}
