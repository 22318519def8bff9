//! A board's settings version on its lanes (`Board::settings_version`): what a change of the
//! settings a play decides by writes (the next version, on the board item and on every lane,
//! in the change's own transaction), and the condition a play's lane update holds on (the
//! version the play decided by). So a play may decide from a copy of the board read earlier
//! (`primitives::board_cache`), and never commits under settings the board no longer has: a stale
//! copy fails its lane update, and the retry reads the board again.
//!
//! Each change is conditioned on the version it read, so two changes (or a change and a lane
//! grouping, which copies the version onto the grouped lanes) never interleave; a lane never
//! written takes the version too (a lane without one holds only plays at version 0).

use crate::ground::model::Board;
use crate::table::request::Params;

/// The attribute of the version, on the board item and on each lane.
pub(crate) const SETTINGS_VERSION_ATTR: &str = "settingsVersion";

/// The condition that an item (a board item or a lane) is at `version`, with its names and
/// values added to `params`: `#sv` names the attribute, `:svr` the version read.
pub(crate) fn at_version(version: u64, params: Params) -> (&'static str, Params) {
    let params = params.name("#sv", SETTINGS_VERSION_ATTR);
    match version {
        0 => ("attribute_not_exists(#sv)", params),
        read => ("#sv = :svr", params.value(":svr", read)),
    }
}

/// A change of a board's settings, from the board as read: its board update takes
/// [`SettingsChange::SET`] and [`SettingsChange::condition`], and its transaction the lanes'
/// writes (`Table::lanes_at_version`, or [`SettingsChange::SET`] in a write of every lane
/// it already makes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SettingsChange {
    read: u64,
    grouped: bool,
}

impl SettingsChange {
    /// The clause of a `SET` that writes the next version (its value is `:svn`).
    pub(crate) const SET: &'static str = "#sv = :svn";

    /// A change of `board`'s settings as read.
    pub(crate) fn of(board: &Board) -> SettingsChange {
        SettingsChange {
            read: board.settings_version,
            grouped: board.lanes_grouped,
        }
    }

    /// The version the change writes.
    pub(crate) fn next(self) -> u64 {
        self.read + 1
    }

    /// `params` with the names and values of [`SettingsChange::SET`].
    pub(crate) fn set_params(self, params: Params) -> Params {
        params
            .name("#sv", SETTINGS_VERSION_ATTR)
            .value(":svn", self.next())
    }

    /// The board update's condition that no other change came first (the version as read)
    /// and that its lanes are where they were read (a grouping moves them: this change's lane
    /// writes would miss the grouped ones), with its names and values and those of
    /// [`SettingsChange::SET`] added to `params`.
    pub(crate) fn condition(self, params: Params) -> (String, Params) {
        let (version, params) = at_version(self.read, self.set_params(params));
        let params = params.name("#lgr", "lanesGrouped");
        let (layout, params) = match self.grouped {
            true => ("#lgr = :lgr", params.value(":lgr", true)),
            false => ("attribute_not_exists(#lgr)", params),
        };
        (format!("{version} AND {layout}"), params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_writes_the_next_version_on_condition_of_the_one_read_and_the_lanes_layout() {
        let first = SettingsChange {
            read: 0,
            grouped: true,
        };
        assert_eq!(first.next(), 1);
        let (condition, _) = first.condition(Params::new());
        assert_eq!(condition, "attribute_not_exists(#sv) AND #lgr = :lgr");
        let later = SettingsChange {
            read: 4,
            grouped: false,
        };
        assert_eq!(later.next(), 5);
        let (condition, _) = later.condition(Params::new());
        assert_eq!(condition, "#sv = :svr AND attribute_not_exists(#lgr)");
    }
}
