//! A play's `metadata`: a small JSON object a game attaches to a play (the car, the character, a
//! replay id), kept on the Session and on every entry the play changes, and listed with them.
//!
//! It is stored as a DynamoDB map, so the table reads as what the game sent. What is accepted
//! is bounded so that an entry stays one small item and every map DynamoDB is given can be
//! stored:
//! - a JSON object, at most [`MAX_METADATA_BYTES`] bytes serialised compactly;
//! - at most [`MAX_METADATA_DEPTH`] levels of objects and arrays (the object itself is the
//!   first), and at most [`MAX_METADATA_KEYS`] keys in all its objects;
//! - no empty key, and numbers DynamoDB can hold: 0 or a magnitude from 10^-130 to below
//!   10^126 (JSON allows more).
//!
//! Empty objects and arrays are dropped (a value that holds only them goes too), and a
//! `metadata` left empty is none: they say nothing, and an empty map in a stream record stops
//! DynamoDB Local's stream for good (the local stack's projector with it).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ground::error::StoreError;

/// The largest `metadata`, serialised compactly, in bytes.
pub const MAX_METADATA_BYTES: usize = 1024;

/// The deepest nesting of objects and arrays in `metadata`, the object itself included.
pub const MAX_METADATA_DEPTH: usize = 4;

/// The most keys in all of `metadata`'s objects together.
pub const MAX_METADATA_KEYS: usize = 64;

/// The smallest nonzero magnitude, and the first too large, that a DynamoDB number holds.
const NUMBER_RANGE: (f64, f64) = (1e-130, 1e126);

/// A checked `metadata` object (see the module doc for what is accepted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Metadata(Map<String, Value>);

impl Metadata {
    /// Checks a request's `metadata` value: a JSON object within the limits, or `Invalid` saying
    /// which limit it broke.
    pub fn parse(value: Value) -> Result<Metadata, StoreError> {
        let Value::Object(map) = value else {
            return Err(invalid("must be a JSON object"));
        };
        let len = serde_json::to_vec(&map).map_or(usize::MAX, |v| v.len());
        if len > MAX_METADATA_BYTES {
            return Err(invalid(&format!(
                "must be at most {MAX_METADATA_BYTES} bytes serialised (it is {len})"
            )));
        }
        let mut keys = 0;
        for (value, depth) in Walk::new(&map) {
            match value {
                // An object or array held at `depth` opens the level below it.
                Node::Value(Value::Object(_) | Value::Array(_)) if depth >= MAX_METADATA_DEPTH => {
                    return Err(invalid(&format!(
                        "may nest objects and arrays at most {MAX_METADATA_DEPTH} deep"
                    )));
                }
                Node::Key("") => return Err(invalid("may not have an empty key")),
                Node::Key(_) => keys += 1,
                Node::Value(Value::Number(n)) => check_number(n.as_f64())?,
                Node::Value(_) => {}
            }
        }
        if keys > MAX_METADATA_KEYS {
            return Err(invalid(&format!(
                "may have at most {MAX_METADATA_KEYS} keys in all (it has {keys})"
            )));
        }
        let mut map = map;
        map.retain(|_, v| !emptied(v));
        Ok(Metadata(map))
    }

    /// Whether nothing is left (`{}`, or only empty objects and arrays): a play then has none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }
}

/// Drops the empty objects and arrays inside `v` and says whether `v` is one now. Recursion
/// is bounded: the value was checked to nest at most [`MAX_METADATA_DEPTH`] deep.
fn emptied(v: &mut Value) -> bool {
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !emptied(v));
            m.is_empty()
        }
        Value::Array(a) => {
            a.retain_mut(|v| !emptied(v));
            a.is_empty()
        }
        _ => false,
    }
}

fn invalid(why: &str) -> StoreError {
    StoreError::Invalid(format!("metadata {why}"))
}

fn check_number(n: Option<f64>) -> Result<(), StoreError> {
    let (smallest, too_large) = NUMBER_RANGE;
    match n.map(f64::abs) {
        Some(m) if m == 0.0 || (smallest..too_large).contains(&m) => Ok(()),
        _ => Err(invalid(
            "numbers must be 0 or of magnitude 1e-130 to below 1e126",
        )),
    }
}

