//! The functions' DynamoDB permissions as `template.yaml` grants them, and a client that records
//! every item its requests touch, so a test can show that a function's real requests stay
//! within its policy, `dynamodb:LeadingKeys` conditions included: DynamoDB Local enforces no
//! IAM, and a request outside the policy would first fail as AccessDenied in a deployed stack.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::Client;
use serde_json::Value as Json;
use serde_yaml::Value;

use crate::DevError;
use crate::local::{Observer, local_config};

/// One `Allow` statement of a function's policy, for one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The actions, e.g. `dynamodb:GetItem`.
    pub actions: Vec<String>,
    /// `table` (the table's ARN) or `index` (its indexes').
    pub resource: &'static str,
    /// The `ForAllValues:StringLike` patterns on `dynamodb:LeadingKeys`, if the statement has
    /// them (`*` matches any run of characters).
    pub leading_keys: Option<Vec<String>>,
}

/// A function's DynamoDB policy, and what it may do on the stack's event bus.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The function's logical id.
    pub function: String,
    /// Its binary (`Metadata.BuildProperties.Binary`).
    pub binary: String,
    /// Its statements.
    pub statements: Vec<Statement>,
    /// The EventBridge actions it has on the event bus (`events:PutEvents`), and only there.
    pub bus_actions: Vec<String>,
    /// The secrets it may read (`secretsmanager:GetSecretValue`), by logical id
    /// (`CursorSecret`).
    pub secrets: Vec<String>,
    /// The secrets' ARNs its environment holds: variable, then the secret's logical id.
    pub secret_arns: Vec<(String, String)>,
}

fn bad(what: impl Into<String>) -> DevError {
    DevError::Template(what.into())
}

fn text(v: &Value) -> Result<String, DevError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Tagged(t) => Ok(format!("{} {}", t.tag, text(&t.value)?)),
        other => Err(bad(format!("not a string: {other:?}"))),
    }
}

fn list(v: &Value) -> Vec<Value> {
    match v {
        Value::Sequence(items) => items.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    }
}

fn resource(v: &Value) -> Result<&'static str, DevError> {
    match text(v)?.as_str() {
        "!GetAtt LeaderboardTable.Arn" => Ok("table"),
        "!Sub ${LeaderboardTable.Arn}/index/*" => Ok("index"),
        other => Err(bad(format!(
            "a policy resource the check does not know: {other}"
        ))),
    }
}

/// The actions of a statement on the event bus (`events:` actions, whose one resource is the
/// bus's ARN, built from the stack's bus or the existing one), or `None` for another statement.
fn on_the_bus(s: &Value) -> Result<Option<Vec<String>>, DevError> {
    let actions = list(&s["Action"])
        .iter()
        .map(text)
        .collect::<Result<Vec<_>, _>>()?;
    if !actions.iter().any(|a| a.starts_with("events:")) {
        return Ok(None);
    }
    // The bus's ARN: the stack's bus, or the existing one the stack was given instead.
    let bus: Value = serde_yaml::from_str(
        "!Sub\n\
         - \"arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/${Bus}\"\n\
         - Bus: !If [CreateEventBus, !Ref EventBus, !Ref ExistingEventBusName]\n",
    )
    .map_err(|e| bad(e.to_string()))?;
    if s["Effect"].as_str() != Some("Allow")
        || !actions.iter().all(|a| a.starts_with("events:"))
        || !s["Condition"].is_null()
        || s["Resource"] != bus
    {
        return Err(bad(format!(
            "an EventBridge statement the check does not know: {s:?}"
        )));
    }
    Ok(Some(actions))
}

