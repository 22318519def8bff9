//! The DynamoDB actions a function's code can call, read from its Rust source: every function
//! reachable from the binary's `main`, through the workspace libraries, down to the SDK's
//! request builders.
//!
//! Functions are matched by name, not by type: a call of `x.put_all(..)` reaches every function
//! named `put_all`. So the answer can only be too large, never too small, and a name shared by
//! a function that writes and one that does not shows up as a grant the policy lacks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::Visit;

/// An IAM grant: (`table` or `index`, the action, e.g. `dynamodb:GetItem`).
pub type Grant = (&'static str, &'static str);

/// What one function body does.
#[derive(Debug, Default, Clone)]
struct Facts {
    /// Names it calls or refers to (a function passed as a value too).
    calls: BTreeSet<String>,
    /// The grants its own requests need.
    grants: BTreeSet<Grant>,
    /// Whether it queries the table (`Index::Table`) or an index (`Index::Gsi*`).
    table: bool,
    indexes: bool,
    /// Whether it sends a Query.
    query: bool,
}

impl Facts {
    fn merge(&mut self, other: &Facts) {
        self.calls.extend(other.calls.iter().cloned());
        self.grants.extend(other.grants.iter().copied());
        self.table |= other.table;
        self.indexes |= other.indexes;
        self.query |= other.query;
    }
}

/// The SDK client's operations and the IAM action each needs on the table.
const CLIENT_OPERATIONS: &[(&str, &str)] = &[
    ("get_item", "dynamodb:GetItem"),
    ("put_item", "dynamodb:PutItem"),
    ("update_item", "dynamodb:UpdateItem"),
    ("delete_item", "dynamodb:DeleteItem"),
    ("batch_get_item", "dynamodb:BatchGetItem"),
    ("batch_write_item", "dynamodb:BatchWriteItem"),
    ("scan", "dynamodb:Scan"),
];

/// The items of a transaction, which IAM authorises one action each (a transaction has no
/// action of its own).
const TRANSACTION_ITEMS: &[(&str, &str)] = &[
    ("Get", "dynamodb:GetItem"),
    ("Put", "dynamodb:PutItem"),
    ("Update", "dynamodb:UpdateItem"),
    ("Delete", "dynamodb:DeleteItem"),
    ("ConditionCheck", "dynamodb:ConditionCheckItem"),
];

/// Every function body in some source files, by name.
#[derive(Debug, Default)]
pub struct Code {
    functions: BTreeMap<String, Facts>,
}

impl Code {
    /// Reads every `.rs` file under `dirs`, leaving out `#[cfg(test)]` modules and the files
    /// in `skip` (other binaries' entry points).
    pub fn read(dirs: &[PathBuf], skip: &[PathBuf]) -> Code {
        let mut code = Code::default();
        for dir in dirs {
            for file in leaderboard_devkit::rust_files(dir) {
                if !skip.contains(&file) {
                    code.add_file(&file);
                }
            }
        }
        code
    }

    /// Adds one file's functions.
    pub fn add_file(&mut self, file: &Path) {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        self.add_source(&text);
    }

    /// Adds the functions of one file's text.
    pub fn add_source(&mut self, text: &str) {
        let parsed = syn::parse_file(text).unwrap_or_else(|e| panic!("{e}"));
        let mut reader = Reader {
            code: self,
            current: Vec::new(),
        };
        reader.visit_file(&parsed);
    }

    /// The grants needed by everything reachable from the function `entry`.
    pub fn grants_from(&self, entry: &str) -> BTreeSet<Grant> {
        let mut seen = BTreeSet::from([entry.to_owned()]);
        let mut waiting = vec![entry.to_owned()];
        let mut all = Facts::default();
        while let Some(name) = waiting.pop() {
            let Some(facts) = self.functions.get(&name) else {
                continue;
            };
            all.merge(facts);
            for call in &facts.calls {
                if seen.insert(call.clone()) {
                    waiting.push(call.clone());
                }
            }
        }
        let mut grants = all.grants;
        if all.query && all.table {
            grants.insert(("table", "dynamodb:Query"));
        }
        if all.query && all.indexes {
            grants.insert(("index", "dynamodb:Query"));
        }
        grants
    }
}

impl Code {
    /// How `entry` reaches a function that needs `grant` (its own request, or its mention of
    /// the table or an index for a Query): the names called, for a check's message.
    pub fn path_to(&self, entry: &str, grant: Grant) -> Vec<String> {
        let needs = |f: &Facts| match grant {
            ("table", "dynamodb:Query") => f.table,
            ("index", "dynamodb:Query") => f.indexes,
            _ => f.grants.contains(&grant),
        };
        let mut parent: BTreeMap<String, String> = BTreeMap::new();
        let mut waiting = std::collections::VecDeque::from([entry.to_owned()]);
        while let Some(name) = waiting.pop_front() {
            let Some(facts) = self.functions.get(&name) else {
                continue;
            };
            if needs(facts) {
                let mut path = vec![name.clone()];
                while let Some(p) = parent.get(path.last().unwrap()) {
                    path.push(p.clone());
                }
                path.reverse();
                return path;
            }
            for call in &facts.calls {
                if call != entry && !parent.contains_key(call) {
                    parent.insert(call.clone(), name.clone());
                    waiting.push_back(call.clone());
                }
            }
        }
        Vec::new()
    }
}

struct Reader<'a> {
    code: &'a mut Code,
    /// The functions being read, innermost last.
    current: Vec<String>,
}

impl Reader<'_> {
    fn facts(&mut self) -> Option<&mut Facts> {
        let name = self.current.last()?.clone();
        Some(self.code.functions.entry(name).or_default())
    }

    fn in_function(&mut self, name: String, read: impl FnOnce(&mut Self)) {
        self.code.functions.entry(name.clone()).or_default();
        self.current.push(name);
        read(self);
        self.current.pop();
    }
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test_only(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test_only(&f.attrs) {
            self.in_function(f.sig.ident.to_string(), |r| syn::visit::visit_item_fn(r, f));
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.in_function(f.sig.ident.to_string(), |r| {
            syn::visit::visit_impl_item_fn(r, f)
        });
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.in_function(f.sig.ident.to_string(), |r| {
            syn::visit::visit_trait_item_fn(r, f)
        });
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let method = call.method.to_string();
        if let Some(facts) = self.facts() {
            if let Some((_, action)) = CLIENT_OPERATIONS.iter().find(|(op, _)| *op == method) {
                facts.grants.insert(("table", action));
            }
            facts.query |= method == "query";
            facts.calls.insert(method);
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let Some(facts) = self.facts() {
            if let [.., kind, last] = segments.as_slice() {
                let item = TRANSACTION_ITEMS.iter().find(|(k, _)| k == kind);
                if let (Some((_, action)), "builder") = (item, last.as_str()) {
                    facts.grants.insert(("table", action));
                }
                if kind == "Index" {
                    facts.table |= last == "Table";
                    facts.indexes |= last.starts_with("Gsi");
                }
            }
            if let Some(last) = segments.last() {
                facts.calls.insert(last.clone());
            }
        }
        syn::visit::visit_expr_path(self, path);
    }

    /// Patterns call nothing: a `match` on `Index::Gsi1` does not query the index.
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}

    /// A macro's arguments, where they are expressions (`tokio::join!`, `format!`), are read
    /// like any other code; other macros (logging fields) hold no calls that matter.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
            for arg in &args {
                <Self as Visit<'_>>::visit_expr(self, arg);
            }
        }
    }
}
