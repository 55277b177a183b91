//! The kernel's modules import one another without cycles: integrators depend on the one-step
//! problems' interface, never the reverse, and the error type on no simulation type.
//!
//! The graph is read from the sources: a node per module of `src/` (a file, with its
//! submodules folded into it; the facades `lib.rs` and `mod.rs` left out), an edge for every
//! `crate::…` or `super::…` path outside comments and test modules. A path to an item
//! re-exported by a facade (`crate::simulation::TimeStepping`) goes to the module that defines
//! it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the kernel's sources are readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`simulation/osns/first_order.rs` →
/// `["simulation", "osns", "first_order"]`; `mod.rs` and `lib.rs` name their folder).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The node of a module path: its first two components for `simulation` and `model`, its first
/// otherwise; `None` for the facades.
fn node(path: &[String]) -> Option<String> {
    match path {
        [] => None,
        [top] if top == "simulation" || top == "model" => None,
        [top, sub, ..] if top == "simulation" || top == "model" => Some(format!("{top}::{sub}")),
        [top, ..] => Some(top.clone()),
    }
}

/// The code of a file without comments and without its test module.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Every path starting with `prefix` in `code`, with grouped imports (`use a::{b, c::d}`)
/// expanded, as lists of components.
fn paths(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut head = vec![prefix.trim_end_matches("::").to_owned()];
        let mut tail = rest;
        loop {
            let ident: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            tail = &tail[ident.len()..];
            if ident.is_empty() {
                if let Some(group) = tail.strip_prefix('{') {
                    let inner: String = group.chars().take_while(|&c| c != '}').collect();
                    for item in inner.split(',') {
                        let mut path = head.clone();
                        path.extend(item.trim().split("::").map(str::to_owned).filter(|s| !s.is_empty()));
                        out.push(path);
                    }
                }
                break;
            }
            head.push(ident);
            match tail.strip_prefix("::") {
                Some(t) => tail = t,
                None => {
                    out.push(head);
                    break;
                }
            }
        }
    }
    out
}

/// The dependency graph of the kernel's modules.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let texts: Vec<(Vec<String>, String)> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).expect("under src");
            (module_path(rel), std::fs::read_to_string(f).expect("a readable source"))
        })
        .collect();
    // Where each public item is defined.
    let mut defined: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in &texts {
        let Some(n) = node(path) else { continue };
        for line in code(text).lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            for w in words.windows(3) {
                if w[0].starts_with("pub") && ["struct", "enum", "trait", "fn", "type"].contains(&w[1]) {
                    let name: String = w[2].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    defined.entry(name).or_insert_with(|| n.clone());
                }
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in &texts {
        let Some(from) = node(path) else { continue };
        let code = code(text);
        let mut targets = Vec::new();
        for p in paths(&code, "crate::") {
            targets.push(p[1..].to_vec());
        }
        // `super` is the parent module of the file's module.
        let parent: Vec<String> = path[..path.len().saturating_sub(1)].to_vec();
        for p in paths(&code, "super::") {
            let mut full = parent.clone();
            full.extend(p[1..].iter().cloned());
            targets.push(full);
        }
        for target in targets {
            // The longest prefix that is a module with a node, else the item's module.
            let module: Vec<String> =
                target.iter().take_while(|c| c.chars().next().is_some_and(char::is_lowercase)).cloned().collect();
            let to = match node(&module) {
                Some(n) if texts.iter().any(|(p, _)| node(p).as_ref() == Some(&n)) => Some(n),
                _ => target.get(module.len()).and_then(|item| defined.get(item).cloned()),
            };
            if let Some(to) = to
                && to != from
            {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// A cycle of `graph`, if any.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_owned(), 1);
        stack.push(n.to_owned());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|s| s == m).unwrap_or(0);
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if !state.contains_key(n.as_str())
            && let Some(c) = visit(n, graph, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_kernel_modules_have_no_import_cycle() {
    let graph = graph();
    // The reading finds the edges it should (a check of the parser itself).
    let has = |a: &str, b: &str| graph.get(a).is_some_and(|s| s.contains(b));
    assert!(has("simulation::moreau_jean", "simulation::osi"), "{graph:#?}");
    assert!(has("simulation::time_stepping", "simulation::osns"), "{graph:#?}");
    assert!(has("simulation::osi", "simulation::osns"), "{graph:#?}");
    // One-step problems do not know the integrators; the error type knows no simulation type.
    for problem_side in ["simulation::osns"] {
        for integrator in ["simulation::osi", "simulation::moreau_jean", "simulation::euler_moreau"] {
            assert!(!has(problem_side, integrator), "{problem_side} depends on {integrator}");
        }
    }
    assert!(graph.get("error").is_none_or(|s| s.iter().all(|m| !m.starts_with("simulation"))), "{graph:#?}");
    // A made-up cycle is found.
    let mut cyclic = graph.clone();
    cyclic.entry("simulation::osns".into()).or_default().insert("simulation::osi".into());
    assert!(find_cycle(&cyclic).is_some());
    assert_eq!(find_cycle(&graph), None, "{graph:#?}");
}
