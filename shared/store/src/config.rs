//! Configuration, read once from the environment at start-up.
//!
//! - `TABLE_NAME`: the table (required).
//! - `CURSOR_SECRET`: the key that signs pagination cursors. Without it a key is derived from the
//!   table name, which keeps cursors tamper-evident against hand edits but not against someone
//!   who knows the table name: set it in production (the template does).
//! - The SDK's own variables (`AWS_REGION`, `AWS_ENDPOINT_URL`, credentials) choose the
//!   endpoint; nothing here names one.

use crate::StoreError;

/// The store's settings.
#[derive(Clone)]
pub struct Config {
    /// The table name.
    pub table_name: String,
    /// The secret that signs cursors.
    pub cursor_secret: Vec<u8>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("table_name", &self.table_name)
            .field("cursor_secret", &"<redacted>")
            .finish()
    }
}

impl Config {
    /// Reads `TABLE_NAME` and `CURSOR_SECRET`.
    pub fn from_env() -> Result<Config, StoreError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the settings through `lookup` (the environment, or a map in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, StoreError> {
        let table_name = lookup("TABLE_NAME")
            .filter(|t| !t.is_empty())
            .ok_or_else(|| StoreError::Config("TABLE_NAME is not set".into()))?;
        let cursor_secret = match lookup("CURSOR_SECRET").filter(|s| !s.is_empty()) {
            Some(s) => s.into_bytes(),
            None => format!("leaderboard-cursor:{table_name}").into_bytes(),
        };
        Ok(Config {
            table_name,
            cursor_secret,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_name_is_required() {
        assert!(Config::from_lookup(|_| None).is_err());
        assert!(Config::from_lookup(|k| (k == "TABLE_NAME").then(String::new)).is_err());
        let c = Config::from_lookup(|k| (k == "TABLE_NAME").then(|| "t".to_owned())).unwrap();
        assert_eq!(c.table_name, "t");
        assert!(!c.cursor_secret.is_empty());
        assert!(!format!("{c:?}").contains("leaderboard-cursor"));
    }
}
