//! The table floor: the one way a request reaches the table. Request builders and
//! placeholders, the retry policies every loop takes its budget from, batched reads and
//! writes, and keyed listings with their opaque cursors. It knows keys and items, never what
//! a board, a play or a rank is.

pub(crate) mod batch;
pub(crate) mod cursor;
pub(crate) mod merge;
pub(crate) mod query;
pub(crate) mod request;
pub(crate) mod retry;

use aws_sdk_dynamodb::Client;

use crate::table::cursor::CursorCodec;

/// The table a store works on: the SDK client, the table's name, and the codec that signs the
/// cursors its listings hand out. Every request method of this floor is on it.
#[derive(Clone)]
pub(crate) struct Table {
    client: Client,
    name: String,
    cursors: CursorCodec,
}

impl Table {
    /// The table `name` through `client`, its cursors signed with `cursor_secret`.
    pub(crate) fn new(client: Client, name: String, cursor_secret: &[u8]) -> Table {
        Table {
            client,
            name,
            cursors: CursorCodec::new(cursor_secret),
        }
    }

    /// The SDK client.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// The table's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}