/// The secret a statement lets the function read (its logical id, the one resource of a
/// `secretsmanager:GetSecretValue` statement), or `None` for another statement.
fn a_secret(s: &Value) -> Result<Option<String>, DevError> {
    let actions = list(&s["Action"])
        .iter()
        .map(text)
        .collect::<Result<Vec<_>, _>>()?;
    if !actions.iter().any(|a| a.starts_with("secretsmanager:")) {
        return Ok(None);
    }
    let one_secret = text(&s["Resource"])
        .ok()
        .and_then(|r| r.strip_prefix("!Ref ").map(str::to_owned));
    match one_secret {
        Some(id)
            if s["Effect"].as_str() == Some("Allow")
                && actions == ["secretsmanager:GetSecretValue"]
                && s["Condition"].is_null() =>
        {
            Ok(Some(id))
        }
        _ => Err(bad(format!(
            "a Secrets Manager statement the check does not know: {s:?}"
        ))),
    }
}

/// The variables of an environment that concern secrets.
#[derive(Default)]
struct SecretVariables {
    /// Those that name a secret by its ARN (`!Ref` of an `AWS::SecretsManager::Secret`):
    /// variable, then the secret's logical id.
    arns: Vec<(String, String)>,
    /// Those whose value holds a dynamic reference to a secret's value
    /// (`{{resolve:secretsmanager:...}}`), which a function must never be given.
    values: Vec<String>,
}

fn secret_variables(variables: &Value, secrets: &[String]) -> Result<SecretVariables, DevError> {
    let (mut arns, mut values) = (Vec::new(), Vec::new());
    for (name, value) in variables.as_mapping().into_iter().flatten() {
        let name = name.as_str().unwrap_or_default().to_owned();
        let shown = serde_yaml::to_string(value).map_err(|e| bad(e.to_string()))?;
        if shown.contains("resolve:secretsmanager") {
            values.push(name.clone());
        }
        if let Ok(t) = text(value)
            && let Some(id) = t.strip_prefix("!Ref ")
            && secrets.iter().any(|s| s == id)
        {
            arns.push((name, id.to_owned()));
        }
    }
    Ok(SecretVariables { arns, values })
}

/// The logical ids of the template's Secrets Manager secrets.
fn secret_ids(template: &Value) -> Vec<String> {
    template["Resources"]
        .as_mapping()
        .into_iter()
        .flatten()
        .filter(|(_, r)| r["Type"].as_str() == Some("AWS::SecretsManager::Secret"))
        .filter_map(|(id, _)| id.as_str().map(str::to_owned))
        .collect()
}

/// Every environment variable of the template (`Globals` and each function) whose value holds
/// a secret's value (`{{resolve:secretsmanager:...}}`), as `<where>.<variable>`.
pub fn secret_values_in_environments(text: &str) -> Result<Vec<String>, DevError> {
    let template: Value = serde_yaml::from_str(text).map_err(|e| bad(e.to_string()))?;
    let secrets = secret_ids(&template);
    let mut found = Vec::new();
    let globals = &template["Globals"]["Function"]["Environment"]["Variables"];
    for v in secret_variables(globals, &secrets)?.values {
        found.push(format!("Globals.{v}"));
    }
    for (id, r) in template["Resources"].as_mapping().into_iter().flatten() {
        let variables = &r["Properties"]["Environment"]["Variables"];
        for v in secret_variables(variables, &secrets)?.values {
            found.push(format!("{}.{v}", id.as_str().unwrap_or_default()));
        }
    }
    Ok(found)
}

fn statement(s: &Value, on: &Value) -> Result<Statement, DevError> {
    if s["Effect"].as_str() != Some("Allow") {
        return Err(bad("only Allow statements are expected"));
    }
    let actions = list(&s["Action"])
        .iter()
        .map(text)
        .collect::<Result<_, _>>()?;
    let leading_keys = match &s["Condition"] {
        Value::Null => None,
        condition => {
            let keys = &condition["ForAllValues:StringLike"]["dynamodb:LeadingKeys"];
            if keys.is_null() || condition.as_mapping().is_some_and(|m| m.len() != 1) {
                return Err(bad(format!(
                    "a condition the check does not know: {condition:?}"
                )));
            }
            Some(list(keys).iter().map(text).collect::<Result<_, _>>()?)
        }
    };
    Ok(Statement {
        actions,
        resource: resource(on)?,
        leading_keys,
    })
}

