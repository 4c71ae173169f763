//! The engine's layering (docs/ARCHITECTURE.md) as a test: no module imports a module that
//! imports it back, counting `crate::…` paths between top-level modules and `super::…` paths
//! between sibling submodules. Test code is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// `module → modules it uses`, module names as paths (`compaction::native`).
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap().with_extension("");
        let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        if parts == ["lib"] || parts.last().is_some_and(|p| p.ends_with("tests")) {
            continue;
        }
        let name = parts.join("::");
        let parent = parts[..parts.len() - 1].join("::");
        let source = std::fs::read_to_string(&file).unwrap();
        let source = source.split("#[cfg(test)]").next().unwrap_or_default();
        let mut uses = BTreeSet::new();
        let mut add = |base: &str, rest: &str| {
            // Up to two path segments: `compaction::plugins`, or `compaction` when that is all.
            let path: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_' || *c == ':').collect();
            let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).take(2).collect();
            for n in 1..=segments.len() {
                let module = segments[..n].join("::");
                uses.insert(if base.is_empty() { module } else { format!("{base}::{module}") });
            }
        };
        for (prefix, base) in [("crate::", ""), ("super::", parent.as_str())] {
            for (at, _) in source.match_indices(prefix) {
                add(base, &source[at + prefix.len()..]);
            }
        }
        // `use child::…` / `pub use child::…` in a module with submodules.
        for line in source.lines() {
            if let Some(rest) =
                line.trim_start().strip_prefix("pub use ").or_else(|| line.trim_start().strip_prefix("use "))
            {
                add(&name, rest);
            }
        }
        graph.insert(name, uses);
    }
    // Keep only edges to modules that exist (not to items such as `crate::Result` or to crates),
    // and not to the module itself.
    let names: BTreeSet<String> = graph.keys().cloned().collect();
    for (name, uses) in graph.iter_mut() {
        *uses = uses.iter().filter(|u| names.contains(*u) && *u != name).cloned().collect();
    }
    graph
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let graph = dependencies();
    assert!(graph.contains_key("compaction::native") && graph.contains_key("model"), "{:?}", graph.keys());
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(module) = stack.pop() {
            for next in graph.get(&module).into_iter().flatten() {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        false
    };
    let cycles: Vec<(&String, &String)> =
        graph.iter().flat_map(|(m, uses)| uses.iter().map(move |u| (m, u))).filter(|(m, u)| reaches(u, m)).collect();
    assert!(cycles.is_empty(), "modules that import each other (directly or through others): {cycles:?}");
    // The three layers of the issue that shaped the engine: model ← compaction ← agent.
    assert!(reaches("agent", "compaction::strategy") && reaches("compaction::summarize", "model"));
    assert!(!reaches("model", "compaction") && !reaches("compaction", "agent"));
}
