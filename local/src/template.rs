//! What the local stack reads from `template.yaml`, so that it wires the functions exactly as
//! the deployed stack does: the HTTP API's routes (each `HttpApi` event of each function, and
//! whether it needs the JWT authorizer), the stream event source mapping of the projector
//! (batch size, retries, record age, filter patterns), the season-close schedule, and the
//! API's CORS rules.

use std::time::Duration;

use http::Method;
use serde_json::Value as Json;
use serde_yaml::Value;

use crate::Error;

/// Logical id of the submit-score function in the template.
pub const SUBMIT_SCORE_ID: &str = "SubmitScoreFunction";
/// Logical id of the leaderboard-api function (the anonymous reads).
pub const LEADERBOARD_API_ID: &str = "LeaderboardApiFunction";
/// Logical id of the leaderboard-writes function (the API's routes that need a token).
pub const LEADERBOARD_WRITES_ID: &str = "LeaderboardWritesFunction";
/// Logical id of the stream projector.
pub const STREAM_PROJECTOR_ID: &str = "StreamProjectorFunction";
/// Logical id of season close.
pub const SEASON_CLOSE_ID: &str = "SeasonCloseFunction";

/// An HTTP function of the template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpFunction {
    /// `submit_score::handle`.
    SubmitScore,
    /// `leaderboard_api::handle_reads`.
    LeaderboardApi,
    /// `leaderboard_api::handle_writes`.
    LeaderboardWrites,
}

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// A verified JWT is required (the API's default authorizer).
    Jwt,
    /// No token needed (`Auth: {Authorizer: NONE}`, the contract's "any" routes).
    None,
}

/// One route of the HTTP API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The function serving it.
    pub function: HttpFunction,
    /// The HTTP method.
    pub method: Method,
    /// The path template, e.g. `/leaderboards/{boardId}/scores`.
    pub path: String,
    /// Whether it needs a token.
    pub auth: Auth,
}

impl Route {
    /// API Gateway's route key, e.g. `GET /leaderboards/{boardId}`.
    pub fn route_key(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// The path parameters of `path` if it matches this route's template, and how many of the
    /// template's segments are literals (API Gateway prefers the most specific match).
    fn matches(&self, path: &str) -> Option<(usize, Vec<(String, String)>)> {
        let template: Vec<&str> = self.path.trim_matches('/').split('/').collect();
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        if template.len() != parts.len() {
            return None;
        }
        let mut params = Vec::new();
        let mut literals = 0;
        for (t, p) in template.iter().zip(&parts) {
            match t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                Some(name) if !p.is_empty() => params.push((name.to_owned(), percent_decode(p))),
                Some(_) => return None,
                None if t == p => literals += 1,
                None => return None,
            }
        }
        Some((literals, params))
    }
}

/// The projector's event source mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamMapping {
    /// `BatchSize`.
    pub batch_size: usize,
    /// `MaximumRetryAttempts`.
    pub max_retries: u32,
    /// `MaximumRecordAgeInSeconds` (`None` for -1, unlimited).
    pub max_record_age: Option<Duration>,
    /// The `FilterCriteria` patterns (a record is delivered if it matches any).
    pub filters: Vec<Json>,
}

/// The parts of the template that the local stack runs.
#[derive(Debug, Clone)]
pub struct LocalTemplate {
    /// Every `HttpApi` route, in template order.
    pub routes: Vec<Route>,
    /// The projector's stream mapping.
    pub stream: StreamMapping,
    /// How often season close runs (its schedule's `rate(...)`).
    pub close_every: Duration,
    /// Season close's `Timeout`.
    pub close_timeout: Duration,
    /// The HTTP API's CORS rules (all but the origins), if it has any.
    pub cors: Option<crate::cors::CorsRules>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Template(msg.into())
}

fn resource<'a>(doc: &'a Value, id: &str) -> Result<&'a Value, Error> {
    doc.get("Resources")
        .and_then(|r| r.get(id))
        .ok_or_else(|| bad(format!("no resource {id}")))
}

fn events(function: &Value) -> impl Iterator<Item = (&Value, &Value)> {
    function
        .get("Properties")
        .and_then(|p| p.get("Events"))
        .and_then(Value::as_mapping)
        .into_iter()
        .flat_map(|m| m.iter())
}

fn number(v: Option<&Value>) -> Option<i64> {
    v.and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok()))
}

