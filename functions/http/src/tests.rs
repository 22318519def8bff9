//! Unit tests of the shared HTTP pieces: groups, identities, bodies, parameters, routes.

use lambda_http::http::Method;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::subject::player_id_of;
use leaderboard_store::StoreError;

use super::*;

#[test]
fn groups_in_every_form() {
    for raw in [
        "admin",
        "admin players",
        "[admin players]",
        "[\"admin\",\"players\"]",
        " [admin  players] ",
        "[admin]",
    ] {
        let g = parse_groups(raw);
        assert_eq!(g[0], "admin", "{raw}");
    }
    assert_eq!(
        parse_groups("[players moderators]"),
        ["players", "moderators"]
    );
    assert!(parse_groups("").is_empty());
    assert!(parse_groups("[]").is_empty());
    assert!(!parse_groups("administrators").contains(&"admin".to_owned()));
}

#[test]
fn a_comma_or_quote_never_splits_a_group_name() {
    for (raw, want) in [
        ("support,admin", vec!["support,admin"]),
        ("[support,admin]", vec!["support,admin"]),
        ("[support,admin players]", vec!["support,admin", "players"]),
        ("[\"support,admin\"]", vec!["support,admin"]),
        ("[\"support admin\"]", vec!["support admin"]),
        ("\"admin\"", vec!["\"admin\""]),
        ("[admin,]", vec!["admin,"]),
    ] {
        assert_eq!(parse_groups(raw), want, "{raw}");
        let id = Identity {
            player_id: player_id_of("p").unwrap(),
            groups: parse_groups(raw),
        };
        assert!(!id.is_admin(), "{raw}");
    }
}

#[test]
fn router_finds_routes_and_tells_404_from_405() {
    let r = Router::new(&[
        (Method::PUT, "/players/me", 1),
        (Method::GET, "/players/{playerId}", 2),
        (Method::GET, "/leaderboards/{boardId}/players/{playerId}", 3),
    ]);
    let (route, p) = r.find(&Method::GET, "/leaderboards/b1/players/p1").unwrap();
    assert_eq!(
        (route, p.get("boardId"), p.get("playerId")),
        (3, "b1", "p1")
    );
    assert_eq!(r.find(&Method::PUT, "/players/me").unwrap().0, 1);
    assert_eq!(r.find(&Method::GET, "/players/me/").unwrap().0, 2);
    assert_eq!(
        r.find(&Method::DELETE, "/players/p1").unwrap_err().status,
        405
    );
    assert_eq!(r.find(&Method::PUT, "/players/p1").unwrap_err().status, 405);
    assert_eq!(r.find(&Method::GET, "/players").unwrap_err().status, 404);
    assert_eq!(r.find(&Method::GET, "/nope/x").unwrap_err().status, 404);
    assert_eq!(
        r.find(&Method::GET, "/leaderboards//players/p1")
            .unwrap_err()
            .status,
        404
    );
    assert_eq!(r.routes().count(), 3);
}

#[test]
fn error_body_shape() {
    let resp = ApiError::not_found("leaderboard x not found").into_response();
    assert_eq!(resp.status(), 404);
    let body: serde_json::Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"error": {"code": "not_found", "message": "leaderboard x not found"}})
    );
    let resp = ApiError::unavailable()
        .with_session("01J0000000000000000000000A")
        .into_response();
    let body: serde_json::Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert_eq!(body["error"]["sessionId"], "01J0000000000000000000000A");
    assert_eq!(body["error"]["code"], "unavailable");
}

#[test]
fn store_errors_map_to_the_contract() {
    let b = leaderboard_keys::ids::BoardId::parse("b").unwrap();
    let cases: Vec<(StoreError, u16, &str)> = vec![
        (StoreError::Invalid("x".into()), 400, "invalid_request"),
        // A request the store could not build is its own fault, not the caller's.
        (StoreError::Request("x".into()), 500, "internal"),
        (StoreError::BadCursor, 400, "invalid_request"),
        (
            StoreError::ScoreOutOfRange {
                board: b.clone(),
                score: 11,
                min_score: 0,
                max_score: 10,
            },
            400,
            "score_out_of_range",
        ),
        (
            StoreError::NotFound {
                what: "leaderboard",
                id: "b".into(),
            },
            404,
            "not_found",
        ),
        (
            StoreError::AlreadyExists {
                what: "leaderboard",
                id: "b".into(),
            },
            409,
            "already_exists",
        ),
        (
            StoreError::BoardClosed {
                board: b,
                why: "closed",
            },
            409,
            "board_closed",
        ),
        (
            StoreError::Banned {
                player: PlayerId::parse("p1").unwrap(),
            },
            403,
            "banned",
        ),
        (
            StoreError::Erased {
                player: PlayerId::parse("p1").unwrap(),
            },
            403,
            "erased",
        ),
        (
            StoreError::Forbidden("servers only".into()),
            403,
            "forbidden",
        ),
        (
            StoreError::RateLimited {
                player: PlayerId::parse("p1").unwrap(),
                retry_after_secs: 7,
            },
            429,
            "rate_limited",
        ),
        (StoreError::Contention { attempts: 3 }, 503, "unavailable"),
        (
            StoreError::IdempotencyMismatch {
                session: leaderboard_keys::ids::SessionId::parse_stored(
                    "01HW0000000000000000000000",
                )
                .unwrap(),
                what: "score",
            },
            409,
            "idempotency_mismatch",
        ),
        (
            StoreError::Corrupt {
                key: "k".into(),
                reason: "r".into(),
            },
            500,
            "internal",
        ),
    ];
    for (e, status, code) in cases {
        let a = ApiError::from(e);
        assert_eq!((a.status.as_u16(), a.code), (status, code));
        // Only the answers that say when to come back carry `Retry-After`.
        let retry_after = a
            .clone()
            .into_response()
            .headers()
            .get("retry-after")
            .cloned();
        let want = match code {
            "rate_limited" => Some("7"),
            "unavailable" => Some("1"),
            _ => None,
        };
        assert_eq!(
            retry_after.as_ref().map(|v| v.to_str().unwrap()),
            want,
            "{code}"
        );
    }
}
