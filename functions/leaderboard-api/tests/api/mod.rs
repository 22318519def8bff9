//! leaderboard-api against DynamoDB Local, through the handler, with API Gateway v2 events.

use crate::common;

mod boards;
mod closed;
mod players;
mod ranks;

use std::collections::BTreeSet;

use futures::StreamExt;
use leaderboard_api::ROUTER;
use leaderboard_devkit::testing::{ranked, s};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use serde_json::{Value, json};

use common::*;