impl LocalTemplate {
    /// Reads the repository's `template.yaml`.
    pub fn from_repo() -> Result<LocalTemplate, Error> {
        let path = leaderboard_devkit::repo_root().join("template.yaml");
        let text =
            std::fs::read_to_string(&path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
        Self::from_str(&text)
    }

    /// Reads a template's text.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<LocalTemplate, Error> {
        // Intrinsic tags (`!Ref`, `!GetAtt`, `!Sub`) parse as tagged values; nothing read here
        // is one.
        let doc: Value = serde_yaml::from_str(text).map_err(|e| bad(e.to_string()))?;
        Ok(LocalTemplate {
            routes: routes(&doc)?,
            stream: stream_mapping(&doc)?,
            close_every: schedule(&doc)?,
            close_timeout: timeout(&doc, SEASON_CLOSE_ID)?,
            cors: crate::cors::rules(&doc)?,
        })
    }

    /// The route for a request (the most specific template that matches its path, as API
    /// Gateway chooses), with its decoded path parameters.
    pub fn route(&self, method: &Method, path: &str) -> Option<(&Route, Vec<(String, String)>)> {
        self.routes
            .iter()
            .filter(|r| r.method == method)
            .filter_map(|r| {
                r.matches(path)
                    .map(|(literals, params)| (literals, r, params))
            })
            .max_by_key(|(literals, _, _)| *literals)
            .map(|(_, r, params)| (r, params))
    }
}

fn routes(doc: &Value) -> Result<Vec<Route>, Error> {
    let resources = doc
        .get("Resources")
        .and_then(Value::as_mapping)
        .ok_or_else(|| bad("no Resources"))?;
    let mut out = Vec::new();
    for (id, res) in resources {
        if res.get("Type").and_then(Value::as_str) != Some("AWS::Serverless::Function") {
            continue;
        }
        let id = id.as_str().unwrap_or_default();
        for (name, event) in events(res) {
            if event.get("Type").and_then(Value::as_str) != Some("HttpApi") {
                continue;
            }
            let name = name.as_str().unwrap_or_default();
            let function = match id {
                SUBMIT_SCORE_ID => HttpFunction::SubmitScore,
                LEADERBOARD_API_ID => HttpFunction::LeaderboardApi,
                LEADERBOARD_WRITES_ID => HttpFunction::LeaderboardWrites,
                other => {
                    return Err(bad(format!(
                        "{other} has HttpApi events but no local handler"
                    )));
                }
            };
            let props = event
                .get("Properties")
                .ok_or_else(|| bad(format!("{id}.{name}: no Properties")))?;
            let text = |key: &str| {
                props
                    .get(key)
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(format!("{id}.{name}: no {key}")))
            };
            let method = Method::from_bytes(text("Method")?.to_ascii_uppercase().as_bytes())
                .map_err(|e| bad(format!("{id}.{name}: {e}")))?;
            let auth = match props.get("Auth").and_then(|a| a.get("Authorizer")) {
                None => Auth::Jwt,
                Some(a) if a.as_str() == Some("NONE") => Auth::None,
                Some(a) if a.as_str() == Some("JwtAuthorizer") => Auth::Jwt,
                Some(a) => return Err(bad(format!("{id}.{name}: unknown authorizer {a:?}"))),
            };
            out.push(Route {
                function,
                method,
                path: text("Path")?.to_owned(),
                auth,
            });
        }
    }
    Ok(out)
}

fn stream_mapping(doc: &Value) -> Result<StreamMapping, Error> {
    let projector = resource(doc, STREAM_PROJECTOR_ID)?;
    let props = events(projector)
        .map(|(_, e)| e)
        .find(|e| e.get("Type").and_then(Value::as_str) == Some("DynamoDB"))
        .and_then(|e| e.get("Properties"))
        .ok_or_else(|| bad(format!("{STREAM_PROJECTOR_ID} has no DynamoDB event")))?;
    let reports_failures = props
        .get("FunctionResponseTypes")
        .and_then(Value::as_sequence)
        .is_some_and(|t| {
            t.iter()
                .any(|t| t.as_str() == Some("ReportBatchItemFailures"))
        });
    if !reports_failures {
        return Err(bad(
            "the projector's mapping must use ReportBatchItemFailures",
        ));
    }
    let filters = props
        .get("FilterCriteria")
        .and_then(|f| f.get("Filters"))
        .and_then(Value::as_sequence)
        .map(|fs| {
            fs.iter()
                .map(|f| {
                    let pattern = f
                        .get("Pattern")
                        .and_then(Value::as_str)
                        .ok_or_else(|| bad("a filter without a Pattern string"))?;
                    let json: Json = serde_json::from_str(pattern)
                        .map_err(|e| bad(format!("filter pattern: {e}")))?;
                    crate::filter::check_pattern(&json)?;
                    Ok(json)
                })
                .collect::<Result<Vec<_>, Error>>()
        })
        .transpose()?
        .unwrap_or_default();
    let age = number(props.get("MaximumRecordAgeInSeconds")).unwrap_or(-1);
    Ok(StreamMapping {
        // Lambda's defaults for DynamoDB streams: 100 records, retries until the record expires.
        batch_size: number(props.get("BatchSize"))
            .unwrap_or(100)
            .clamp(1, 10_000) as usize,
        max_retries: match number(props.get("MaximumRetryAttempts")).unwrap_or(-1) {
            n if n < 0 => u32::MAX,
            n => n.min(10_000) as u32,
        },
        max_record_age: (age >= 0).then(|| Duration::from_secs(age as u64)),
        filters,
    })
}

