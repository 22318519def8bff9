//! The table definition, read from the `AWS::DynamoDB::Table` resource of `template.yaml`, and
//! table creation from it: the deployed table and every local one have the same keys, indexes,
//! stream and TTL because they come from the same lines.

use std::path::Path;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType, TableStatus,
    TimeToLiveSpecification,
};
use serde_yaml::Value;

use crate::DevError;

/// A key schema: (attribute name, `HASH` or `RANGE`).
pub type KeySchema = Vec<(String, String)>;

/// A global secondary index: its name, key schema and projection type.
#[derive(Debug, Clone)]
pub struct Gsi {
    /// The index name.
    pub name: String,
    /// Its key schema.
    pub key_schema: KeySchema,
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection: String,
}

/// The parts of the table resource that a local table needs.
#[derive(Debug, Clone)]
pub struct TableDefinition {
    /// The logical id of the resource in the template.
    pub logical_id: String,
    /// Attribute definitions (name, type).
    pub attributes: Vec<(String, String)>,
    /// The primary key schema (name, HASH/RANGE).
    pub key_schema: KeySchema,
    /// Global secondary indexes.
    pub gsis: Vec<Gsi>,
    /// The stream view type, if a stream is enabled.
    pub stream_view_type: Option<String>,
    /// The TTL attribute, if TTL is enabled.
    pub ttl_attribute: Option<String>,
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, DevError> {
    v.get(key)
        .ok_or_else(|| DevError::Template(format!("missing {key}")))
}

fn string(v: &Value, key: &str) -> Result<String, DevError> {
    field(v, key)?
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| DevError::Template(format!("{key} is not a string")))
}

fn list<'a>(v: &'a Value, key: &str) -> Result<&'a Vec<Value>, DevError> {
    field(v, key)?
        .as_sequence()
        .ok_or_else(|| DevError::Template(format!("{key} is not a list")))
}

fn key_schema(v: &Value) -> Result<KeySchema, DevError> {
    list(v, "KeySchema")?
        .iter()
        .map(|k| Ok((string(k, "AttributeName")?, string(k, "KeyType")?)))
        .collect()
}

