//! `POST /admin/recount` and `GET /admin/recount` through the API handler on DynamoDB Local: an
//! admin asks for a recount of every player and sees it go; anyone else is refused and nothing
//! is written.

use crate::common;

use common::*;

#[tokio::test]
async fn an_admin_asks_for_a_recount_and_sees_it_and_no_one_else_can() {
    let h = harness("api_recount").await;
    let before = h.table.dump().await;
    for who in [As::Anonymous, As::Player("p1")] {
        for method in ["POST", "GET"] {
            let (status, _) = h.call(method, "/admin/recount", who, None).await;
            assert!(status == 401 || status == 403, "{method} {status}");
        }
    }
    assert_eq!(h.table.dump().await, before, "a refusal writes nothing");
    let admin = As::Admin("ops");
    let (status, body) = h.call("GET", "/admin/recount", admin, None).await;
    assert_eq!((status, code(&body)), (404, "not_found"));

    let (status, asked) = h.call("POST", "/admin/recount", admin, None).await;
    assert_eq!(status, 202, "{asked}");
    assert_eq!(asked["requestedBy"], "ops");
    assert_eq!(asked["scanned"], false);
    assert!(asked.get("doneAt").is_none(), "{asked}");
    let (status, seen) = h.call("GET", "/admin/recount", admin, None).await;
    assert_eq!((status, &seen), (200, &asked));

    // The schedule's runs work it to the end (nothing to recount on this table).
    let run = h
        .store
        .projection()
        .run_recount(&Default::default(), None)
        .await
        .unwrap();
    assert!(run.done, "{run:?}");
    let (_, done) = h.call("GET", "/admin/recount", admin, None).await;
    assert_eq!(done["scanned"], true);
    assert!(done["doneAt"].is_string(), "{done}");
}
