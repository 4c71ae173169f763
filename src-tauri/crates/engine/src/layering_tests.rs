//! The engine's layering as a test. The layer table of docs/ARCHITECTURE.md is the data: each
//! top-level module sits on one floor, and may use modules on its own floor or below, never above.
//! What a module uses is read from its parsed source (`syn`): every `crate::…` path, in `use`
//! trees (grouped imports included) and in code alike; comments and test code are left out.
//! Within a floor, no module may import one that imports it back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The floors of the table, bottom first: `floor name → top-level modules`.
fn floors() -> Vec<(String, Vec<String>)> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md");
    let section = doc.split("## Engine modules").nth(1).expect("an \"Engine modules\" section");
    let mut floors = Vec::new();
    for line in section.lines().take_while(|l| !l.starts_with("## ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || cells[1] == "layer" || cells[1].starts_with("---") {
            continue;
        }
        let modules: Vec<String> = cells[2].split('`').skip(1).step_by(2).map(str::to_string).collect();
        floors.push((cells[1].to_string(), modules));
    }
    floors
}

/// Every `crate::<module>` a file names outside `#[cfg(test)]` items.
#[derive(Default)]
struct Uses {
    modules: BTreeSet<String>,
}

impl Uses {
    fn tree(&mut self, tree: &syn::UseTree, at_crate: bool) {
        match tree {
            syn::UseTree::Path(p) if !at_crate && p.ident == "crate" => self.tree(&p.tree, true),
            syn::UseTree::Path(p) if at_crate => {
                self.modules.insert(p.ident.to_string());
            }
            syn::UseTree::Name(n) if at_crate => {
                self.modules.insert(n.ident.to_string());
            }
            syn::UseTree::Rename(r) if at_crate => {
                self.modules.insert(r.ident.to_string());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.tree(t, at_crate)),
            _ => {}
        }
    }
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string() == "test"))
    })
}