/// One thing met walking a metadata object: a key of an object, or a value.
enum Node<'a> {
    Key(&'a str),
    Value(&'a Value),
}

/// Every key and value of an object, depth first, with the depth of the object or array that
/// holds it (the top object is depth 1). A stack, not recursion: the body parser's own limit is
/// far deeper than the one checked here.
struct Walk<'a> {
    stack: Vec<(Node<'a>, usize)>,
}

impl<'a> Walk<'a> {
    fn new(map: &'a Map<String, Value>) -> Walk<'a> {
        let mut walk = Walk { stack: Vec::new() };
        walk.push_object(map, 1);
        walk
    }

    fn push_object(&mut self, map: &'a Map<String, Value>, depth: usize) {
        for (k, v) in map {
            self.stack.push((Node::Value(v), depth));
            self.stack.push((Node::Key(k), depth));
        }
    }
}

impl<'a> Iterator for Walk<'a> {
    type Item = (Node<'a>, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let (node, depth) = self.stack.pop()?;
        match node {
            Node::Value(Value::Object(map)) => self.push_object(map, depth + 1),
            Node::Value(Value::Array(items)) => self
                .stack
                .extend(items.iter().map(|v| (Node::Value(v), depth + 1))),
            _ => {}
        }
        Some((node, depth))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refused(v: Value) -> String {
        match Metadata::parse(v) {
            Err(StoreError::Invalid(why)) => why,
            other => panic!("accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn objects_within_the_limits_are_kept_as_they_are() {
        let v = json!({"car": "red", "laps": [1, 2.5, -3], "ghost": {"id": "r-1", "ok": true},
                       "none": null});
        let m = Metadata::parse(v.clone()).unwrap();
        assert_eq!(Value::Object(m.as_map().clone()), v);
        assert!(Metadata::parse(json!({})).is_ok());
        // exactly at the limits
        let four = json!({"a": {"b": {"c": [1]}}});
        assert!(Metadata::parse(four).is_ok());
        let keys: Map<String, Value> = (0..64).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(Metadata::parse(Value::Object(keys)).is_ok());
        let full = json!({"a": "x".repeat(MAX_METADATA_BYTES - 8)});
        assert_eq!(serde_json::to_vec(&full).unwrap().len(), MAX_METADATA_BYTES);
        assert!(Metadata::parse(full).is_ok());
    }

    #[test]
    fn empty_objects_and_arrays_are_dropped() {
        let kept = |v: Value| Value::Object(Metadata::parse(v).unwrap().as_map().clone());
        assert_eq!(
            kept(json!({"a": {}, "b": [], "c": [{}, [], 1, {"d": []}], "e": {"f": {}}, "g": 0})),
            json!({"c": [1], "g": 0})
        );
        assert!(Metadata::parse(json!({})).unwrap().is_empty());
        assert!(
            Metadata::parse(json!({"a": {"b": []}, "c": [[]]}))
                .unwrap()
                .is_empty()
        );
        assert!(!Metadata::parse(json!({"n": null})).unwrap().is_empty());
    }

    #[test]
    fn anything_else_is_refused_with_the_limit_it_broke() {
        for v in [json!([1]), json!("x"), json!(1), json!(null), json!(true)] {
            assert!(refused(v).contains("JSON object"));
        }
        let big = json!({"a": "x".repeat(MAX_METADATA_BYTES - 7)});
        assert!(refused(big).contains("1024 bytes"));
        assert!(Metadata::parse(json!({"a": {"b": {"c": {"d": 1}}}})).is_ok());
        assert!(refused(json!({"a": {"b": {"c": {"d": {}}}}})).contains("4 deep"));
        assert!(refused(json!({"a": [[[[1]]]]})).contains("4 deep"));
        let keys: Map<String, Value> = (0..65).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(refused(Value::Object(keys)).contains("64 keys"));
        let nested: Map<String, Value> = (0..33)
            .map(|i| (format!("k{i}"), json!({ "x": 1 })))
            .collect();
        assert!(refused(Value::Object(nested)).contains("66"));
        assert!(refused(json!({"a": {"": 1}})).contains("empty key"));
        for n in [json!(1e300), json!(-1e126), json!(1e-200)] {
            assert!(refused(json!({ "n": n })).contains("numbers"), "{n}");
        }
        for n in [
            json!(0.0),
            json!(-0.0),
            json!(1e125),
            json!(1e-130),
            json!(u64::MAX),
        ] {
            assert!(Metadata::parse(json!({ "n": n })).is_ok(), "{n}");
        }
    }
}
