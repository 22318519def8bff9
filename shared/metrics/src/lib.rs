//! The functions' metrics (docs/operating.md "Metrics"): each invocation is one unit of work, written as one
//! CloudWatch Embedded Metric Format (EMF) line on standard output. Lambda ships standard output
//! to the function's log group, and CloudWatch turns each line into metrics in the [`NAMESPACE`]
//! namespace. Each function declares its entry with metrique's `#[metrics]`, with its dimension
//! sets; every dimension is the function's name or a value from a fixed list (a route, an error
//! code), never a player's or a board's id, so the number of metrics stays bounded.
//!
//! The line is written by the invocation itself, before it answers: a background queue could be
//! frozen with the Lambda environment before it flushed, and there is nothing to start at init.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use metrique::emf::Emf;
use metrique::unit_of_work::metrics;
use metrique::writer::format::Format;
use metrique::{CloseValue, InflectableEntry, RootEntry};

/// The CloudWatch namespace of every function's metrics.
pub const NAMESPACE: &str = "Leaderboard";

/// Lambda's name for the function (`AWS_LAMBDA_FUNCTION_NAME`), read once per process; `None`
/// off Lambda.
static LAMBDA_NAME: LazyLock<Option<String>> = LazyLock::new(|| {
    std::env::var("AWS_LAMBDA_FUNCTION_NAME")
        .ok()
        .filter(|name| !name.is_empty())
});

/// The function's name as Lambda gives it (the stack's own name for it, so two stacks in one
/// account keep their metrics apart), or `local` off Lambda.
pub fn function_name(local: &str) -> String {
    LAMBDA_NAME.as_deref().unwrap_or(local).to_owned()
}

/// Where a function's metric lines go: standard output, or (in tests) a list to read back.
#[derive(Clone)]
pub struct Sink {
    out: Out,
    started: Arc<AtomicBool>,
}

#[derive(Clone)]
enum Out {
    Stdout,
    /// Formatted, then dropped: off Lambda, unless asked for.
    Dropped,
    Recorded(Recorded),
}

/// Set to `stdout` to see the lines off Lambda (the local stack, a test run).
pub const METRICS_ENV: &str = "LEADERBOARD_METRICS";

/// The lines a recording [`Sink`] was given, in order.
#[derive(Clone, Default)]
pub struct Recorded(Arc<Mutex<Vec<String>>>);

impl Recorded {
    /// Every line so far. A line that could not be formatted is recorded as
    /// `invalid metrics entry: ...`, which is not JSON.
    pub fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Every line so far, parsed. Panics on a line that is not JSON (tests only).
    pub fn entries(&self) -> Vec<serde_json::Value> {
        self.lines()
            .iter()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect()
    }
}

impl Sink {
    /// Standard output: what Lambda ships to CloudWatch. One per process, so that its
    /// [`cold_start`](Sink::cold_start) is the Lambda environment's. Off Lambda (no
    /// `AWS_LAMBDA_FUNCTION_NAME`) the lines are formatted and dropped unless [`METRICS_ENV`]
    /// is `stdout`: the tests and the local stack would print two lines a request.
    pub fn stdout() -> Sink {
        static STDOUT: LazyLock<Sink> = LazyLock::new(|| {
            let on_lambda = LAMBDA_NAME.is_some();
            let asked = std::env::var(METRICS_ENV).is_ok_and(|v| v == "stdout");
            Sink {
                out: if on_lambda || asked {
                    Out::Stdout
                } else {
                    Out::Dropped
                },
                started: Arc::default(),
            }
        });
        STDOUT.clone()
    }

    /// A sink that keeps its lines, and the handle to read them.
    pub fn recording() -> (Sink, Recorded) {
        let recorded = Recorded::default();
        let sink = Sink {
            out: Out::Recorded(recorded.clone()),
            started: Arc::default(),
        };
        (sink, recorded)
    }

    /// 1 for the first invocation through this sink (standard output's is the process's: the
    /// Lambda environment's cold start), 0 after.
    pub fn cold_start(&self) -> u64 {
        u64::from(!self.started.swap(true, Ordering::Relaxed))
    }