/// A module, function, impl or import marked as test code.
fn is_test_item(item: &syn::Item) -> bool {
    match item {
        syn::Item::Mod(m) => is_test(&m.attrs),
        syn::Item::Fn(f) => is_test(&f.attrs),
        syn::Item::Impl(i) => is_test(&i.attrs),
        syn::Item::Use(u) => is_test(&u.attrs),
        _ => false,
    }
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_item(item) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.tree(&item.tree, false);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let mut segments = path.segments.iter();
        if segments.next().is_some_and(|s| s.ident == "crate") {
            if let Some(module) = segments.next() {
                self.modules.insert(module.ident.to_string());
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Paths inside macro calls (`format!`, `json!`…) are tokens: read them as text.
        let tokens = mac.tokens.to_string().replace(' ', "");
        for (at, _) in tokens.match_indices("crate::") {
            let name: String = tokens[at + 7..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
            if !name.is_empty() {
                self.modules.insert(name);
            }
        }
        syn::visit::visit_macro(self, mac);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if entry.is_dir() {
            rust_files(&entry, out);
        } else if entry.extension().is_some_and(|e| e == "rs") {
            out.push(entry);
        }
    }
}

/// `top-level module → top-level modules it uses`, test files left out.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap();
        let module = relative.iter().next().unwrap().to_string_lossy().trim_end_matches(".rs").to_string();
        let name = relative.file_stem().unwrap().to_string_lossy();
        if module == "lib" || name.ends_with("tests") {
            continue;
        }
        let parsed = syn::parse_file(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let mut uses = Uses::default();
        uses.visit_file(&parsed);
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(uses.modules.into_iter().filter(|m| *m != module));
    }
    let names: BTreeSet<String> = graph.keys().cloned().collect();
    for uses in graph.values_mut() {
        uses.retain(|u| names.contains(u));
    }
    graph
}

#[test]
fn every_module_uses_only_its_floor_and_those_below() {
    let floors = floors();
    assert!(floors.len() >= 8, "the layer table was not found: {floors:?}");
    let floor_of: BTreeMap<&str, usize> =
        floors.iter().enumerate().flat_map(|(i, (_, modules))| modules.iter().map(move |m| (m.as_str(), i))).collect();
    let graph = dependencies();
    let unplaced: Vec<&String> = graph.keys().filter(|m| !floor_of.contains_key(m.as_str())).collect();
    assert!(unplaced.is_empty(), "modules missing from the layer table: {unplaced:?}");
    let mut upward = Vec::new();
    for (module, uses) in &graph {
        for used in uses {
            if floor_of[used.as_str()] > floor_of[module.as_str()] {
                upward.push(format!(
                    "{module} ({}) uses {used} ({})",
                    floors[floor_of[module.as_str()]].0,
                    floors[floor_of[used.as_str()]].0
                ));
            }
        }
    }
    assert!(upward.is_empty(), "imports that point up the layer table:\n{}", upward.join("\n"));
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let graph = dependencies();
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
    assert!(reaches("agent", "compaction") && reaches("compaction", "model"));
    assert!(!reaches("model", "compaction") && !reaches("compaction", "agent"));
}

/// The reader itself: a grouped import, a path in code and one inside a macro are all seen; a
/// comment and a test module are not.
#[test]
fn the_reader_sees_grouped_imports_and_ignores_comments_and_tests() {
    let source = r#"
        use crate::{store::{Store, Tx}, view};
        // use crate::agent::Engine;
        fn f() { crate::events::now(); format!("{}", crate::home::DB_FILE); }
        #[cfg(test)]
        mod tests { use crate::demo; }
    "#;
    let mut uses = Uses::default();
    uses.visit_file(&syn::parse_file(source).unwrap());
    let found: Vec<&str> = uses.modules.iter().map(String::as_str).collect();
    assert_eq!(found, ["events", "home", "store", "view"]);
}

/// `super::<module>` and `crate::compaction::<module>` paths a file of `compaction/` names, in
/// `use` trees and in code (test code left out).
#[derive(Default)]
struct Siblings {
    modules: BTreeSet<String>,
}

impl Siblings {
    fn tree(&mut self, tree: &syn::UseTree, depth: u8) {
        match tree {
            syn::UseTree::Path(p) if depth == 0 && p.ident == "super" => self.tree(&p.tree, 1),
            syn::UseTree::Path(p) if depth == 0 && p.ident == "crate" => self.tree(&p.tree, 2),
            syn::UseTree::Path(p) if depth == 2 && p.ident == "compaction" => self.tree(&p.tree, 1),
            syn::UseTree::Path(p) if depth == 1 => {
                self.modules.insert(p.ident.to_string());
            }
            syn::UseTree::Name(n) if depth == 1 => {
                self.modules.insert(n.ident.to_string());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.tree(t, depth)),
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for Siblings {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_item(item) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.tree(&item.tree, 0);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let sibling = match names.as_slice() {
            [first, module, _, ..] if first == "super" => Some(module),
            [first, compaction, module, _, ..] if first == "crate" && compaction == "compaction" => Some(module),
            _ => None,
        };
        if let Some(module) = sibling {
            self.modules.insert(module.clone());
        }
        syn::visit::visit_path(self, path);
    }
}

/// Inside `compaction/`, the same rule: no file imports one that imports it back (the guards —
/// *when* — use the compactors — *how* —, never the reverse).
#[test]
fn no_compaction_module_imports_one_that_imports_it_back() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/compaction");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
        let name = entry.file_stem().unwrap().to_string_lossy().to_string();
        if entry.extension().is_none_or(|e| e != "rs") || name == "mod" || name.ends_with("tests") {
            continue;
        }
        let mut uses = Siblings::default();
        uses.visit_file(&syn::parse_file(&std::fs::read_to_string(&entry).unwrap()).unwrap());
        graph.insert(name.clone(), uses.modules.into_iter().filter(|m| *m != name).collect());
    }
    let names: BTreeSet<String> = graph.keys().cloned().collect();
    for uses in graph.values_mut() {
        uses.retain(|u| names.contains(u));
    }
    let reaches = |from: &str, to: &str| {
        let (mut seen, mut stack) = (BTreeSet::new(), vec![from.to_string()]);
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
    assert!(graph.len() >= 15, "{graph:?}");
    let cycles: Vec<(&String, &String)> =
        graph.iter().flat_map(|(m, uses)| uses.iter().map(move |u| (m, u))).filter(|(m, u)| reaches(u, m)).collect();
    assert!(cycles.is_empty(), "compaction modules that import each other: {cycles:?}");
    assert!(reaches("guard", "compactor") && reaches("native", "compactor"), "{graph:?}");
    assert!(!reaches("compactor", "guard") && !reaches("compactor", "native"));
}
