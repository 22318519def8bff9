//! The workspace's import graph has no circles: in no crate do two modules reach each other
//! through their `crate::` and `super::` paths (as `leaderboard_devkit::code` reads them, the
//! store's floor test alike), so each file can be read after the ones it names. Files that
//! would import each other are merged, or the part they share moves below both.

use std::path::PathBuf;

use leaderboard_devkit::code::{circles, import_graph};
use serde_json::Value;

/// The source folder (`src/`) of each package of the workspace, by package name.
fn source_folders() -> Vec<(String, PathBuf)> {
    let root = leaderboard_devkit::repo_root();
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(&root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|package| {
            let manifest = PathBuf::from(package["manifest_path"].as_str()?);
            let src = manifest.parent()?.join("src");
            src.is_dir()
                .then(|| (package["name"].as_str().unwrap().to_owned(), src))
        })
        .collect()
}

#[test]
fn no_crate_has_modules_that_import_each_other() {
    let folders = source_folders();
    assert!(folders.len() >= 10, "{folders:?}");
    let mut found = Vec::new();
    for (package, src) in &folders {
        for circle in circles(&import_graph(src)) {
            let names: Vec<String> = circle.iter().map(|m| m.join("::")).collect();
            found.push(format!("{package}: {}", names.join(" <-> ")));
        }
    }
    assert!(
        found.is_empty(),
        "modules in a circle:\n{}",
        found.join("\n")
    );
}
