//! The monitoring stack (`monitoring.yaml`, nested in `template.yaml`) holds together: the main
//! template passes exactly the parameters it declares, every alarm watches a metric something
//! emits (an AWS service's, or one the metrics table of docs/operating.md documents with those dimensions,
//! which each function's metrics test checks against its lines) and notifies the optional
//! topic, and the dashboard's body is JSON that shows every alarm and only documented metrics.

use std::collections::BTreeSet;

use leaderboard_devkit::{emf, repo_root};
use serde_yaml::Value;

fn yaml(file: &str) -> Value {
    serde_yaml::from_str(&std::fs::read_to_string(repo_root().join(file)).unwrap()).unwrap()
}

fn resources_of_type<'a>(t: &'a Value, kind: &str) -> Vec<(String, &'a Value)> {
    t["Resources"]
        .as_mapping()
        .unwrap()
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some(kind))
        .map(|(id, r)| (id.as_str().unwrap().to_owned(), r))
        .collect()
}

/// A watched metric: its namespace, name and dimension names (joined with `", "`).
type Watched = (String, String, String);

fn metric(m: &Value) -> Watched {
    let dimensions: Vec<&str> = m["Dimensions"]
        .as_sequence()
        .map(|ds| ds.iter().map(|d| d["Name"].as_str().unwrap()).collect())
        .unwrap_or_default();
    (
        m["Namespace"].as_str().unwrap().to_owned(),
        m["MetricName"].as_str().unwrap().to_owned(),
        dimensions.join(", "),
    )
}

/// The metrics an alarm watches, from `MetricName` or its `Metrics`.
fn watched(alarm: &Value) -> Vec<Watched> {
    let p = &alarm["Properties"];
    if p["MetricName"].is_string() {
        return vec![metric(p)];
    }
    p["Metrics"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|m| !m["MetricStat"].is_null())
        .map(|m| metric(&m["MetricStat"]["Metric"]))
        .collect()
}

#[test]
fn the_main_template_passes_exactly_the_monitoring_parameters() {
    let main = yaml("template.yaml");
    let monitoring = yaml("monitoring.yaml");
    let nested = resources_of_type(&main, "AWS::Serverless::Application");
    assert_eq!(nested.len(), 1);
    assert_eq!(
        nested[0].1["Properties"]["Location"].as_str(),
        Some("monitoring.yaml")
    );
    let passed: BTreeSet<&str> = nested[0].1["Properties"]["Parameters"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap())
        .collect();
    let declared: BTreeSet<&str> = monitoring["Parameters"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(passed, declared);
}

#[test]
fn every_alarm_watches_an_emitted_metric_and_notifies_the_topic() {
    let monitoring = yaml("monitoring.yaml");
    let alarms = resources_of_type(&monitoring, "AWS::CloudWatch::Alarm");
    assert!(alarms.len() >= 8, "{alarms:?}");
    // The AWS services' own metrics, and the functions' own, as documented.
    let services = ["AWS/Lambda", "AWS/SQS", "AWS/DynamoDB", "AWS/ApiGateway"];
    let documented = emf::documented(None);
    let mut own = 0;
    for (id, alarm) in &alarms {
        let metrics = watched(alarm);
        assert!(!metrics.is_empty(), "{id}");
        for (namespace, name, dimensions) in metrics {
            if namespace == emf::NAMESPACE {
                own += 1;
                assert!(
                    documented.contains(&(name.clone(), dimensions.clone())),
                    "{id} watches {name} by [{dimensions}], which no function emits"
                );
            } else {
                assert!(
                    services.contains(&namespace.as_str()),
                    "{id} watches {namespace}/{name}, which nothing emits"
                );
            }
        }
        let p = &alarm["Properties"];
        for actions in ["AlarmActions", "OKActions"] {
            let expected: Value =
                serde_yaml::from_str("!If [Notify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]")
                    .unwrap();
            assert_eq!(p[actions], expected, "{id}.{actions}");
        }
        assert!(
            p["AlarmDescription"]
                .as_str()
                .is_some_and(|d| d.contains("Operating it")),
            "{id} does not point to docs/operating.md"
        );
    }
    assert!(own >= 2, "the index lag and close backlog alarms");
}

/// `text` with every `${name}` replaced by `value(name)`.
fn substitute(text: &str, value: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').unwrap() + start;
        out.push_str(&value(&rest[start + 2..end]));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_dashboard_is_json_and_shows_every_alarm() {
    let monitoring = yaml("monitoring.yaml");
    let dashboards = resources_of_type(&monitoring, "AWS::CloudWatch::Dashboard");
    let Value::Tagged(sub) = &dashboards[0].1["Properties"]["DashboardBody"] else {
        panic!("the body is a !Sub");
    };
    let body = sub.value[0].as_str().unwrap();
    let variables = sub.value[1].as_mapping().unwrap();
    let resolved = substitute(body, |name| match variables.get(name) {
        Some(Value::Tagged(inner)) => {
            substitute(inner.value.as_str().unwrap(), |n| format!("<{n}>"))
        }
        Some(other) => panic!("{name}: {other:?}"),
        None => format!("<{name}>"),
    });
    let json: serde_json::Value = serde_json::from_str(&resolved)
        .unwrap_or_else(|e| panic!("the dashboard body is not JSON: {e}\n{resolved}"));
    let alarm_widget = json["widgets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["type"] == "alarm")
        .unwrap();
    let shown: BTreeSet<&str> = alarm_widget["properties"]["alarms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let alarms: BTreeSet<String> = resources_of_type(&monitoring, "AWS::CloudWatch::Alarm")
        .into_iter()
        .map(|(id, _)| format!("<{id}.Arn>"))
        .collect();
    assert_eq!(shown, alarms.iter().map(String::as_str).collect());

    // Every metric of the functions' own on a graph is documented, with its dimensions (a
    // row's "." repeats the row before's value).
    let documented = emf::documented(None);
    let mut own = 0;
    for widget in json["widgets"].as_array().unwrap() {
        let Some(rows) = widget["properties"]["metrics"].as_array() else {
            continue;
        };
        let mut before: Vec<String> = vec![];
        for row in rows {
            let row: Vec<String> = row
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .enumerate()
                .map(|(i, v)| if v == "." { before[i].clone() } else { v })
                .collect();
            if row.first().map(String::as_str) == Some(emf::NAMESPACE) {
                own += 1;
                let dimensions: Vec<&str> =
                    row[2..].iter().step_by(2).map(String::as_str).collect();
                let published = (row[1].clone(), dimensions.join(", "));
                assert!(
                    documented.contains(&published),
                    "{published:?} is not documented"
                );
            }
            before = row;
        }
    }
    assert!(own >= 8, "{own} graphs of the functions' own metrics");
}