    /// Writes `metrics` as one EMF line. A line that does not format (a dimension missing, two
    /// fields with one name: a program error, which the functions' tests catch, as debug builds
    /// validate every line) is logged and dropped; it never fails the invocation.
    pub fn emit<M>(&self, metrics: M)
    where
        M: CloseValue,
        M::Closed: InflectableEntry,
    {
        let entry = RootEntry::new(metrics.close());
        let mut line = Vec::with_capacity(1024);
        let formatted = Emf::builder(NAMESPACE.to_owned(), vec![vec![]])
            .build()
            .format(&entry, &mut line);
        match (formatted, &self.out) {
            (Ok(()), Out::Stdout) => {
                // A write to a closed standard output is lost either way.
                let _ = std::io::stdout().lock().write_all(&line);
            }
            (Ok(()), Out::Dropped) => {}
            (Ok(()), Out::Recorded(recorded)) => {
                recorded.push(String::from_utf8_lossy(&line).trim().into())
            }
            (Err(e), Out::Recorded(recorded)) => {
                recorded.push(format!("invalid metrics entry: {e}"))
            }
            (Err(e), _) => tracing::warn!(error = %e, "metrics entry dropped"),
        }
    }
}

/// The one metric with an outcome dimension, `Invocations` by `FunctionName` and `Outcome`,
/// written beside each function's own entry (whose metrics are by `FunctionName` alone, so their
/// count does not grow with the list of outcomes).
#[metrics(
    rename_all = "PascalCase",
    emf::dimension_sets = [["FunctionName", "Outcome"]]
)]
struct Invocation<'a> {
    function_name: &'a str,
    outcome: &'static str,
    invocations: u64,
}

impl Sink {
    /// Counts one invocation of `function_name` that ended in `outcome` (a word from the
    /// function's fixed list: `accepted`, an error code, ...).
    pub fn count_outcome(&self, function_name: &str, outcome: &'static str) {
        self.emit(Invocation {
            function_name,
            outcome,
            invocations: 1,
        });
    }
}

impl Recorded {
    fn push(&self, line: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[metrics(rename_all = "PascalCase", emf::dimension_sets = [["FunctionName"], ["FunctionName", "Outcome"]])]
    struct Example {
        function_name: String,
        outcome: &'static str,
        done: u64,
        cold_start: u64,
    }

    #[test]
    fn writes_one_emf_line_per_entry_with_its_dimension_sets() {
        let (sink, recorded) = Sink::recording();
        for done in [3, 4] {
            sink.emit(Example {
                function_name: "f".into(),
                outcome: "ok",
                done,
                cold_start: sink.cold_start(),
            });
        }
        let entries = recorded.entries();
        assert_eq!(entries.len(), 2);
        let aws = &entries[0]["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(aws["Namespace"], NAMESPACE);
        assert_eq!(
            aws["Dimensions"],
            serde_json::json!([["FunctionName"], ["FunctionName", "Outcome"]])
        );
        let names: Vec<&str> = aws["Metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["Name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Done", "ColdStart"]);
        assert_eq!(entries[0]["Done"], 3);
        assert_eq!(entries[0]["Outcome"], "ok");
        assert_eq!(entries[0]["ColdStart"], 1);
        assert_eq!(entries[1]["ColdStart"], 0);
    }

    #[test]
    fn counts_an_outcome_by_function_and_outcome() {
        let (sink, recorded) = Sink::recording();
        sink.count_outcome("f", "not_found");
        let entry = &recorded.entries()[0];
        let aws = &entry["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(
            aws["Dimensions"],
            serde_json::json!([["FunctionName", "Outcome"]])
        );
        assert_eq!(aws["Metrics"][0]["Name"], "Invocations");
        assert_eq!(entry["Outcome"], "not_found");
        assert_eq!(entry["FunctionName"], "f");
        assert_eq!(entry["Invocations"], 1);
    }

    #[metrics(rename_all = "PascalCase", emf::dimension_sets = [["Missing"]])]
    struct Broken {
        done: u64,
    }

    #[test]
    fn a_line_that_does_not_validate_is_recorded_as_invalid() {
        let (sink, recorded) = Sink::recording();
        sink.emit(Broken { done: 1 });
        let lines = recorded.lines();
        assert!(lines[0].starts_with("invalid metrics entry"), "{lines:?}");
    }
}
