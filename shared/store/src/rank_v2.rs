//! The rank index's layout v2 in the table (see [`leaderboard_keys::rank_v2`] for the
//! structure and the fold): the change a play records on its lane.

use serde::Serialize;

/// A lane's latest change as stored in its `chg` attribute: the entry's old and new sort keys
/// (`o` absent for a first entry, `n` absent for a removal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct LaneChangeItem<'a> {
    /// The old sort key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub o: Option<&'a str>,
    /// The new sort key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<&'a str>,
}
