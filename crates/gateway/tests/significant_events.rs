//! The significant-events log as a regulator's auditor meets it (issue 50): what happened to a
//! player is there, each event written with the change it records; the log is found by subject,
//! kind and period, exported, and the export checked against the chain.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;
use common::{Login, TestGateway};
use platform::auth::Role;
use serde_json::{Value, json};

/// Every event of `query` (operators and auditors read them), chained first.
async fn events(gw: &TestGateway, reader: &Login, query: &str) -> Vec<Value> {
    platform::events::chain::chain_all(&gw.state.pool, None).await.unwrap();
    let page = gw.call("GET", &format!("/v1/events?limit=500&{query}"), Some(&reader.token), None).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    page.body["items"].as_array().unwrap().clone()
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn what_happened_to_a_player_is_in_the_log_in_order() {
    let gw = TestGateway::new().await;
    let auditor = gw.staff("audra", Role::Auditor).await;
    let operator = gw.staff("olga", Role::Operator).await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 5_000).await;
    // Three wrong passwords, then the lockout (the test gateway locks after three).
    let mut locked = false;
    for _ in 0..10 {
        let wrong = gw.login(json!({"email": "ann@example.com", "password": "not the password"})).await;
        if wrong.code() == "account_locked" {
            locked = true;
            break;
        }
    }
    assert!(locked, "the account locks");
    let set = gw
        .call(
            "PUT",
            "/v1/me/deposit-limits",
            Some(&ann.token),
            Some(json!({"period": "daily", "amount": 2_000})),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    let path = format!("/v1/players/{}/limits", ann.subject);
    let why = json!({"kind": "loss", "period": "daily", "amount": 300, "reason": "a call to the help line"});
    assert_eq!(gw.call("PUT", &path, Some(&operator.token), Some(why)).await.status, StatusCode::OK);
    let time_out =
        gw.call("POST", "/v1/me/time-out", Some(&ann.token), Some(json!({"period": "24_hours"}))).await;
    assert_eq!(time_out.status, StatusCode::OK, "{}", time_out.body);

    let anns = events(&gw, &auditor, &format!("player={}", ann.subject)).await;
    let seen = kinds(&anns);
    let first =
        |kind: &str| seen.iter().position(|k| *k == kind).unwrap_or_else(|| panic!("no {kind}: {seen:?}"));
    assert_eq!(seen[0], "registration", "{seen:?}");
    assert!(first("registration") < first("login") && first("login") < first("deposit"), "{seen:?}");
    assert!(first("login_failed") < first("lockout") && first("lockout") < first("break"), "{seen:?}");
    // The deposit limit (the gateway's), the operator's loss limit (the ledger's, with the
    // staff action that imposed it), the break.
    let limits: Vec<&Value> = anns.iter().filter(|e| e["kind"] == "limit_change").collect();
    assert_eq!(limits.len(), 2, "{seen:?}");
    assert!(
        limits.iter().any(|e| e["service"] == "gateway" && e["details"]["kind"] == "deposit"),
        "{limits:?}"
    );
    let imposed = limits.iter().find(|e| e["service"] == "ledger").unwrap();
    assert_eq!(
        (imposed["details"]["source"].as_str(), imposed["details"]["after_cents"].as_i64()),
        (Some("operator"), Some(300))
    );
    let action = anns.iter().find(|e| e["kind"] == "staff_action").unwrap();
    assert_eq!(action["staff_id"], operator.subject.as_str());
    assert_eq!(action["details"]["reason"], "a call to the help line");
    let deposit = anns.iter().find(|e| e["kind"] == "deposit").unwrap();
    assert_eq!(deposit["details"]["amount_cents"], 5_000);
    for pair in anns.windows(2) {
        assert!(pair[0]["seq"].as_i64() < pair[1]["seq"].as_i64());
    }
    // By kind, by member of staff, by period.
    let lockouts = events(&gw, &auditor, "kind=lockout").await;
    assert_eq!(lockouts.len(), 1);
    let olgas = events(&gw, &auditor, &format!("staff={}", operator.subject)).await;
    assert!(kinds(&olgas).contains(&"staff_action") && kinds(&olgas).contains(&"login"), "{olgas:?}");
    let future = events(&gw, &auditor, "from=2999-01-01T00:00:00Z").await;
    assert!(future.is_empty());
    // Pages follow one another.
    let page = gw
        .call("GET", &format!("/v1/events?limit=2&player={}", ann.subject), Some(&auditor.token), None)
        .await;
    let next = page.body["next"].as_str().unwrap();
    let rest = gw
        .call(
            "GET",
            &format!("/v1/events?limit=500&player={}&after={next}", ann.subject),
            Some(&auditor.token),
            None,
        )
        .await;
    assert_eq!(rest.body["items"].as_array().unwrap().len(), anns.len() - 2);
    // A player reads none of it; a period backwards is refused.
    let bo = gw.player("bo@example.com").await;
    assert_eq!(gw.call("GET", "/v1/events", Some(&bo.token), None).await.status, StatusCode::FORBIDDEN);
    let backwards = gw
        .call(
            "GET",
            "/v1/events?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
            Some(&auditor.token),
            None,
        )
        .await;
    assert_eq!((backwards.status, backwards.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_period"));
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn an_export_is_streamed_and_checks_against_the_chain() {
    let gw = TestGateway::new().await;
    let auditor = gw.staff("audra", Role::Auditor).await;
    for n in 0..3 {
        gw.player(&format!("p{n}@example.com")).await;
    }
    platform::events::chain::chain_all(&gw.state.pool, None).await.unwrap();
    let path = "/v1/events/export?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z";
    let jsonl = gw.call("GET", path, Some(&auditor.token), None).await;
    assert_eq!(jsonl.status, StatusCode::OK);
    let text = jsonl.body.as_str().unwrap().to_owned();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let count = header["events"].as_i64().unwrap();
    assert!(count >= 7, "three registrations and logins, a staff login: {header}");
    assert_eq!(i64::try_from(text.lines().count()).unwrap(), count + 1);
    let checked = check(&gw, &auditor, text.clone()).await;
    assert_eq!(
        (checked["file"]["intact"].as_bool(), checked["matches_chain"].as_bool()),
        (Some(true), Some(true)),
        "{checked}"
    );
    // An event's details changed in the file: found.
    let forged = text.replacen("\"kind\":\"registration\"", "\"kind\":\"login\"", 1);
    let checked = check(&gw, &auditor, forged).await;
    assert_eq!(
        (checked["file"]["intact"].as_bool(), checked["matches_chain"].as_bool()),
        (Some(false), Some(false)),
        "{checked}"
    );
    // CSV: the same events, the ends in the headers.
    let csv = gw.call("GET", &format!("{path}&format=csv"), Some(&auditor.token), None).await;
    assert_eq!(csv.status, StatusCode::OK);
    assert_eq!(i64::try_from(csv.body.as_str().unwrap().lines().count()).unwrap(), count + 1);
    assert_eq!(csv.headers["x-events-last-hash"].to_str().unwrap(), header["last_hash"].as_str().unwrap());
    // The chain walked over the API.
    let walked = gw.call("GET", "/v1/events/chain", Some(&auditor.token), None).await;
    assert_eq!(
        (walked.body["intact"].as_bool(), walked.body["complete"].as_bool()),
        (Some(true), Some(true)),
        "{}",
        walked.body
    );
    assert_eq!(walked.body["head_hash"], header["last_hash"]);
    let bad = gw
        .call(
            "GET",
            "/v1/events/export?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
            Some(&auditor.token),
            None,
        )
        .await;
    assert_eq!(bad.code(), "invalid_period");
}

async fn check(gw: &TestGateway, reader: &Login, file: String) -> Value {
    let request = axum::http::Request::post("/v1/events/export-check")
        .header("content-type", "application/jsonl")
        .header("authorization", format!("Bearer {}", reader.token))
        .body(axum::body::Body::from(file))
        .unwrap();
    let reply = gw.send(request).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    reply.body
}
