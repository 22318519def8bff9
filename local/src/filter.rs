//! Lambda event filtering (an event source mapping's `FilterCriteria`), for the subset of the
//! pattern syntax the template uses: nested objects, lists of exact values, and `prefix`.
//! Lambda drops a record that matches none of the filters before batching, and counts it as
//! processed; the local poller does the same.

use serde_json::Value;

use crate::Error;

/// Checks that a pattern uses only what [`matches`] understands, so that the local stack
/// refuses a template it would filter differently from Lambda.
pub fn check_pattern(pattern: &Value) -> Result<(), Error> {
    let Value::Object(fields) = pattern else {
        return Err(Error::Template("a filter pattern must be an object".into()));
    };
    for (name, rule) in fields {
        match rule {
            Value::Object(_) => check_pattern(rule)?,
            Value::Array(values) => {
                for v in values {
                    match v {
                        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => {}
                        Value::Object(op)
                            if op.len() == 1 && op.get("prefix").is_some_and(Value::is_string) => {}
                        other => {
                            return Err(Error::Template(format!(
                                "filter on {name}: {other} is not supported locally (exact values and prefix are)"
                            )));
                        }
                    }
                }
            }
            other => {
                return Err(Error::Template(format!(
                    "filter on {name}: {other} must be a list or an object"
                )));
            }
        }
    }
    Ok(())
}

/// Whether `event` (a record as Lambda JSON) matches `pattern`: every field of the pattern
/// must match, a list matches if the value equals one of its entries (or starts with a
/// `prefix`), an object matches the nested object.
pub fn matches(pattern: &Value, event: &Value) -> bool {
    let Value::Object(fields) = pattern else {
        return false;
    };
    fields.iter().all(|(name, rule)| {
        let value = event.get(name);
        match rule {
            Value::Object(_) => value.is_some_and(|v| matches(rule, v)),
            Value::Array(options) => value.is_some_and(|v| {
                options.iter().any(|o| match o {
                    Value::Object(op) => match (op.get("prefix"), v) {
                        (Some(Value::String(p)), Value::String(s)) => s.starts_with(p.as_str()),
                        _ => false,
                    },
                    exact => exact == v,
                })
            }),
            _ => false,
        }
    })
}

/// Whether `event` passes the filters: no filters, or at least one that matches.
pub fn passes(filters: &[Value], event: &Value) -> bool {
    filters.is_empty() || filters.iter().any(|f| matches(f, event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn session_inserts_pass() {
        let pattern = json!({"eventName": ["INSERT"], "dynamodb": {"Keys": {"sk": {"S": [{"prefix": "SESSION#"}]}}}});
        check_pattern(&pattern).unwrap();
        let record = |name: &str, sk: &str| json!({"eventName": name, "dynamodb": {"Keys": {"pk": {"S": "PLAYER#p"}, "sk": {"S": sk}}}});
        let filters = [pattern];
        assert!(passes(&filters, &record("INSERT", "SESSION#01")));
        assert!(!passes(&filters, &record("MODIFY", "SESSION#01")));
        assert!(!passes(&filters, &record("INSERT", "#METADATA")));
        assert!(!passes(&filters, &json!({"eventName": "INSERT"})));
        assert!(passes(&[], &json!({})));
    }

    #[test]
    fn refuses_what_it_cannot_evaluate() {
        assert!(check_pattern(&json!({"a": [{"anything-but": ["x"]}]})).is_err());
        assert!(check_pattern(&json!({"a": "x"})).is_err());
        assert!(check_pattern(&json!(["x"])).is_err());
    }
}
