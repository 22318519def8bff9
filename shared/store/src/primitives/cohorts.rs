//! A league board's cohort cursors, as the close (how many cohorts to wait for) and the
//! cohorts' listing (how many players each holds) read them.

use leaderboard_keys::entity::{self, COHORT_CURSOR_PREFIX};
use leaderboard_keys::ids::{BoardId, TierName};

use crate::ground::error::StoreError;
use crate::ground::items::{from_item, key_string};
use crate::ground::league::CohortCursor;
use crate::table::Table;
use crate::table::request::{Index, Params, WithParams};

impl Table {
    /// Each tier's cohort cursor of league board `id`: one consistent Query, an item a tier.
    pub(crate) async fn cohort_cursors(
        &self,
        id: &BoardId,
    ) -> Result<Vec<(TierName, CohortCursor)>, StoreError> {
        let query = self
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :cursors)")
            .params(
                Params::new()
                    .value(":pk", entity::board_pk(id))
                    .value(":cursors", COHORT_CURSOR_PREFIX),
            )?
            .consistent_read(true);
        let mut cursors = Vec::new();
        self.query_pages("Query(cohort cursors)", query, |out| {
            for item in out.items.unwrap_or_default() {
                let sk = key_string(&item, "sk");
                let tier = sk.strip_prefix(COHORT_CURSOR_PREFIX).unwrap_or_default();
                let tier = TierName::parse(tier).map_err(|e| StoreError::corrupt(&sk, e))?;
                cursors.push((tier, from_item(item)?));
            }
            Ok(())
        })
        .await?;
        Ok(cursors)
    }
}
