//! CORS on the local HTTP API, as API Gateway does it for an HTTP API with a CORS
//! configuration: a browser's preflight (`OPTIONS` with `Origin` and
//! `Access-Control-Request-Method`) is answered by the gateway itself, before any route or JWT
//! check (a preflight carries no token); every other response to an allowed origin gets
//! `Access-Control-Allow-Origin` and the exposed headers.
//!
//! The rules (methods, request headers, exposed headers, max age) are the template's
//! `HttpApi` `CorsConfiguration`; the origins are the local stack's own setting,
//! `LOCAL_CORS_ORIGINS`, as `CorsAllowOrigins` is the deployment's. With no origins the gateway
//! sends no CORS header and answers no preflight, as a deployment without the parameter does.

use http::header::{self, HeaderMap, HeaderName};
use http::{HeaderValue, Method, StatusCode};
use hyper::body::Bytes;
use serde_yaml::Value;

use crate::Error;
use crate::GatewayResponse;

/// The template's CORS rules, all but the origins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsRules {
    /// `AllowMethods`.
    pub allow_methods: Vec<String>,
    /// `AllowHeaders` (lower case: header names compare without case).
    pub allow_headers: Vec<String>,
    /// `ExposeHeaders`.
    pub expose_headers: Vec<String>,
    /// `MaxAge`, in seconds.
    pub max_age: u32,
}

/// Reads the `HttpApi`'s `CorsConfiguration`: a mapping, or an `!If` whose true branch is one
/// (the template turns CORS on only when `CorsAllowOrigins` is set). `None` if it has none.
pub fn rules(doc: &Value) -> Result<Option<CorsRules>, Error> {
    let bad = |m: &str| Error::Template(format!("HttpApi CorsConfiguration: {m}"));
    let Some(config) = doc
        .get("Resources")
        .and_then(|r| r.get("HttpApi"))
        .and_then(|a| a.get("Properties"))
        .and_then(|p| p.get("CorsConfiguration"))
    else {
        return Ok(None);
    };
    let config = match config {
        Value::Tagged(t) if t.tag == "If" => t
            .value
            .as_sequence()
            .and_then(|branches| branches.get(1))
            .ok_or_else(|| bad("an !If without a true branch"))?,
        other => other,
    };
    if !config.is_mapping() {
        return Err(bad("not a mapping"));
    }
    let list = |key: &str| -> Result<Vec<String>, Error> {
        config
            .get(key)
            .and_then(Value::as_sequence)
            .ok_or_else(|| bad(&format!("no {key} list")))?
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad(&format!("{key}: not a string")))
            })
            .collect()
    };
    let max_age = config
        .get("MaxAge")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| bad("no MaxAge"))?;
    Ok(Some(CorsRules {
        allow_methods: list("AllowMethods")?,
        allow_headers: list("AllowHeaders")?
            .into_iter()
            .map(|h| h.to_ascii_lowercase())
            .collect(),
        expose_headers: list("ExposeHeaders")?,
        max_age,
    }))
}

/// Parses `LOCAL_CORS_ORIGINS` as the template parses `CorsAllowOrigins`: origins as a browser
/// sends them (`scheme://host[:port]`), comma-separated, or `*` for any. A trailing slash is
/// dropped (a browser never sends one); a path, a space or another scheme is refused, so a
/// typo fails at start rather than as a silent CORS error in a browser.
pub fn parse_origins(text: &str) -> Result<Vec<String>, Error> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    if text == "*" {
        return Ok(vec!["*".to_owned()]);
    }
    text.split(',')
        .map(|origin| {
            let origin = origin.trim().trim_end_matches('/');
            let host = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .unwrap_or("");
            if host.is_empty() || host.contains(['/', ' ', '*']) {
                return Err(Error::Config(format!(
                    "LOCAL_CORS_ORIGINS: {origin:?} is not an origin like http://localhost:8080 \
                     (scheme://host[:port], comma-separated; or * for any)"
                )));
            }
            Ok(origin.to_owned())
        })
        .collect()
}

