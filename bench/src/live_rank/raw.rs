//! Raw TransactWriteItems shaped like a play's write on a v2 board, the yardstick of the
//! stack's submission rate: put the Session if new, check that the player is not banned, put
//! the entry pointer on its version, delete the old Score item if it exists, put the new one,
//! and update a rank lane on the condition that it is not paused. Six items, five conditions,
//! as the play's transaction; not the project's code. Written under keys nothing reads and the stream filter drops.

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, TransactWriteItem, Update,
};

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A put as an item of a transaction.
fn tx_put(put: aws_sdk_dynamodb::types::builders::PutBuilder) -> Result<TransactWriteItem, String> {
    Ok(TransactWriteItem::builder()
        .put(put.build().map_err(err)?)
        .build())
}

/// A Score item's sort key for `score` (padded as the board's).
fn score_sk(score: u64, player: &str) -> String {
    format!("RAWSCORE#{score:010}#{player}")
}

/// One client's transactions until `until`: how many succeeded, and failed.
async fn client(
    client: Client,
    table: String,
    w: usize,
    tag: String,
    until: Instant,
) -> Result<(usize, usize), String> {
    let player = format!("raw{tag}{w:04}");
    let (entry_pk, board_pk) = (format!("RAWLR#{player}"), "RAWLRBOARD#b".to_owned());
    // The player's first entry, outside the timing: every timed play replaces it.
    let put = |pk: &str, sk: String, extra: Vec<(&str, AttributeValue)>| {
        let mut p = Put::builder()
            .table_name(&table)
            .item("pk", s(pk))
            .item("sk", s(sk))
            .item("playerId", s(&player))
            .item("leaderboardId", s("raw"));
        for (k, v) in extra {
            p = p.item(k, v);
        }
        p
    };
    client
        .transact_write_items()
        .transact_items(tx_put(put(
            &entry_pk,
            "RAWENTRY#b".into(),
            vec![("version", n(0))],
        ))?)
        .transact_items(tx_put(put(
            &board_pk,
            score_sk(0, &player),
            vec![("score", n(0))],
        ))?)
        .send()
        .await
        .map_err(err)?;
    let (mut ok, mut failed) = (0, 0);
    let mut version = 0u64;
    while Instant::now() < until {
        let score = version + 1;
        let now = chrono::Utc::now();
        let session = format!("{}{w:04}{version:08}", tag);
        let items = vec![
            tx_put(
                put(
                    &entry_pk,
                    format!("RAWSESSION#{session}"),
                    vec![
                        ("sessionId", s(&session)),
                        ("gameId", s("bench")),
                        ("score", n(score)),
                        ("durationSec", n(60)),
                        ("createdAt", s(now.to_rfc3339())),
                        ("leaderboardIds", AttributeValue::L(vec![s("raw")])),
                        ("gsi2pk", s("RAWGAME#bench")),
                        ("gsi2sk", s(format!("RAWSESSION#{session}"))),
                    ],
                )
                .condition_expression("attribute_not_exists(pk)"),
            )?,
            TransactWriteItem::builder()
                .condition_check(
                    ConditionCheck::builder()
                        .table_name(&table)
                        .key("pk", s(&entry_pk))
                        .key("sk", s("RAWBAN"))
                        .condition_expression("attribute_not_exists(pk)")
                        .build()
                        .map_err(err)?,
                )
                .build(),
            tx_put(
                put(
                    &entry_pk,
                    "RAWENTRY#b".into(),
                    vec![
                        ("version", n(version + 1)),
                        ("score", n(score)),
                        ("scoreSk", s(score_sk(score, &player))),
                        ("attainedAt", s(now.to_rfc3339())),
                    ],
                )
                .condition_expression("version = :v")
                .expression_attribute_values(":v", n(version)),
            )?,
            TransactWriteItem::builder()
                .delete(
                    Delete::builder()
                        .table_name(&table)
                        .key("pk", s(&board_pk))
                        .key("sk", s(score_sk(version, &player)))
                        .condition_expression("attribute_exists(pk)")
                        .build()
                        .map_err(err)?,
                )
                .build(),
            tx_put(put(
                &board_pk,
                score_sk(score, &player),
                vec![("score", n(score)), ("attainedAt", s(now.to_rfc3339()))],
            ))?,
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name(&table)
                        .key("pk", s(format!("RAWLRLANE#{}", w % 10)))
                        .key("sk", s("RAWLANE"))
                        .update_expression("ADD written :one SET chg = :chg")
                        .condition_expression("attribute_not_exists(pause) OR pause < :now")
                        .expression_attribute_values(":one", n(1))
                        .expression_attribute_values(":now", n(now.timestamp_millis() as u64))
                        .expression_attribute_values(
                            ":chg",
                            AttributeValue::M(
                                [
                                    ("n".to_owned(), n(version + 1)),
                                    ("new".to_owned(), s(score_sk(score, &player))),
                                    ("old".to_owned(), s(score_sk(version, &player))),
                                ]
                                .into(),
                            ),
                        )
                        .build()
                        .map_err(err)?,
                )
                .build(),
        ];
        // Ten clients share ten lanes here as plays share a board's: a conflict on a lane is
        // retried, as the play's transaction is.
        match client
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
        {
            Ok(_) => {
                ok += 1;
                version += 1;
            }
            Err(_) => {
                failed += 1;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }
    Ok((ok, failed))
}

/// Raw transactions per second from `clients` concurrent clients for `seconds`.
pub async fn rate(
    client: &Client,
    table: &str,
    clients: usize,
    seconds: u64,
    tag: &str,
) -> Result<f64, String> {
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..clients)
        .map(|w| {
            tokio::spawn(self::client(
                client.clone(),
                table.to_owned(),
                w,
                tag.to_owned(),
                until,
            ))
        })
        .collect();
    let mut ok = 0;
    for t in tasks {
        let (done, _failed) = t.await.map_err(err)??;
        ok += done;
    }
    Ok(ok as f64 / started.elapsed().as_secs_f64())
}
