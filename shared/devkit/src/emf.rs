//! The functions' metrics twice: as the "Metrics" table of docs/operating.md documents them, and as their
//! Embedded Metric Format lines declare them. Each function's metrics test compares the two, and
//! the alarms' check reads the table.

use std::collections::BTreeSet;

use serde_json::Value;

/// A metric and the dimensions it is published under, joined with `", "`
/// (`("Invocations", "FunctionName, Outcome")`).
pub type Published = (String, String);

/// The CloudWatch namespace docs/operating.md documents, and the functions write to.
pub const NAMESPACE: &str = "Leaderboard";

/// The metrics table of docs/operating.md: the rows of `function` and of "every function". With `None`,
/// every row.
pub fn documented(function: Option<&str>) -> BTreeSet<Published> {
    let guide = std::fs::read_to_string(crate::repo_root().join("docs/operating.md"))
        .expect("docs/operating.md");
    let table = guide
        .split_once("\n## Metrics\n")
        .expect("docs/operating.md has a Metrics section")
        .1;
    table
        .lines()
        .skip_while(|line| !line.starts_with("| function |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let (owner, metric, dimensions) = (cells[1], cells[2], cells[3]);
            let wanted = match function {
                None => true,
                Some(f) => owner == f || owner == "every function",
            };
            wanted.then(|| (metric.trim_matches('`').to_owned(), dimensions.to_owned()))
        })
        .collect()
}

/// What EMF lines declare, over all of them. Panics, naming the line, on a line outside the
/// [`NAMESPACE`], or one whose dimension is missing or not a string.
pub fn emitted(lines: &[Value]) -> BTreeSet<Published> {
    let mut published = BTreeSet::new();
    for line in lines {
        let directives = line["_aws"]["CloudWatchMetrics"]
            .as_array()
            .unwrap_or_else(|| panic!("not an EMF line: {line}"));
        for directive in directives {
            assert_eq!(directive["Namespace"], NAMESPACE, "{line}");
            let names: Vec<&str> = directive["Metrics"]
                .as_array()
                .unwrap_or_else(|| panic!("no metrics: {line}"))
                .iter()
                .map(|m| m["Name"].as_str().expect("a metric's name"))
                .collect();
            for set in directive["Dimensions"].as_array().expect("dimension sets") {
                let set: Vec<&str> = set
                    .as_array()
                    .expect("a dimension set")
                    .iter()
                    .map(|d| d.as_str().expect("a dimension's name"))
                    .collect();
                for d in &set {
                    assert!(line[*d].is_string(), "dimension {d} has no value: {line}");
                }
                for name in &names {
                    published.insert(((*name).to_owned(), set.join(", ")));
                }
            }
        }
    }
    published
}

/// The integer metric `name` of every entry, in order. Panics, naming the entry, where it is
/// missing.
pub fn column(entries: &[&Value], name: &str) -> Vec<u64> {
    entries
        .iter()
        .map(|e| e[name].as_u64().unwrap_or_else(|| panic!("{name}: {e}")))
        .collect()
}

/// A function's lines, parsed, once checked: none names any of `ids` (players, sessions,
/// boards the test used), and together they declare exactly the rows of docs/operating.md of `function`.
pub fn checked(lines: &[String], ids: &[&str], function: &str) -> Vec<Value> {
    for line in lines {
        for id in ids {
            assert!(!line.contains(id), "{id} in {line}");
        }
    }
    let entries: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert_eq!(emitted(&entries), documented(Some(function)), "{function}");
    entries
}