fn schedule(doc: &Value) -> Result<Duration, Error> {
    let close = resource(doc, SEASON_CLOSE_ID)?;
    let expr = events(close)
        .map(|(_, e)| e)
        .find(|e| {
            matches!(
                e.get("Type").and_then(Value::as_str),
                Some("ScheduleV2" | "Schedule")
            )
        })
        .and_then(|e| e.get("Properties")?.get("ScheduleExpression")?.as_str())
        .ok_or_else(|| bad(format!("{SEASON_CLOSE_ID} has no schedule")))?;
    parse_rate(expr).ok_or_else(|| bad(format!("unsupported schedule {expr:?} (use rate(...))")))
}

/// The period of an EventBridge `rate(N unit)` expression.
pub fn parse_rate(expr: &str) -> Option<Duration> {
    let inner = expr.trim().strip_prefix("rate(")?.strip_suffix(')')?;
    let (n, unit) = inner.trim().split_once(' ')?;
    let n: u64 = n.parse().ok().filter(|n| *n > 0)?;
    let secs = match unit.trim() {
        "minute" | "minutes" => 60,
        "hour" | "hours" => 3600,
        "day" | "days" => 86_400,
        _ => return None,
    };
    Some(Duration::from_secs(n * secs))
}

fn timeout(doc: &Value, id: &str) -> Result<Duration, Error> {
    let own = number(
        resource(doc, id)?
            .get("Properties")
            .and_then(|p| p.get("Timeout")),
    );
    let global = number(
        doc.get("Globals")
            .and_then(|g| g.get("Function"))
            .and_then(|f| f.get("Timeout")),
    );
    // Lambda's default is 3 s.
    Ok(Duration::from_secs(
        own.or(global).unwrap_or(3).max(1) as u64
    ))
}

