//! The repository's one value: the [`Table`] (the SDK client, the table's name, the cursor
//! codec) and the deployment's settings of the features (the plays' rate limit, the erasure
//! secret, the rank index's lane pause). Built once per process; each feature, and the rank
//! index, adds the handle it is reached by (`store.plays()`, `store.rank()`...).

use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::erasure::Pseudonym;
use leaderboard_keys::ids::PlayerId;

use crate::ground::config::{self, Config, DEV_ERASURE_SECRET};
use crate::ground::error::StoreError;
use crate::ground::secrets::{self, Secret};
use crate::ground::tls;
use crate::primitives::board_cache::BoardCache;
use crate::rank::Rank;
use crate::rank::index_copy::{CopySettings, IndexCopies};
use crate::table::Table;
use crate::table::request::Params;

/// The longest a rank index rebuild or a lane grouping holds a lane's plays back, unless the
/// store says otherwise ([`Store::with_lane_pause`]).
pub const LANE_PAUSE: Duration = Duration::from_secs(10);

/// The play fence's attribute while the player is banned.
pub(crate) const FENCE_BANNED: &str = "banned";

/// The play fence's attribute once the player's erasure began.
pub(crate) const FENCE_ERASING: &str = "erasing";

/// The repository over one table. Cheap to clone: clones share the SDK client.
#[derive(Clone)]
pub struct Store {
    pub(crate) table: Table,
    /// The most plays a player may have accepted in any 60 s; 0: no limit.
    pub(crate) plays_per_minute: u32,
    /// The key of erased players' pseudonyms.
    pub(crate) erasure_secret: Arc<[u8]>,
    /// The longest a rank index rebuild or a lane grouping holds a lane's plays back.
    pub(crate) lane_pause: Duration,
    /// The plays' copies of hot boards (shared by the store's clones).
    pub(crate) boards_cached: Arc<BoardCache>,
    /// The plays' copies of hot boards' rank indexes (shared by the store's clones).
    pub(crate) index_copies: Arc<IndexCopies>,
}

impl Store {
    /// A store over `config.table_name` with an SDK client the caller built.
    pub fn new(client: Client, config: &Config) -> Store {
        Store {
            table: Table::new(client, config.table_name.clone(), &config.cursor_secret),
            plays_per_minute: 0,
            erasure_secret: Arc::from(DEV_ERASURE_SECRET),
            lane_pause: LANE_PAUSE,
            boards_cached: Arc::default(),
            index_copies: Arc::default(),
        }
    }

    /// The same store, its plays using their copy of a hot board's rank index for `keep`
    /// (instead of [`IndexCopies::KEEP`]): for tests and benchmarks that need a copy's use
    /// certain, whatever the machine's speed.
    pub fn with_index_copies_kept(self, keep: Duration) -> Store {
        let settings = self.index_copies.settings;
        self.with_copy_settings(CopySettings { keep, ..settings })
    }

    /// The same store, capping a hot board's lanes from `plays_per_second` (instead of
    /// [`IndexCopies::HOT_RATE`]): for tests and benchmarks of lane caps on a board DynamoDB
    /// Local can play that fast.
    pub fn with_lane_caps_from(self, plays_per_second: u64) -> Store {
        let settings = self.index_copies.settings;
        self.with_copy_settings(CopySettings {
            hot_rate: plays_per_second,
            ..settings
        })
    }

    /// The same store, a rank from a copy of a hot board's index tending its lanes every
    /// `every` (instead of twice a term): for tests that need the caps a process holds to stay
    /// as read, whatever the machine's speed.
    pub fn with_lanes_tended_every(self, every: Duration) -> Store {
        let settings = self.index_copies.settings;
        self.with_copy_settings(CopySettings {
            tend_every: every,
            ..settings
        })
    }

    /// The same store, its copies of hot boards' indexes (none kept yet) by `settings`.
    fn with_copy_settings(self, settings: CopySettings) -> Store {
        Store {
            index_copies: Arc::new(IndexCopies::new(settings)),
            ..self
        }
    }

    /// The same store, keying erased players' pseudonyms with `secret` (see
    /// [`config::erasure_secret`]).
    pub fn with_erasure_secret(self, secret: &[u8]) -> Store {
        Store {
            erasure_secret: Arc::from(secret),
            ..self
        }
    }

    /// `player`'s pseudonym: what an erasure leaves in their place, and the key of its marker.
    pub fn pseudonym(&self, player: &PlayerId) -> Pseudonym {
        Pseudonym::of(&self.erasure_secret, player)
    }

    /// The key of `player`'s erasure marker, `ERASED#<pseudonym>` / `#ERASURE`: present from
    /// the erasure's first write on, for good.
    pub(crate) fn erasure_marker(&self, player: &PlayerId) -> Key {
        entity::erasure(&self.pseudonym(player))
    }

    /// A transaction's check that `player` has no erasure marker: a play, a profile write or an
    /// admin action that commits after the marker would leave the id behind the erasure.
    pub(crate) fn tx_not_erased(&self, player: &PlayerId) -> Result<TransactWriteItem, StoreError> {
        self.table.tx_check(
            &self.erasure_marker(player),
            "attribute_not_exists(pk)",
            Params::new(),
        )
    }