impl Policy {
    /// Every function's policy in the template `text`.
    pub fn all_from(text: &str) -> Result<Vec<Policy>, DevError> {
        let template: Value = serde_yaml::from_str(text).map_err(|e| bad(e.to_string()))?;
        let resources = template["Resources"]
            .as_mapping()
            .ok_or_else(|| bad("no Resources"))?;
        let secret_ids = secret_ids(&template);
        let mut policies = Vec::new();
        for (id, r) in resources {
            if r["Type"].as_str() != Some("AWS::Serverless::Function") {
                continue;
            }
            let function = id.as_str().unwrap_or_default().to_owned();
            let binary = r["Metadata"]["BuildProperties"]["Binary"]
                .as_str()
                .ok_or_else(|| bad(format!("{function}: no Binary")))?
                .to_owned();
            let mut statements = Vec::new();
            let mut bus_actions = Vec::new();
            let mut secrets = Vec::new();
            for policy in list(&r["Properties"]["Policies"]) {
                for s in list(&policy["Statement"]) {
                    if let Some(actions) = on_the_bus(&s)? {
                        bus_actions.extend(actions);
                        continue;
                    }
                    if let Some(secret) = a_secret(&s)? {
                        secrets.push(secret);
                        continue;
                    }
                    for on in list(&s["Resource"]) {
                        statements.push(statement(&s, &on)?);
                    }
                }
            }
            let variables = &r["Properties"]["Environment"]["Variables"];
            let secret_arns = secret_variables(variables, &secret_ids)?.arns;
            policies.push(Policy {
                function,
                binary,
                statements,
                bus_actions,
                secrets,
                secret_arns,
            });
        }
        Ok(policies)
    }

    /// Every function's policy in the repository's `template.yaml`.
    pub fn all() -> Result<Vec<Policy>, DevError> {
        let path = crate::repo_root().join("template.yaml");
        Self::all_from(&std::fs::read_to_string(path)?)
    }

    /// The policy of the function `function` (a logical id) in the repository's template.
    pub fn of(function: &str) -> Result<Policy, DevError> {
        Self::all()?
            .into_iter()
            .find(|p| p.function == function)
            .ok_or_else(|| bad(format!("no function {function}")))
    }

    /// Whether the policy allows `action` on the table's item in partition `pk`.
    pub fn allows(&self, action: &str, pk: &str) -> bool {
        self.statements.iter().any(|s| {
            s.resource == "table"
                && s.actions.iter().any(|a| a == action)
                && s.leading_keys
                    .as_ref()
                    .is_none_or(|patterns| patterns.iter().any(|p| like(p, pk)))
        })
    }

    /// The recorded item actions the policy would refuse, described.
    pub fn refusals(&self, log: &KeyLog) -> Vec<String> {
        log.touched()
            .into_iter()
            .filter(|(action, pk)| !self.allows(action, pk))
            .map(|(action, pk)| format!("{} may not {action} in {pk}", self.function))
            .collect()
    }
}

