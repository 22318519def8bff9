//! The IAM check: each function's policy in `template.yaml` grants exactly the DynamoDB actions
//! its code can call, on the resources it calls them on (the table, or its indexes), no more and
//! no fewer. The code side is read from the source (`code_calls`), from the binary's `main`
//! down to the SDK's request builders, so a new request in a store method shows up here before
//! it meets AccessDenied in a deployed stack.

use crate::code_calls;

use std::collections::BTreeSet;
use std::path::PathBuf;

use code_calls::{Code, Grant};
use leaderboard_devkit::policy::Policy;
use leaderboard_devkit::repo_root;

/// The workspace libraries a function's code reaches the table through.
const LIBRARIES: &[&str] = &["shared/keys/src", "shared/store/src", "functions/http/src"];

/// Libraries read only for the functions whose crate depends on them: the code is read by
/// name, so a library's `index` would otherwise stand for every function's `index`.
const DEPENDED_ON: &[(&str, &str)] = &[("leaderboard-projection", "shared/projection/src")];

/// What a policy grants, by resource, conditions aside (the conditions are checked against
/// the requests the functions' tests send: `leaderboard_devkit::policy`).
fn grants(policy: &Policy) -> BTreeSet<Grant> {
    let mut grants = BTreeSet::new();
    for s in &policy.statements {
        for action in &s.actions {
            grants.insert((s.resource, &*action.clone().leak()));
        }
    }
    grants
}

/// The entry file of `binary` (its `main`) and the crate's other entry files: a package's
/// `src/main.rs` is the binary named like the package, `src/bin/<name>.rs` the others.
fn entry_of(binary: &str) -> (PathBuf, Vec<PathBuf>) {
    let root = repo_root().join("functions");
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        let mut entries = vec![(
            manifest.contains(&format!("name = \"{binary}\"")),
            dir.join("src/main.rs"),
        )];
        if let Ok(bins) = std::fs::read_dir(dir.join("src/bin")) {
            for bin in bins {
                let bin = bin.unwrap().path();
                let named = bin.file_stem().is_some_and(|s| s == binary);
                entries.push((named, bin));
            }
        }
        if let Some((_, entry)) = entries.iter().find(|(named, path)| *named && path.exists()) {
            let others = entries
                .iter()
                .filter(|(_, path)| path != entry)
                .map(|(_, path)| path.clone())
                .collect();
            return (entry.clone(), others);
        }
    }
    panic!("no crate builds {binary}");
}

/// The code of `binary`: its crate, less the other binaries' entry files, and the libraries.
fn code_of(binary: &str) -> Code {
    let (entry, others) = entry_of(binary);
    let src = entry
        .ancestors()
        .find(|a| a.ends_with("src"))
        .unwrap()
        .to_owned();
    let mut dirs: Vec<PathBuf> = LIBRARIES.iter().map(|l| repo_root().join(l)).collect();
    let manifest = std::fs::read_to_string(src.with_file_name("Cargo.toml")).unwrap();
    for (package, dir) in DEPENDED_ON {
        if manifest.contains(&format!("{package}.workspace")) {
            dirs.push(repo_root().join(dir));
        }
    }
    dirs.push(src);
    Code::read(&dirs, &others)
}

