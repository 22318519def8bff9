//! Docs that cannot drift: every relative link in the repository's Markdown (the READMEs,
//! ARCHITECTURE.md, BENCHMARKS.md, docs/) names a file or folder that exists, inside the
//! repository (a fresh clone has nothing beside it); and the README's table of routes names
//! every operation of openapi.yaml.

use std::path::Path;
use std::process::Command;

/// The Markdown files git tracks.
fn markdown_files(root: &Path) -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "--", "*.md"])
        .current_dir(root)
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "git ls-files failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|f| !f.contains("node_modules/"))
        .map(str::to_owned)
        .collect()
}

/// `text` without its fenced code blocks and inline code spans (a link there is code).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code spans alternate with prose between backticks.
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                out.push_str(part);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the Markdown links in `text` (`[words](target "title")` -> `target`).
fn link_targets(text: &str) -> Vec<String> {
    let text = prose(text);
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let end = rest.find([')', ' ', '\n'])?;
            Some(rest[..end].to_owned())
        })
        .collect()
}

/// Whether a link target is another site's, a mail address or an anchor in the same page.
fn is_elsewhere(target: &str) -> bool {
    target.is_empty()
        || target.starts_with('#')
        || ["http://", "https://", "mailto:"]
            .iter()
            .any(|scheme| target.starts_with(scheme))
}

#[test]
fn every_relative_link_resolves_inside_the_repository() {
    let root = leaderboard_devkit::repo_root().canonicalize().unwrap();
    let files = markdown_files(&root);
    assert!(
        files.len() > 10,
        "found only {} Markdown files",
        files.len()
    );
    let mut wrong = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let dir = root.join(file).parent().unwrap().to_path_buf();
        for target in link_targets(&text) {
            if is_elsewhere(&target) {
                continue;
            }
            checked += 1;
            let path = target.split('#').next().unwrap_or_default();
            match dir.join(path).canonicalize() {
                Ok(found) if found.starts_with(&root) => {}
                Ok(_) => wrong.push(format!("{file}: {target} leaves the repository")),
                Err(_) => wrong.push(format!("{file}: {target} does not exist")),
            }
        }
    }
    assert!(checked > 20, "checked only {checked} links");
    assert!(
        wrong.is_empty(),
        "links that lead nowhere:\n{}",
        wrong.join("\n")
    );
}

/// The first cells of the README's route table (`| route | who | what |`).
fn route_cells(readme: &str) -> Vec<String> {
    let api = &readme[readme
        .find("## The HTTP API")
        .expect("the README's API section")..];
    let api = &api[..api[3..].find("\n## ").map_or(api.len(), |end| end + 3)];
    api.lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('|').nth(1).map(str::to_owned))
        .collect()
}

/// Whether a cell names `method path`: the method in the cell, the path as a code span of its
/// own or after the method (`GET /players/{p}`, `/players/{p}/scores`), a query allowed.
fn names_route(cell: &str, method: &str, path: &str) -> bool {
    cell.contains(method)
        && [format!("`{method} {path}"), format!("`{path}")]
            .iter()
            .any(|start| {
                cell.match_indices(start.as_str())
                    .any(|(at, _)| cell[at + start.len()..].starts_with(['`', '?']))
            })
}

#[test]
fn the_readmes_route_table_names_every_operation() {
    let readme =
        std::fs::read_to_string(leaderboard_devkit::repo_root().join("README.md")).unwrap();
    let cells = route_cells(&readme);
    // The README writes a path's parameters by their initials.
    let short = |path: &str| {
        [
            ("{boardId}", "{b}"),
            ("{playerId}", "{p}"),
            ("{gameId}", "{g}"),
            ("{sessionId}", "{s}"),
        ]
        .iter()
        .fold(path.to_owned(), |p, (long, short)| p.replace(long, short))
    };
    let doc = crate::support::openapi();
    let mut missing = Vec::new();
    let mut operations = 0;
    for (path, item) in doc["paths"].as_mapping().unwrap() {
        let path = short(path.as_str().unwrap());
        for method in ["get", "post", "put", "delete", "patch"] {
            if item.get(method).is_none() {
                continue;
            }
            operations += 1;
            let method = method.to_uppercase();
            if !cells.iter().any(|c| names_route(c, &method, &path)) {
                missing.push(format!("{method} {path}"));
            }
        }
    }
    assert!(operations > 20, "only {operations} operations");
    assert!(missing.is_empty(), "README's route table lacks {missing:?}");
}

#[test]
fn links_are_read_from_prose_only() {
    let text = "See [the guide](docs/a.md#top) and [site](https://x.y).\n\
                ```\nlet v = a[0](1);\n```\n`f[x](y)` and [b](../b.md \"title\")";
    assert_eq!(
        link_targets(text),
        ["docs/a.md#top", "https://x.y", "../b.md"]
    );
    assert!(is_elsewhere("#anchor") && is_elsewhere("https://x.y"));
    assert!(!is_elsewhere("docs/a.md"));
    let cell = " `GET /players/{p}`, `/players/{p}/scores`, `/leaderboards?status=` ";
    assert!(names_route(cell, "GET", "/players/{p}"));
    assert!(names_route(cell, "GET", "/players/{p}/scores"));
    assert!(names_route(cell, "GET", "/leaderboards"));
    assert!(!names_route(cell, "GET", "/players"));
    assert!(!names_route(cell, "PUT", "/players/{p}"));
}

#[test]
fn the_readme_is_a_users_page_under_350_lines() {
    let readme =
        std::fs::read_to_string(leaderboard_devkit::repo_root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 350,
        "README is {lines} lines: move design notes to docs/"
    );
}