/// IAM's `StringLike`: `*` matches any run of characters, `?` any one.
fn like(pattern: &str, value: &str) -> bool {
    fn go(p: &[char], v: &[char]) -> bool {
        match p.split_first() {
            None => v.is_empty(),
            Some(('*', rest)) => (0..=v.len()).any(|i| go(rest, &v[i..])),
            Some(('?', rest)) => !v.is_empty() && go(rest, &v[1..]),
            Some((c, rest)) => v.first() == Some(c) && go(rest, &v[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let v: Vec<char> = value.chars().collect();
    go(&p, &v)
}

/// The items a [`recording_client`]'s requests touched: (the IAM action authorising it, the
/// item's partition key), in order; a Scan with an empty partition key. Queries are left out
/// (no statement conditions them).
#[derive(Debug, Default)]
pub struct KeyLog {
    touched: Mutex<Vec<(String, String)>>,
}

impl KeyLog {
    /// What was touched so far.
    pub fn touched(&self) -> Vec<(String, String)> {
        self.touched.lock().map(|t| t.clone()).unwrap_or_default()
    }

    fn record(&self, operation: &str, body: &Json) {
        let pk = |item: &Json| item["pk"]["S"].as_str().unwrap_or_default().to_owned();
        let mut touched = Vec::new();
        match operation {
            "GetItem" | "UpdateItem" | "DeleteItem" => {
                touched.push((operation.to_owned(), pk(&body["Key"])));
            }
            "PutItem" => touched.push((operation.to_owned(), pk(&body["Item"]))),
            // No partition: only a statement without a LeadingKeys condition allows it.
            "Scan" => touched.push((operation.to_owned(), String::new())),
            "TransactWriteItems" | "TransactGetItems" => {
                for item in body["TransactItems"].as_array().into_iter().flatten() {
                    for (kind, action, key) in [
                        ("Put", "PutItem", "Item"),
                        ("Update", "UpdateItem", "Key"),
                        ("Delete", "DeleteItem", "Key"),
                        ("ConditionCheck", "ConditionCheckItem", "Key"),
                        ("Get", "GetItem", "Key"),
                    ] {
                        if !item[kind].is_null() {
                            touched.push((action.to_owned(), pk(&item[kind][key])));
                        }
                    }
                }
            }
            "BatchGetItem" => {
                for table in body["RequestItems"].as_object().into_iter().flatten() {
                    for key in table.1["Keys"].as_array().into_iter().flatten() {
                        touched.push((operation.to_owned(), pk(key)));
                    }
                }
            }
            "BatchWriteItem" => {
                for table in body["RequestItems"].as_object().into_iter().flatten() {
                    for write in table.1.as_array().into_iter().flatten() {
                        let item = match &write["PutRequest"] {
                            Json::Null => &write["DeleteRequest"]["Key"],
                            put => &put["Item"],
                        };
                        touched.push((operation.to_owned(), pk(item)));
                    }
                }
            }
            _ => {}
        }
        if let Ok(mut t) = self.touched.lock() {
            t.extend(
                touched
                    .into_iter()
                    .map(|(action, pk)| (format!("dynamodb:{action}"), pk)),
            );
        }
    }
}

/// A client like [`crate::local::client`] that records every item its requests touch.
pub fn recording_client(endpoint: &str) -> (Client, Arc<KeyLog>) {
    let log = Arc::new(KeyLog::default());
    let recorder = log.clone();
    let config = local_config(endpoint)
        .interceptor(Observer("key-log", move |op: &str, body: &[u8]| {
            let body = serde_json::from_slice::<Json>(body).unwrap_or_default();
            recorder.record(op, &body);
            Ok(())
        }))
        .build();
    (Client::from_conf(config), log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_like_matches_as_iam_does() {
        assert!(like("LEADERBOARD#*", "LEADERBOARD#season_3"));
        assert!(like("RANKREPAIR", "RANKREPAIR"));
        assert!(!like("RANKREPAIR", "RANKREPAIR#x"));
        assert!(!like("LEADERBOARD#*", "PLAYER#LEADERBOARD#x"));
        assert!(like("P?AYER#*", "PLAYER#"));
    }

    #[test]
    fn a_leading_keys_condition_limits_its_action_to_its_partitions() {
        let policy = Policy::all_from(
            r#"
Resources:
  F:
    Type: AWS::Serverless::Function
    Metadata: {BuildProperties: {Binary: f}}
    Properties:
      Policies:
        - Statement:
            - Effect: Allow
              Action: [dynamodb:GetItem]
              Resource: !GetAtt LeaderboardTable.Arn
            - Effect: Allow
              Action: dynamodb:DeleteItem
              Resource: !GetAtt LeaderboardTable.Arn
              Condition:
                ForAllValues:StringLike:
                  dynamodb:LeadingKeys: ["LEADERBOARD#*"]
"#,
        )
        .unwrap()
        .remove(0);
        assert!(policy.allows("dynamodb:GetItem", "PLAYER#p"));
        assert!(policy.allows("dynamodb:DeleteItem", "LEADERBOARD#b"));
        assert!(!policy.allows("dynamodb:DeleteItem", "PLAYER#p"));
        assert!(!policy.allows("dynamodb:PutItem", "LEADERBOARD#b"));
    }
}
