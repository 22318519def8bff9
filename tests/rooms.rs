//! One room, one job, kept: every Rust file of the workspace's crates opens with a module doc
//! that says what it is for, and none is over 600 lines (a longer one holds several jobs).

/// The most lines a source file may have.
const MAX_LINES: usize = 600;

/// The folders whose sources are the product's and its tools'.
const ROOTS: [&str; 5] = ["shared", "functions", "local", "tests", "bench"];

#[test]
fn every_file_says_what_it_is_for_and_none_is_over_600_lines() {
    let root = leaderboard_devkit::repo_root();
    let files: Vec<_> = ROOTS
        .iter()
        .flat_map(|dir| leaderboard_devkit::rust_files(&root.join(dir)))
        .collect();
    assert!(
        files.len() > 100,
        "found only {} files under {ROOTS:?}",
        files.len()
    );
    let mut wrong = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file.strip_prefix(&root).unwrap().display();
        let lines = text.lines().count();
        if lines > MAX_LINES {
            wrong.push(format!("{shown}: {lines} lines (at most {MAX_LINES})"));
        }
        if !text.starts_with("//!") {
            wrong.push(format!("{shown}: no module doc on its first line"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