/// Decodes `%XX` escapes (invalid ones are kept as they are).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_rules_cover_every_method_its_routes_use_and_a_browser_clients_headers() {
        let rules = LocalTemplate::from_repo()
            .unwrap()
            .cors
            .expect("the template configures CORS");
        let template = LocalTemplate::from_repo().unwrap();
        for route in &template.routes {
            assert!(
                rules.allow_methods.contains(&route.method.to_string()),
                "{} is not in AllowMethods",
                route.route_key()
            );
        }
        for h in ["authorization", "content-type", "idempotency-key"] {
            assert!(rules.allow_headers.contains(&h.to_owned()));
        }
        assert_eq!(rules.expose_headers, ["retry-after"]);
        assert!(rules.max_age > 0);
    }

    #[test]
    fn reads_the_repository_template() {
        let t = LocalTemplate::from_repo().unwrap();
        assert!(t.routes.len() >= 15);
        let (r, params) = t
            .route(&Method::GET, "/leaderboards/season_3/players/p_alice")
            .unwrap();
        assert_eq!(r.path, "/leaderboards/{boardId}/players/{playerId}");
        assert_eq!(r.auth, Auth::None);
        assert_eq!(r.function, HttpFunction::LeaderboardApi);
        assert_eq!(
            params,
            [
                ("boardId".to_owned(), "season_3".to_owned()),
                ("playerId".to_owned(), "p_alice".to_owned())
            ]
        );
        let (r, _) = t.route(&Method::POST, "/sessions").unwrap();
        assert_eq!((r.function, r.auth), (HttpFunction::SubmitScore, Auth::Jwt));
        // The literal route wins over the template that also matches.
        let (r, params) = t.route(&Method::PUT, "/players/me").unwrap();
        assert_eq!(r.path, "/players/me");
        assert!(params.is_empty());
        // GET /players/me is the caller's own (a token, the writes function), not the public
        // profile of a player named `me`.
        let (r, params) = t.route(&Method::GET, "/players/me").unwrap();
        assert_eq!((r.path.as_str(), r.auth), ("/players/me", Auth::Jwt));
        assert_eq!(r.function, HttpFunction::LeaderboardWrites);
        assert!(params.is_empty());
        let (r, _) = t.route(&Method::DELETE, "/players/me").unwrap();
        assert_eq!(
            (r.function, r.auth),
            (HttpFunction::LeaderboardWrites, Auth::Jwt)
        );
        assert!(t.route(&Method::PATCH, "/players/me").is_none());
        assert!(t.route(&Method::GET, "/nope").is_none());
        assert_eq!(t.stream.batch_size, 1000);
        assert_eq!(t.stream.filters.len(), 3);
        assert_eq!(t.close_every, Duration::from_secs(60));
    }

    /// The template's filter is the one the key schema builds from the lane item's names
    /// (`leaderboard_keys::rank_index::change`), so a renamed attribute or prefix cannot leave
    /// the projector unfed.
    #[test]
    fn the_stream_filters_are_built_from_the_lane_items_names() {
        let t = LocalTemplate::from_repo().unwrap();
        let built: Vec<serde_json::Value> = leaderboard_keys::rank_index::change::stream_filters()
            .iter()
            .map(|f| serde_json::from_str(f).unwrap())
            .collect();
        assert_eq!(t.stream.filters, built);
    }

    #[test]
    fn the_stream_filters_deliver_what_the_projector_reads_and_nothing_else() {
        use serde_json::json;
        let t = LocalTemplate::from_repo().unwrap();
        let record = |name: &str, pk: &str, sk: &str, image: serde_json::Value| {
            json!({"eventName": name, "dynamodb": {
                "Keys": {"pk": {"S": pk}, "sk": {"S": sk}}, "NewImage": image}})
        };
        let lane = |chg: serde_json::Value| {
            record(
                "MODIFY",
                "RANKSEQ#b#03",
                "#WRITTEN",
                json!({"written": {"N": "7"}, "chg": {"M": chg}}),
            )
        };
        let delivered = [
            record("INSERT", "PLAYER#p", "SESSION#01", json!({})),
            lane(json!({"n": {"S": "SCORE#1#2#p"}})),
            lane(json!({"o": {"S": "SCORE#1#2#p"}, "n": {"S": "SCORE#3#4#p"}})),
            lane(json!({"o": {"S": "SCORE#1#2#p"}})),
            // a lane in its board's group
            record(
                "MODIFY",
                "RANKSEQ#b",
                "#WRITTEN#03",
                json!({"written": {"N": "7"}, "chg": {"M": {"n": {"S": "SCORE#1#2#p"}}}}),
            ),
        ];
        let dropped = [
            record("MODIFY", "PLAYER#p", "SESSION#01", json!({})),
            // the Score items' own records: the index follows the lanes
            record("MODIFY", "LEADERBOARD#b", "SCORE#1#2#p", json!({})),
            record("REMOVE", "LEADERBOARD#b", "SCORE#1#2#p", json!({})),
            // a lane of a board not moved onto the index yet: counted, no change recorded
            record(
                "MODIFY",
                "RANKSEQ#b#03",
                "#WRITTEN",
                json!({"written": {"N": "7"}}),
            ),
            record("MODIFY", "RANKV2#b", "#ROOT", json!({})),
            record("MODIFY", "PLAYER#p", "#PROFILE", json!({})),
        ];
        for r in &delivered {
            assert!(crate::filter::passes(&t.stream.filters, r), "{r}");
        }
        for r in &dropped {
            assert!(!crate::filter::passes(&t.stream.filters, r), "{r}");
        }
    }

    #[test]
    fn rates_and_decoding() {
        assert_eq!(parse_rate("rate(1 minute)"), Some(Duration::from_secs(60)));
        assert_eq!(parse_rate("rate(2 hours)"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_rate("cron(0 * * * ? *)"), None);
        assert_eq!(parse_rate("rate(0 minutes)"), None);
        assert_eq!(percent_decode("a%40b%2Fc%zz%4"), "a@b/c%zz%4");
    }
}