/// The local gateway's CORS: the template's rules and the allowed origins.
#[derive(Debug, Clone)]
pub struct Cors {
    rules: Option<CorsRules>,
    origins: Vec<String>,
}

fn value(text: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(text).ok()
}

impl Cors {
    /// CORS with `rules` (the template's) for `origins` (none: CORS off). Origins without
    /// rules are refused: the deployed API could not answer them either.
    pub fn new(rules: Option<CorsRules>, origins: Vec<String>) -> Result<Cors, Error> {
        if rules.is_none() && !origins.is_empty() {
            return Err(Error::Config(
                "LOCAL_CORS_ORIGINS is set but template.yaml's HttpApi has no CorsConfiguration"
                    .into(),
            ));
        }
        Ok(Cors { rules, origins })
    }

    /// CORS off: no header, no preflight.
    pub fn off() -> Cors {
        Cors {
            rules: None,
            origins: Vec::new(),
        }
    }

    /// The request's origin, if CORS is on and allows it: the value `Access-Control-Allow-Origin`
    /// answers (`*` when any origin is allowed).
    pub fn allowed_origin(&self, headers: &HeaderMap) -> Option<HeaderValue> {
        self.rules.as_ref()?;
        let origin = headers.get(header::ORIGIN)?.to_str().ok()?;
        if self.origins.iter().any(|o| o == "*") {
            return value("*");
        }
        self.origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(origin))
            .then(|| value(origin))
            .flatten()
    }

    /// The answer to a preflight, if `req` is one and CORS is on. An origin, method or request
    /// header outside the rules gets a 204 without any `Access-Control-*` header, which a
    /// browser takes as a refusal.
    pub fn preflight(&self, method: &Method, headers: &HeaderMap) -> Option<GatewayResponse> {
        let rules = self.rules.as_ref().filter(|_| !self.origins.is_empty())?;
        if method != Method::OPTIONS || !headers.contains_key(header::ORIGIN) {
            return None;
        }
        let requested = headers
            .get(header::ACCESS_CONTROL_REQUEST_METHOD)?
            .to_str()
            .unwrap_or("");
        let mut resp = http::Response::new(Bytes::new());
        *resp.status_mut() = StatusCode::NO_CONTENT;
        let method_ok = rules
            .allow_methods
            .iter()
            .any(|m| m.eq_ignore_ascii_case(requested));
        let headers_ok = headers
            .get_all(header::ACCESS_CONTROL_REQUEST_HEADERS)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|h| h.trim().to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .all(|h| rules.allow_headers.contains(&h));
        let origin = self.allowed_origin(headers);
        let out = resp.headers_mut();
        out.insert(header::VARY, HeaderValue::from_static("origin"));
        if let (Some(origin), true, true) = (origin, method_ok, headers_ok) {
            let pairs = [
                (
                    header::ACCESS_CONTROL_ALLOW_METHODS,
                    rules.allow_methods.join(","),
                ),
                (
                    header::ACCESS_CONTROL_ALLOW_HEADERS,
                    rules.allow_headers.join(","),
                ),
                (header::ACCESS_CONTROL_MAX_AGE, rules.max_age.to_string()),
            ];
            out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            insert_all(out, pairs);
        }
        Some(resp)
    }

    /// Adds the CORS headers of an allowed `origin` to a response.
    pub fn decorate(&self, origin: Option<HeaderValue>, resp: &mut GatewayResponse) {
        let (Some(rules), Some(origin)) = (self.rules.as_ref(), origin) else {
            return;
        };
        let out = resp.headers_mut();
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        out.append(header::VARY, HeaderValue::from_static("origin"));
        if !rules.expose_headers.is_empty() {
            let exposed = rules.expose_headers.join(",");
            insert_all(out, [(header::ACCESS_CONTROL_EXPOSE_HEADERS, exposed)]);
        }
    }
}

