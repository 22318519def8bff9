//! Docs that cannot drift: every relative link in the repository's Markdown (the READMEs,
//! ARCHITECTURE.md, BENCHMARKS.md, docs/) names a file or folder that exists, inside the
//! repository (a fresh clone has nothing beside it).

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
}
