//! The workspace's graphs. Its import graph has no circles: in no crate do two modules reach
//! each other through their `crate::` and `super::` paths (as `leaderboard_devkit::code` reads
//! them, the store's floor test alike), so each file can be read after the ones it names; files
//! that would import each other are merged, or the part they share moves below both. And its
//! crate graph keeps the README's layers: no product crate (deployed, or an operator's tool)
//! depends on a dev crate, and `lbctl` depends on no Lambda function's crate (what it shares
//! with the projector is in `leaderboard-projection`).

use std::path::PathBuf;

use leaderboard_devkit::code::{circles, import_graph};
use serde_json::Value;

/// `cargo metadata` of the workspace's own packages.
fn metadata() -> Value {
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
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The source folder (`src/`) of each package of the workspace, by package name.
fn source_folders() -> Vec<(String, PathBuf)> {
    metadata()["packages"]
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

/// The README's layers, from its layout block (`<folder>/  <what it is>`): each package's
/// folder is listed; one marked "dev only" only develops and tests the product, one whose
/// line starts with "Lambda" is a function's. Every other is the product's (deployed, or an
/// operator's tool).
struct Layers {
    dev: Vec<String>,
    lambda: Vec<String>,
}

fn layers(packages: &[(String, PathBuf)]) -> Layers {
    let root = leaderboard_devkit::repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut layers = Layers {
        dev: Vec::new(),
        lambda: Vec::new(),
    };
    for (package, dir) in packages {
        let folder = format!("{}/", dir.strip_prefix(&root).unwrap().display());
        let what = readme
            .lines()
            .find_map(|l| l.strip_prefix(&folder).filter(|rest| rest.starts_with(' ')))
            .unwrap_or_else(|| panic!("README's layout names no {folder} ({package})"))
            .trim();
        if what.starts_with("dev only") {
            layers.dev.push(package.clone());
        } else if what.starts_with("Lambda") {
            layers.lambda.push(package.clone());
        }
    }
    layers
}

/// Each package's folder and its dependencies (not dev-dependencies) within the workspace.
fn workspace_dependencies() -> Vec<(String, PathBuf, Vec<String>)> {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().unwrap();
    let names: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null() && names.contains(&d["name"].as_str().unwrap()))
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .collect();
            let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
            let dir = manifest.parent().unwrap().to_owned();
            (p["name"].as_str().unwrap().to_owned(), dir, deps)
        })
        .collect()
}

#[test]
fn no_product_crate_depends_on_a_dev_crate_and_lbctl_on_no_lambda() {
    let packages = workspace_dependencies();
    let dirs: Vec<(String, PathBuf)> = packages
        .iter()
        .map(|(p, dir, _)| (p.clone(), dir.clone()))
        .collect();
    let layers = layers(&dirs);
    assert!(
        layers.dev.contains(&"leaderboard-devkit".to_owned()),
        "{:?}",
        layers.dev
    );
    assert!(
        layers.lambda.contains(&"stream-projector".to_owned()),
        "{:?}",
        layers.lambda
    );
    let mut wrong = Vec::new();
    for (package, _, deps) in &packages {
        let product = !layers.dev.contains(package);
        for dep in deps {
            if product && layers.dev.contains(dep) {
                wrong.push(format!("{package} (product) depends on {dep} (dev only)"));
            }
            if package == "lbctl" && layers.lambda.contains(dep) {
                wrong.push(format!("lbctl depends on the Lambda crate {dep}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