impl TableDefinition {
    /// Reads the first `AWS::DynamoDB::Table` resource of the template at `path`.
    pub fn from_template(path: &Path) -> Result<TableDefinition, DevError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| DevError::Template(format!("{}: {e}", path.display())))?;
        Self::from_template_str(&text)
    }

    /// Reads the repository's `template.yaml`.
    pub fn from_repo() -> Result<TableDefinition, DevError> {
        Self::from_template(&crate::repo_root().join("template.yaml"))
    }

    /// Reads the first `AWS::DynamoDB::Table` resource of a template's text.
    pub fn from_template_str(text: &str) -> Result<TableDefinition, DevError> {
        let doc: Value =
            serde_yaml::from_str(text).map_err(|e| DevError::Template(e.to_string()))?;
        let resources = field(&doc, "Resources")?
            .as_mapping()
            .ok_or_else(|| DevError::Template("Resources is not a map".into()))?;
        let (id, table) = resources
            .iter()
            .find(|(_, r)| r.get("Type").and_then(Value::as_str) == Some("AWS::DynamoDB::Table"))
            .ok_or_else(|| DevError::Template("no AWS::DynamoDB::Table resource".into()))?;
        let props = field(table, "Properties")?;
        let attributes = list(props, "AttributeDefinitions")?
            .iter()
            .map(|a| Ok((string(a, "AttributeName")?, string(a, "AttributeType")?)))
            .collect::<Result<_, DevError>>()?;
        let gsis = match props.get("GlobalSecondaryIndexes") {
            None => Vec::new(),
            Some(_) => list(props, "GlobalSecondaryIndexes")?
                .iter()
                .map(|g| {
                    Ok(Gsi {
                        name: string(g, "IndexName")?,
                        key_schema: key_schema(g)?,
                        projection: string(field(g, "Projection")?, "ProjectionType")?,
                    })
                })
                .collect::<Result<_, DevError>>()?,
        };
        let stream_view_type = props
            .get("StreamSpecification")
            .map(|s| string(s, "StreamViewType"))
            .transpose()?;
        let ttl_attribute = match props.get("TimeToLiveSpecification") {
            Some(t) if t.get("Enabled").and_then(Value::as_bool) == Some(true) => {
                Some(string(t, "AttributeName")?)
            }
            _ => None,
        };
        Ok(TableDefinition {
            logical_id: id.as_str().unwrap_or("Table").to_owned(),
            attributes,
            key_schema: key_schema(props)?,
            gsis,
            stream_view_type,
            ttl_attribute,
        })
    }

    /// Creates a table of this definition named `name`, waits until it is active (at once on
    /// DynamoDB Local; kept for real endpoints), and enables TTL.
    pub async fn create(&self, client: &Client, name: &str) -> Result<(), DevError> {
        let dynamo = |e: &dyn std::fmt::Display| DevError::Dynamo(e.to_string());
        let keys = |ks: &[(String, String)]| -> Result<Vec<KeySchemaElement>, DevError> {
            ks.iter()
                .map(|(n, t)| {
                    KeySchemaElement::builder()
                        .attribute_name(n)
                        .key_type(KeyType::from(t.as_str()))
                        .build()
                        .map_err(|e| dynamo(&e))
                })
                .collect()
        };
        let mut req = client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest)
            .set_key_schema(Some(keys(&self.key_schema)?));
        for (n, t) in &self.attributes {
            req = req.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(n)
                    .attribute_type(ScalarAttributeType::from(t.as_str()))
                    .build()
                    .map_err(|e| dynamo(&e))?,
            );
        }
        for Gsi {
            name: index,
            key_schema: ks,
            projection,
        } in &self.gsis
        {
            req = req.global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name(index)
                    .set_key_schema(Some(keys(ks)?))
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::from(projection.as_str()))
                            .build(),
                    )
                    .build()
                    .map_err(|e| dynamo(&e))?,
            );
        }
        if let Some(view) = &self.stream_view_type {
            req = req.stream_specification(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(StreamViewType::from(view.as_str()))
                    .build()
                    .map_err(|e| dynamo(&e))?,
            );
        }
        req.send()
            .await
            .map_err(|e| dynamo(&aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
        for _ in 0..600 {
            let d = client
                .describe_table()
                .table_name(name)
                .send()
                .await
                .map_err(|e| dynamo(&aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
            if d.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        if let Some(attr) = &self.ttl_attribute {
            client
                .update_time_to_live()
                .table_name(name)
                .time_to_live_specification(
                    TimeToLiveSpecification::builder()
                        .attribute_name(attr)
                        .enabled(true)
                        .build()
                        .map_err(|e| dynamo(&e))?,
                )
                .send()
                .await
                .map_err(|e| dynamo(&aws_sdk_dynamodb::error::DisplayErrorContext(e)))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_repository_template() {
        let def = TableDefinition::from_repo().unwrap();
        assert_eq!(def.logical_id, "LeaderboardTable");
        assert_eq!(
            def.key_schema,
            [("pk".into(), "HASH".into()), ("sk".into(), "RANGE".into())]
        );
        let names: Vec<_> = def.gsis.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["GSI1", "GSI2"]);
        assert!(def.gsis.iter().all(|g| g.projection == "ALL"));
        assert_eq!(def.stream_view_type.as_deref(), Some("NEW_AND_OLD_IMAGES"));
        assert_eq!(def.ttl_attribute.as_deref(), Some("ttl"));
        assert_eq!(def.attributes.len(), 6);
    }

    #[test]
    fn rejects_a_template_without_a_table() {
        let e = TableDefinition::from_template_str("Resources:\n  X:\n    Type: AWS::SQS::Queue\n");
        assert!(matches!(e, Err(DevError::Template(_))));
    }
}