#[test]
fn every_policy_grants_exactly_what_its_code_calls() {
    let policies = Policy::all().unwrap();
    assert!(policies.len() >= 5, "{policies:?}");
    let mut wrong = Vec::new();
    for policy in &policies {
        let (id, binary) = (&policy.function, &policy.binary);
        let granted = grants(policy);
        let code = code_of(binary);
        let needed = code.grants_from("main");
        for grant in needed.difference(&granted) {
            let path = code.path_to("main", *grant);
            wrong.push(format!(
                "{id} ({binary}) is not granted {grant:?}, which it needs by {}",
                path.join(" -> ")
            ));
        }
        for grant in granted.difference(&needed) {
            wrong.push(format!(
                "{id} ({binary}) is granted {grant:?}, which its code never calls"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn only_the_functions_that_publish_events_may_put_them_on_the_bus() {
    let mut publishing = Vec::new();
    for policy in Policy::all().unwrap() {
        let (main, _) = entry_of(&policy.binary);
        let publishes = std::fs::read_to_string(&main)
            .unwrap()
            .contains("Publisher::from_env");
        let want: &[&str] = if publishes {
            &["events:PutEvents"]
        } else {
            &[]
        };
        assert_eq!(policy.bus_actions, want, "{}", policy.function);
        if publishes {
            publishing.push(policy.function);
        }
    }
    publishing.sort();
    assert_eq!(
        publishing,
        ["SeasonCloseFunction", "StreamProjectorFunction"]
    );
}

/// The secrets a function's code asks for at start (the `Secret::` variants its `main` names),
/// with the variable the store reads each one's ARN from and the template's secret.
fn secrets_asked_for(binary: &str) -> BTreeSet<(&'static str, &'static str)> {
    let (main, _) = entry_of(binary);
    let main = std::fs::read_to_string(&main).unwrap();
    [
        ("Secret::Cursor", "CURSOR_SECRET_ARN", "CursorSecret"),
        ("Secret::Erasure", "ERASURE_SECRET_ARN", "ErasureSecret"),
    ]
    .into_iter()
    .filter(|(variant, _, _)| main.contains(variant))
    .map(|(_, var, id)| (var, id))
    .collect()
}

#[test]
fn each_function_reads_by_arn_exactly_the_secrets_its_code_asks_for() {
    let template = std::fs::read_to_string(repo_root().join("template.yaml")).unwrap();
    // No function's environment holds a secret's value.
    let values = leaderboard_devkit::policy::secret_values_in_environments(&template).unwrap();
    assert_eq!(values, Vec::<String>::new());
    let mut given = Vec::new();
    for policy in Policy::all().unwrap() {
        let asked = secrets_asked_for(&policy.binary);
        let arns: BTreeSet<(&str, &str)> = policy
            .secret_arns
            .iter()
            .map(|(var, id)| (var.as_str(), id.as_str()))
            .collect();
        assert_eq!(
            arns, asked,
            "{}: the ARNs in its environment",
            policy.function
        );
        let readable: BTreeSet<&str> = policy.secrets.iter().map(String::as_str).collect();
        let needed: BTreeSet<&str> = asked.iter().map(|(_, id)| *id).collect();
        assert_eq!(
            readable, needed,
            "{}: the secrets it may read",
            policy.function
        );
        given.push((policy.function.clone(), needed.len()));
    }
    given.sort();
    // The anonymous reads function has no erasure key; the writes function has both keys.
    assert_eq!(
        given,
        [
            ("LeaderboardApiFunction".to_owned(), 1),
            ("LeaderboardWritesFunction".to_owned(), 2),
            ("SeasonCloseFunction".to_owned(), 1),
            ("StreamProjectorFunction".to_owned(), 1),
            ("SubmitScoreFunction".to_owned(), 1),
        ]
    );
    assert!(secrets_asked_for("leaderboard-api").contains(&("CURSOR_SECRET_ARN", "CursorSecret")));

    // The check sees a value put back into an environment, as the template once had it.
    let resolved = template.replacen(
        "        TABLE_NAME: !Ref LeaderboardTable\n",
        "        TABLE_NAME: !Ref LeaderboardTable\n        ERASURE_SECRET: !Sub \"{{resolve:secretsmanager:${ErasureSecret}:SecretString}}\"\n",
        1,
    );
    assert_ne!(resolved, template);
    let values = leaderboard_devkit::policy::secret_values_in_environments(&resolved).unwrap();
    assert_eq!(values, ["Globals.ERASURE_SECRET"]);
}

#[test]
fn the_reading_of_code_follows_calls_to_the_sdk_and_nothing_else() {
    let mut code = Code::default();
    code.add_source(
        r#"
        fn main() { let app = App::new(); helper(&app); tokio::join!(app.listed(), app.other()); }
        fn helper(app: &App) { app.client.put_item().send(); }
        impl Store {
            fn listed(&self) { self.query_request(Index::Gsi1); }
            fn query_request(&self, i: Index) { self.client.query().index_name(i.name()); }
            fn unreached(&self) { self.client.delete_item(); }
            fn name(self) -> &str { match self { Index::Gsi2 => "gsi2", Index::Table => "" } }
            fn tx(&self) { Update::builder(); }
        }
        #[cfg(test)]
        mod tests { fn other() { client.batch_write_item(); } }
        "#,
    );
    let grants = code.grants_from("main");
    assert_eq!(
        grants,
        BTreeSet::from([("table", "dynamodb:PutItem"), ("index", "dynamodb:Query")])
    );
    assert_eq!(
        code.path_to("main", ("index", "dynamodb:Query")),
        ["main", "listed"]
    );
}
