//! The store's floors (see the crate documentation) as a test: it reads the crate's sources
//! and fails when a module reaches sideways or up.
//!
//! - Every `crate::` path names a module on a floor below the file's own, or on its own floor
//!   below the features, or in its own feature; no path climbs with `super::super`.
//! - `impl Table` blocks live on the table, primitives and rank floors only, `impl Rank` (the
//!   rank index's handle) on the rank floor, `impl Store` blocks in `store.rs` and the
//!   features only (a feature's holds one method, the one that gives its handle), and
//!   `lib.rs` holds module declarations and re-exports.
//! - A method is called only from where its module may be used: no feature calls a method
//!   another feature hangs on `Store` or on its handle (`impl Close<'_>`), and no floor below
//!   the primitives (or the rank floor) calls a method they add. (A method call needs no
//!   import, so the paths alone would not show it.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use leaderboard_devkit::code::{module_of, paths_after, without_comments_and_strings};

/// The floors, bottom up.
const FLOORS: [&str; 6] = ["ground", "table", "primitives", "rank", "store", "features"];

/// One source file of the crate.
struct Source {
    /// The file, relative to `src/`.
    file: String,
    /// Its module path below the crate root (`features::plays::ranks`).
    module: Vec<String>,
    /// Its text with comments and string literals blanked out.
    code: String,
}

impl Source {
    fn floor(&self) -> usize {
        floor_of(&self.module[0])
    }

    /// The feature a features-floor module belongs to (`plays` for `features::plays::ranks`).
    fn group(&self) -> String {
        group_of(&self.module)
    }
}

fn floor_of(first: &str) -> usize {
    FLOORS
        .iter()
        .position(|f| *f == first)
        .unwrap_or_else(|| panic!("`{first}` is not a floor: add it to FLOORS and the crate doc"))
}

fn group_of(module: &[String]) -> String {
    if module[0] == "features" {
        module.get(1).cloned().unwrap_or_default()
    } else {
        module[0].clone()
    }
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    leaderboard_devkit::rust_files(&src)
        .into_iter()
        .map(|path| {
            let file = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let module = module_of(Path::new(&file));
            let code = without_comments_and_strings(&std::fs::read_to_string(&path).unwrap());
            Source { file, module, code }
        })
        .collect()
}

/// The module paths after each `crate::` in `code`, as far as they name modules
/// (`crate::ground::model::Board` -> `[ground, model]`; `crate::{a, b}` is refused: a floor
/// is named in every path).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let path: Vec<String> = rest
            .split("::")
            .map(|seg| {
                seg.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                    .collect::<String>()
            })
            .take_while(|seg| seg.starts_with(|c: char| c.is_lowercase() || c == '{'))
            .collect();
        paths.push(path);
    }
    paths
}

