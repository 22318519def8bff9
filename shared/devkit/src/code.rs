//! The workspace's code as the tests that read it see it: a source with its comments and
//! string literals blanked out, a crate's modules and the modules each one's paths name (its
//! import graph), and the circles in that graph. The store's floor test and the workspace's
//! graph test read the code through this, so they read it alike.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path below its crate's root (`["features", "plays", "ranks"]`; empty: the root).
pub type ModulePath = Vec<String>;

/// Each module of a crate and the other modules its paths name.
pub type ImportGraph = BTreeMap<ModulePath, BTreeSet<ModulePath>>;

/// `code` with every comment and string literal's contents replaced by spaces (raw strings
/// too), so that neither a doc comment's words nor a format string's braces count as code.
pub fn without_comments_and_strings(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let after_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == 'r' && !after_ident && matches!(next, Some('#' | '"')) {
            // A raw string: r"..." or r#"..."#, closed by a quote and as many hashes.
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push_str("r\"");
            i += 2 + hashes;
            let closes = |at: usize| {
                chars[at] == '"' && (1..=hashes).all(|h| chars.get(at + h) == Some(&'#'))
            };
            while i < chars.len() && !closes(i) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push('"');
            i += 1 + hashes;
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(chars.get(i).copied().map_or(' ', blank));
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && next.is_some() && chars.get(i + 2) == Some(&'\'') {
            // A char literal such as '{' (a lifetime has no closing quote).
            out.push_str("' '");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The module path of a source file below `src/` (`features/plays/mod.rs` is
/// `features::plays`; `lib.rs` and `main.rs` are the root).
pub fn module_of(file: &Path) -> ModulePath {
    let mut module: ModulePath = file
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if module
        .last()
        .is_some_and(|m| ["mod", "lib", "main"].contains(&m.as_str()))
    {
        module.pop();
    }
    module
}

/// The import graph of the crate whose sources are below `src`: for each module, the other
/// modules that its `crate::` and `super::` paths name (the longest prefix of the path that is
/// a module), leaving out its own ancestors (a child naming its parent's items closes no
/// circle a reader follows) and its own descendants.
pub fn import_graph(src: &Path) -> ImportGraph {
    let sources: BTreeMap<ModulePath, String> = crate::rust_files(src)
        .into_iter()
        .map(|path| {
            let code = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            let module = module_of(path.strip_prefix(src).unwrap());
            (module, without_comments_and_strings(&code))
        })
        .collect();
    let mut graph = ImportGraph::new();
    for (module, code) in &sources {
        let targets = graph.entry(module.clone()).or_default();
        for path in paths_in(code, module) {
            let named = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|prefix| sources.contains_key(prefix));
            if let Some(target) = named
                && !module.starts_with(&target)
                && !target.starts_with(module)
            {
                targets.insert(target);
            }
        }
    }
    graph
}

/// The absolute module paths of the `crate::` and `super::` paths in `code`, the code of
/// `module` (a path's segments as far as they are lower-case names).
fn paths_in(code: &str, module: &[String]) -> Vec<ModulePath> {
    let mut paths = paths_after(code, module, "crate::");
    paths.extend(paths_after(code, module, "super::"));
    paths
}

/// The absolute module paths of the paths in `code` (the code of `module`) that begin with
/// `start`, `crate::` or `super::`.
pub fn paths_after(code: &str, module: &[String], start: &str) -> Vec<ModulePath> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices(start) {
        if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if start == "super::" && code[..at].ends_with("::") {
            continue; // the second `super` of `super::super::`, read with the first
        }
        let mut path: ModulePath = match start {
            "crate::" => Vec::new(),
            _ => module[..module.len().saturating_sub(1)].to_vec(),
        };
        let rest = &code[at + start.len()..];
        for segment in rest.split("::") {
            let name: String = segment
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() || !name.starts_with(|c: char| c.is_lowercase()) {
                break;
            }
            if name == "super" {
                path.pop();
            } else {
                path.push(name);
            }
            if !segment.chars().all(|c| c.is_alphanumeric() || c == '_') {
                break;
            }
        }
        paths.push(path);
    }
    paths
}

/// The circles of `graph`: each set of two or more modules that reach each other (a strongly
/// connected component), its modules sorted.
pub fn circles(graph: &ImportGraph) -> Vec<Vec<ModulePath>> {
    // Tarjan's algorithm, iterative so that no graph's depth can overflow the stack.
    let nodes: Vec<&ModulePath> = graph.keys().collect();
    let index_of: BTreeMap<&ModulePath, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            graph[*n]
                .iter()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let (mut index, mut low, mut on_stack) = (
        vec![usize::MAX; nodes.len()],
        vec![0; nodes.len()],
        vec![false; nodes.len()],
    );
    let (mut stack, mut found, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..nodes.len() {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*edge) {
                *edge += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    found.push(component);
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(path: &str) -> ModulePath {
        path.split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn paths_name_modules_from_the_root_or_the_parent() {
        let code = without_comments_and_strings(
            "use crate::a::b::{C, d};\n// crate::x::y\nlet s = r#\"crate::z \"# ;\n\
             use super::sibling::Thing; use super::super::up; fn f() { crate::q::r(); }",
        );
        let paths = paths_in(&code, &m("p::me"));
        assert_eq!(
            paths,
            vec![m("a::b"), m("q::r"), m("p::sibling"), m("up")],
            "{code}"
        );
    }

    #[test]
    fn circles_are_the_modules_that_reach_each_other() {
        let mut graph = ImportGraph::new();
        for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")] {
            graph.entry(m(from)).or_default().insert(m(to));
            graph.entry(m(to)).or_default();
        }
        assert_eq!(circles(&graph), vec![vec![m("a"), m("b"), m("c")]]);
        graph.get_mut(&m("e")).unwrap().insert(m("d"));
        assert_eq!(circles(&graph).len(), 2);
        graph.get_mut(&m("c")).unwrap().remove(&m("a"));
        assert_eq!(circles(&graph), vec![vec![m("d"), m("e")]]);
    }
}
