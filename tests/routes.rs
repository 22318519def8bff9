//! One route table: the template's `HttpApi` routes (what API Gateway and the local gateway
//! serve) are exactly the routes the three HTTP functions' routers handle, and exactly the
//! operations of `openapi.yaml`; and each route goes to the function whose router has it.

use crate::support;

use std::collections::BTreeSet;

use leaderboard_local::template::{Auth, HttpFunction, LocalTemplate};

type RouteSet = BTreeSet<(String, String)>;

fn router_routes<T: Copy>(router: &leaderboard_http::Router<T>) -> RouteSet {
    router
        .routes()
        .map(|(m, p)| (m.as_str().to_owned(), p.to_owned()))
        .collect()
}

#[test]
fn template_routes_are_the_routers_and_the_openapi_paths() {
    let template = LocalTemplate::from_repo().unwrap();
    let of = |f: HttpFunction| -> RouteSet {
        template
            .routes
            .iter()
            .filter(|r| r.function == f)
            .map(|r| (r.method.as_str().to_owned(), r.path.clone()))
            .collect()
    };
    let submit = router_routes(&submit_score::ROUTER);
    let reads = router_routes(&leaderboard_api::READ_ROUTER);
    let writes = router_routes(&leaderboard_api::WRITE_ROUTER);
    let api = router_routes(&leaderboard_api::ROUTER);
    assert_eq!(of(HttpFunction::SubmitScore), submit);
    assert_eq!(of(HttpFunction::LeaderboardApi), reads);
    assert_eq!(of(HttpFunction::LeaderboardWrites), writes);
    assert_eq!(api, reads.union(&writes).cloned().collect());
    assert_eq!(
        template.routes.len(),
        submit.len() + reads.len() + writes.len(),
        "a route is listed twice in template.yaml"
    );

    let openapi = support::openapi();
    let mut documented = RouteSet::new();
    for (path, ops) in openapi["paths"].as_mapping().unwrap() {
        for (method, _) in ops.as_mapping().unwrap() {
            let method = method.as_str().unwrap().to_ascii_uppercase();
            if ["GET", "PUT", "POST", "DELETE", "PATCH"].contains(&method.as_str()) {
                documented.insert((method, path.as_str().unwrap().to_owned()));
            }
        }
    }
    let all: RouteSet = submit.union(&api).cloned().collect();
    assert_eq!(all, documented);
}

#[test]
fn only_the_contracts_any_routes_skip_the_authorizer() {
    let template = LocalTemplate::from_repo().unwrap();
    let open: BTreeSet<String> = template
        .routes
        .iter()
        .filter(|r| r.auth == Auth::None)
        .map(|r| r.route_key())
        .collect();
    // The contract's "any" routes (contract.md, sections 2, 9 and 10).
    let expected: BTreeSet<String> = [
        "GET /leaderboards",
        "GET /leaderboards/{boardId}",
        "GET /leaderboards/{boardId}/scores",
        "GET /leaderboards/{boardId}/players/{playerId}",
        "GET /leaderboards/{boardId}/players/{playerId}/around",
        "GET /players/{playerId}",
        "GET /players/{playerId}/scores",
        "GET /players/{playerId}/sessions",
        "GET /players/{playerId}/sessions/{sessionId}",
        "GET /players/{playerId}/results",
        "GET /games/{gameId}/sessions",
        "GET /players/{playerId}/leagues/{boardId}",
        "GET /leaderboards/{boardId}/cohorts",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    // Beside them, one route that makes rather than reads, and so runs in the writes
    // function: the guest sign-up, which a player without an account calls (this project's
    // addition; it has its own limit a network, see openapi.yaml).
    let guest = "POST /players/guest".to_owned();
    let guest_route = template
        .routes
        .iter()
        .find(|r| r.route_key() == guest)
        .expect("the guest sign-up route");
    assert_eq!(guest_route.auth, Auth::None);
    assert_eq!(guest_route.function, HttpFunction::LeaderboardWrites);
    let open: BTreeSet<String> = open.into_iter().filter(|r| *r != guest).collect();
    assert_eq!(open, expected);
    // And they are the routes of the function whose role can only read.
    let read_only: BTreeSet<String> = template
        .routes
        .iter()
        .filter(|r| r.function == HttpFunction::LeaderboardApi)
        .map(|r| r.route_key())
        .collect();
    assert_eq!(read_only, expected);
}

#[test]
fn the_documents_error_codes_are_the_ones_the_functions_send() {
    let openapi = support::openapi();
    let documented: BTreeSet<&str> = openapi["components"]["schemas"]["Error"]["properties"]
        ["error"]["properties"]["code"]["enum"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let sent: BTreeSet<&str> = leaderboard_http::ERROR_CODES.iter().copied().collect();
    assert_eq!(documented, sent);
}