/// The names of the methods defined in `code`'s `impl <ty> {` blocks.
fn methods_of(code: &str, ty: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let opening = format!("impl {ty} {{");
    for (at, _) in code.match_indices(&opening) {
        let body = &code[at + opening.len()..];
        let mut depth = 1;
        let mut end = body.len();
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        for (i, _) in body[..end].match_indices("fn ") {
            let name: String = body[i + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.insert(name);
        }
    }
    names
}

/// The types `code` implements as handles on the store (`impl Close<'_> {` -> `Close`).
fn handles_in(code: &str) -> BTreeSet<String> {
    code.match_indices("impl ")
        .filter_map(|(at, _)| {
            let name: String = code[at + 5..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let opens = code[at + 5 + name.len()..].starts_with("<'_> {");
            (opens && name.starts_with(|c: char| c.is_uppercase())).then_some(name)
        })
        .collect()
}

/// Whether `code` calls a method `name` (`.name(`, across line breaks).
fn calls(code: &str, name: &str) -> bool {
    let needle = format!(".{name}");
    code.match_indices(&needle).any(|(at, _)| {
        let after = &code[at + needle.len()..];
        let before_ok = !code[..at].ends_with('.');
        let rest = after.trim_start_matches(|c: char| c.is_whitespace());
        before_ok
            && (rest.starts_with('(') || rest.starts_with("::<"))
            && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })
}

/// Whether `source` may name the module `path`: one on a floor below its own, on its own floor
/// below the features, or in its own feature.
fn may_reach(source: &Source, path: &[String]) -> bool {
    let (from, to) = (source.floor(), floor_of(&path[0]));
    to < from
        || to == from && from < floor_of("features")
        || to == from && group_of(path) == source.group()
}

#[test]
fn every_path_reaches_down_or_within_its_own_floor_or_feature() {
    let mut wrong = Vec::new();
    for source in sources().iter().filter(|s| !s.module.is_empty()) {
        for path in crate_paths(&source.code) {
            let Some(first) = path.first() else {
                wrong.push(format!(
                    "{}: a `crate::` path that names no module",
                    source.file
                ));
                continue;
            };
            if first.starts_with('{') {
                wrong.push(format!(
                    "{}: `crate::{}` does not name a floor's module",
                    source.file,
                    path.join("::")
                ));
                continue;
            }
            if !may_reach(source, &path) {
                wrong.push(format!(
                    "{} (floor {}, {}) uses crate::{}",
                    source.file,
                    FLOORS[source.floor()],
                    source.group(),
                    path.join("::")
                ));
            }
        }
    }
    // A `super::` path reaches where a `crate::` path would: the same rules hold (a path to
    // the module's own ancestors is its own room, as a test module's `super::*` is).
    for source in sources().iter().filter(|s| !s.module.is_empty()) {
        for path in paths_after(&source.code, &source.module, "super::") {
            if path.is_empty() || source.module.starts_with(&path) {
                continue;
            }
            if !may_reach(source, &path) {
                wrong.push(format!(
                    "{} reaches {} sideways or up",
                    source.file,
                    path.join("::")
                ));
            }
        }
    }
    // A relative path past the parent could reach another floor unseen: name the floor.
    for source in sources() {
        if source.code.contains("super::super") {
            wrong.push(format!(
                "{}: `super::super` (write `crate::<floor>::...`)",
                source.file
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "paths that reach sideways or up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn methods_hang_on_their_floors_type_and_lib_only_declares() {
    let mut wrong = Vec::new();
    for source in sources() {
        if source.module.is_empty() {
            let code: String = source
                .code
                .lines()
                .filter(|l| !l.trim_start().starts_with("#!["))
                .collect::<Vec<_>>()
                .join("\n");
            for statement in code.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                let declares = ["mod ", "pub mod ", "pub use "]
                    .iter()
                    .any(|start| statement.starts_with(start));
                if !declares {
                    wrong.push(format!(
                        "lib.rs holds more than declarations: `{statement}`"
                    ));
                }
            }
            continue;
        }
        let floor = FLOORS[source.floor()];
        if source.code.contains("impl Table {") && !["table", "primitives", "rank"].contains(&floor)
        {
            wrong.push(format!(
                "{}: `impl Table` above the rank floor",
                source.file
            ));
        }
        if source.code.contains("impl Rank<'_> {") && floor != "rank" {
            wrong.push(format!("{}: `impl Rank` off the rank floor", source.file));
        }
        let on_store = methods_of(&source.code, "Store");
        if floor == "features" && on_store.len() > 1 {
            wrong.push(format!(
                "{}: a feature adds one method to `Store`, its handle's: {on_store:?}",
                source.file
            ));
        }
        if source.code.contains("impl Store {") && !["store", "features"].contains(&floor) {
            wrong.push(format!(
                "{}: `impl Store` below the store floor",
                source.file
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_feature_calls_another_and_the_table_calls_no_primitive() {
    let sources = sources();
    let table_methods: BTreeSet<String> = sources
        .iter()
        .filter(|s| s.module.first().is_some_and(|m| m == "table"))
        .flat_map(|s| methods_of(&s.code, "Table"))
        .collect();
    // Methods by the room that defines them: each feature's on Store, the primitives' on
    // Table, the rank floor's on Table and Rank. A name defined in two rooms, or also on the table floor, says nothing.
    let mut owners: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in sources.iter().filter(|s| !s.module.is_empty()) {
        let methods = match FLOORS[s.floor()] {
            "features" => {
                let mut all = methods_of(&s.code, "Store");
                for handle in handles_in(&s.code) {
                    all.extend(methods_of(&s.code, &format!("{handle}<'_>")));
                }
                all
            }
            "primitives" => methods_of(&s.code, "Table"),
            "rank" => {
                let mut both = methods_of(&s.code, "Table");
                both.extend(methods_of(&s.code, "Rank<'_>"));
                both
            }
            _ => continue,
        };
        for m in methods {
            owners.entry(m).or_default().insert(s.group());
        }
    }
    let mut wrong = Vec::new();
    for (method, rooms) in owners
        .iter()
        .filter(|(m, r)| r.len() == 1 && !table_methods.contains(*m))
    {
        let room = rooms.first().unwrap();
        for s in sources.iter().filter(|s| !s.module.is_empty()) {
            let floor = FLOORS[s.floor()];
            let may_call = if room == "primitives" || room == "rank" {
                floor_of(floor) >= floor_of(room)
            } else {
                floor == "features" && s.group() == *room
            };
            if !may_call && calls(&s.code, method) {
                wrong.push(format!("{} calls `{method}` of {room}", s.file));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "calls sideways or up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_look_for() {
    let code = without_comments_and_strings(
        "use crate::ground::model::Board; // crate::features::x\nlet s = \"{ crate::a::b\";\n\
         impl Store {\n    pub(crate) async fn top_scores(&self) { if x { y() } }\n}\n\
         self\n    .top_scores(1); self.top_scores_of(2);",
    );
    assert_eq!(
        crate_paths(&code),
        vec![vec!["ground".to_owned(), "model".to_owned()]]
    );
    assert_eq!(
        methods_of(&code, "Store"),
        BTreeSet::from(["top_scores".to_owned()])
    );
    assert!(calls(&code, "top_scores"));
    assert_eq!(
        handles_in("impl Close<'_> {\n} impl<'a> X<'a> { } impl Rank<'_> {"),
        BTreeSet::from(["Close".to_owned(), "Rank".to_owned()])
    );
    assert!(!calls("self.top_scores_of(2)", "top_scores"));
    assert!(!calls("self.top_scores", "top_scores"));
}

/// The crate doc's floor table lists each floor's modules: exactly the modules there are.
#[test]
fn the_crate_docs_floor_table_names_every_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut wrong = Vec::new();
    for floor in FLOORS {
        let row = lib
            .lines()
            .find(|l| {
                l.starts_with("//! | ")
                    && l.split('|')
                        .nth(1)
                        .is_some_and(|c| c.trim().ends_with(floor))
            })
            .unwrap_or_else(|| panic!("lib.rs's floor table has no row for {floor}"));
        let listed: BTreeSet<String> = row
            .split('|')
            .nth(2)
            .unwrap()
            .split(',')
            .map(|name| {
                name.trim()
                    .trim_matches(|c| c == '[' || c == ']' || c == '`')
                    .to_owned()
            })
            .filter(|name| name.starts_with(|c: char| c.is_lowercase()))
            .collect();
        let there: BTreeSet<String> = if floor == "store" {
            BTreeSet::from(["store".to_owned()])
        } else {
            std::fs::read_dir(src.join(floor))
                .unwrap()
                .map(|e| e.unwrap().path())
                .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
                .filter(|name| name != "mod")
                .collect()
        };
        if listed != there {
            wrong.push(format!(
                "{floor}: lib.rs lists {listed:?}, the floor holds {there:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