fn insert_all<const N: usize>(out: &mut HeaderMap, pairs: [(HeaderName, String); N]) {
    for (name, text) in pairs {
        if let Some(v) = value(&text) {
            out.insert(name, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template_rules() -> CorsRules {
        let text =
            std::fs::read_to_string(leaderboard_devkit::repo_root().join("template.yaml")).unwrap();
        rules(&serde_yaml::from_str(&text).unwrap())
            .unwrap()
            .expect("the template configures CORS")
    }

    fn request(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn origins_parse_as_the_template_parameter_and_typos_are_refused() {
        assert!(parse_origins("").unwrap().is_empty());
        assert_eq!(parse_origins("*").unwrap(), ["*"]);
        assert_eq!(
            parse_origins("http://localhost:8080/, https://mygame.example").unwrap(),
            ["http://localhost:8080", "https://mygame.example"]
        );
        for bad in [
            "localhost:8080",
            "http://x/play",
            "ftp://x",
            "http://",
            "*,http://x",
        ] {
            assert!(parse_origins(bad).is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn a_preflight_from_an_allowed_origin_gets_the_rules_and_any_other_gets_none() {
        let cors = Cors::new(Some(template_rules()), vec!["http://a.test:1".into()]).unwrap();
        let preflight = |origin: &str, method: &str, headers: &str| {
            let h = request(&[
                ("origin", origin),
                ("access-control-request-method", method),
                ("access-control-request-headers", headers),
            ]);
            cors.preflight(&Method::OPTIONS, &h).expect("a preflight")
        };
        let ok = preflight("http://a.test:1", "POST", "authorization, Content-Type");
        assert_eq!(ok.status(), StatusCode::NO_CONTENT);
        assert_eq!(
            ok.headers()["access-control-allow-origin"],
            "http://a.test:1"
        );
        assert_eq!(
            ok.headers()["access-control-allow-methods"],
            "GET,POST,PUT,DELETE"
        );
        assert_eq!(ok.headers()["access-control-max-age"], "600");
        for refused in [
            preflight("http://b.test:1", "POST", "authorization"),
            preflight("http://a.test:1", "PATCH", "authorization"),
            preflight("http://a.test:1", "GET", "x-secret"),
        ] {
            assert_eq!(refused.status(), StatusCode::NO_CONTENT);
            assert!(
                !refused
                    .headers()
                    .keys()
                    .any(|k| k.as_str().starts_with("access-control-")),
                "{:?}",
                refused.headers()
            );
        }
        // Not a preflight: an OPTIONS without the request method, or any other method.
        let plain = request(&[("origin", "http://a.test:1")]);
        assert!(cors.preflight(&Method::OPTIONS, &plain).is_none());
        assert!(cors.preflight(&Method::GET, &plain).is_none());
    }

    #[test]
    fn responses_to_an_allowed_origin_carry_it_and_the_exposed_headers_and_off_adds_nothing() {
        let cors = Cors::new(Some(template_rules()), vec!["*".into()]).unwrap();
        let mut resp = http::Response::new(Bytes::new());
        cors.decorate(
            cors.allowed_origin(&request(&[("origin", "http://any.test")])),
            &mut resp,
        );
        assert_eq!(resp.headers()["access-control-allow-origin"], "*");
        assert_eq!(
            resp.headers()["access-control-expose-headers"],
            "retry-after"
        );

        let off = Cors::off();
        let h = request(&[("origin", "http://any.test")]);
        let mut resp = http::Response::new(Bytes::new());
        off.decorate(off.allowed_origin(&h), &mut resp);
        assert!(resp.headers().is_empty());
        let pre = request(&[
            ("origin", "http://any.test"),
            ("access-control-request-method", "GET"),
        ]);
        assert!(off.preflight(&Method::OPTIONS, &pre).is_none());
        assert!(Cors::new(None, vec!["*".into()]).is_err());
    }
}
