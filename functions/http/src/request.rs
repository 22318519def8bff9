//! A request's JSON body, path and query parameters, each refused with a 400 that says why.

use lambda_http::{Request, RequestExt};
use serde::de::DeserializeOwned;

use crate::MAX_BODY_BYTES;
use crate::error::ApiError;

/// The request body parsed as JSON of type `T`: 400 for a missing, oversized or malformed body.
pub fn json_body<T: DeserializeOwned>(req: &Request) -> Result<T, ApiError> {
    let bytes: &[u8] = req.body().as_ref();
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::invalid(format!(
            "the body is larger than {MAX_BODY_BYTES} bytes"
        )));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::invalid("a JSON body is required"));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::invalid(format!("malformed JSON body: {e}")))
}

/// The request body parsed as JSON of type `T`, or `T`'s default when the body is empty (a
/// route whose body is optional): 400 for an oversized or malformed one.
pub fn json_body_or_default<T: DeserializeOwned + Default>(req: &Request) -> Result<T, ApiError> {
    let bytes: &[u8] = req.body().as_ref();
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    json_body(req)
}

/// The path of the request as the client sent it (API Gateway's `rawPath`).
pub fn path(req: &Request) -> &str {
    req.uri().path()
}

/// The path's segments between slashes, ignoring a trailing slash.
pub fn segments(path: &str) -> Vec<&str> {
    path.trim_matches('/').split('/').collect()
}

/// A query string parameter.
pub fn query_param(req: &Request, name: &str) -> Option<String> {
    req.query_string_parameters_ref()
        .and_then(|q| q.first(name))
        .map(str::to_owned)
}

/// An integer query parameter within `min..=max`, or `default` when absent: 400 otherwise.
pub fn int_param(
    req: &Request,
    name: &str,
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, ApiError> {
    match query_param(req, name) {
        None => Ok(default),
        Some(v) => v
            .parse::<u64>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                ApiError::invalid(format!("{name} must be an integer from {min} to {max}"))
            }),
    }
}