    /// A transaction's check of `player`'s play fence: neither banned nor being erased (one
    /// item, where a ban and an erasure marker were two checks: 2 write units less a play).
    pub(crate) fn tx_fenced(&self, player: &PlayerId) -> Result<TransactWriteItem, StoreError> {
        self.table.tx_check(
            &entity::fence(&self.pseudonym(player)),
            "attribute_not_exists(#banned) AND attribute_not_exists(#erasing)",
            Params::new()
                .name("#banned", FENCE_BANNED)
                .name("#erasing", FENCE_ERASING),
        )
    }

    /// A transaction's update of `player`'s play fence: `attr` ([`FENCE_BANNED`] or
    /// [`FENCE_ERASING`]) set (`true`) or removed.
    pub(crate) fn tx_fence(
        &self,
        player: &PlayerId,
        attr: &str,
        set: bool,
    ) -> Result<TransactWriteItem, StoreError> {
        let key = entity::fence(&self.pseudonym(player));
        let params = Params::new().name("#a", attr);
        if set {
            self.table
                .tx_update(&key, "SET #a = :t", params.value(":t", true))
        } else {
            self.table.tx_update(&key, "REMOVE #a", params)
        }
    }

    /// What a write whose check of `player`'s play fence failed is refused as: erased, when
    /// the fence says they are being erased (one consistent `GetItem`), else banned.
    pub(crate) async fn fence_refusal(&self, player: &PlayerId) -> Result<StoreError, StoreError> {
        let fence = self
            .table
            .get_raw(&entity::fence(&self.pseudonym(player)))
            .await?;
        let player = player.clone();
        Ok(if fence.is_some_and(|f| f.contains_key(FENCE_ERASING)) {
            StoreError::Erased { player }
        } else {
            StoreError::Banned { player }
        })
    }

    /// The same store, accepting at most `limit` plays of a player in any 60 s (0: no limit;
    /// the default). See [`crate::features::plays::rate`].
    pub fn with_plays_per_minute(self, limit: u32) -> Store {
        Store {
            plays_per_minute: limit,
            ..self
        }
    }

    /// The same store, holding a lane's plays back for at most `pause` while a rank index
    /// rebuild writes its nodes or a lane grouping waits for the index ([`LANE_PAUSE`] by
    /// default): a rebuild whose node writes outlast the pause fails and is tried again by the
    /// next run, so a board whose writes are slower (a busy table) needs a longer one.
    pub fn with_lane_pause(self, pause: Duration) -> Store {
        Store {
            lane_pause: pause,
            ..self
        }
    }

    /// A store configured from the environment for a function given `secrets` (each as its
    /// value or the ARN to read it from, see [`secrets`]): `TABLE_NAME`,
    /// `LEADERBOARD_TLS_ROOTS` (see [`tls`]), and the SDK's own region, credentials and
    /// endpoint variables.
    pub async fn from_env(secrets: &[Secret]) -> Result<Store, StoreError> {
        Self::from_sdk(&Self::sdk_config_from_env().await?, secrets).await
    }

    /// The SDK's configuration from the environment (region, credentials, endpoint), on the
    /// store's HTTPS client (`LEADERBOARD_TLS_ROOTS`): for the other AWS clients a function
    /// builds beside its store, so that they share one client and one set of roots.
    pub async fn sdk_config_from_env() -> Result<aws_config::SdkConfig, StoreError> {
        Ok(aws_config::defaults(aws_config::BehaviorVersion::latest())
            .http_client(tls::http_client(tls::TlsRoots::from_env()?)?)
            .load()
            .await)
    }

    /// [`Store::from_env`] over an SDK configuration already loaded. A secret not in `secrets`
    /// is never read: the cursors of a function not given the cursor key are signed by a key
    /// of its own (its listings' cursors never leave it), and a function not given the
    /// erasure key (the reads function, which reads no erasure marker) keys pseudonyms with
    /// one of its own too.
    pub async fn from_sdk(
        sdk: &aws_config::SdkConfig,
        secrets: &[Secret],
    ) -> Result<Store, StoreError> {
        let env = |k: &str| std::env::var(k).ok();
        let loaded = secrets::load(sdk, secrets, env).await?;
        let given = |s: Secret| secrets.contains(&s);
        let lookup = |k: &str| match k {
            "CURSOR_SECRET" if !given(Secret::Cursor) => Some(config::private_key()),
            "ERASURE_SECRET" if !given(Secret::Erasure) => Some(config::private_key()),
            "CURSOR_SECRET" | "ERASURE_SECRET" => loaded.get(k).cloned(),
            _ => env(k),
        };
        let config = Config::from_lookup(lookup)?;
        let erasure = config::erasure_secret(lookup)?;
        Ok(Store::new(Client::new(sdk), &config).with_erasure_secret(&erasure))
    }

    /// The rank index (`src/rank/`): apply a batch, answer a rank, read the index as stored,
    /// and its maintenance runs (rebuild, repair, grouping, migration, sweep, widening).
    pub fn rank(&self) -> Rank<'_> {
        Rank {
            table: &self.table,
            lane_pause: self.lane_pause,
        }
    }

    /// The SDK client.
    pub fn client(&self) -> &Client {
        self.table.client()
    }

    /// The table name.
    pub fn table_name(&self) -> &str {
        self.table.name()
    }
}
