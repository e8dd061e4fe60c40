//! Players, staff and terminals through the gateway: registration, logins, lockout, sessions,
//! deposits within limits, self-exclusion, API keys.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::{Duration, Utc};
use common::{PASSWORD, TestGateway};
use platform::auth::Role;
use serde_json::{Value, json};

/// A registration opens a wallet and mails the link that proves the address; the same address
/// again is answered the same (nobody learns who plays), and the address is told instead.
#[tokio::test]
async fn registration_opens_a_wallet_and_refuses_minors_and_bad_input() {
    let gw = TestGateway::new().await;
    let reply = gw.register("Ann@Example.com").await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
    assert_eq!(reply.body["email"], "ann@example.com");
    assert!(reply.body.get("id").is_none() && reply.body.get("password_hash").is_none());
    let (id, wallet_id): (uuid::Uuid, uuid::Uuid) =
        sqlx::query_as("SELECT id, wallet_account_id FROM players WHERE email = 'ann@example.com'")
            .fetch_one(&gw.state.pool)
            .await
            .unwrap();
    let owner: String = sqlx::query_scalar("SELECT owner FROM ledger.accounts WHERE id = $1")
        .bind(wallet_id)
        .fetch_one(&gw.ledger_pool)
        .await
        .unwrap();
    assert_eq!(owner, id.to_string());

    let again = gw.register("ann@example.com").await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.body);
    assert_eq!(again.body, reply.body, "a taken address is answered as a new one");
    let players: i64 =
        sqlx::query_scalar("SELECT count(*) FROM players").fetch_one(&gw.state.pool).await.unwrap();
    assert_eq!(players, 1);
    let mail = gw.mail_to("ann@example.com").await;
    let kinds: Vec<&str> = mail.iter().map(|m| m["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["verify_email", "already_registered"], "{mail:#?}");
    assert_eq!(mail[0]["player_id"], json!(id));
    assert!(mail[1]["body"].as_str().unwrap().contains("#/forgot-password"), "{}", mail[1]["body"]);

    let today = Utc::now().date_naive();
    let seventeen = today.checked_sub_months(chrono::Months::new(18 * 12)).unwrap() + Duration::days(1);
    let eighteen = today.checked_sub_months(chrono::Months::new(18 * 12)).unwrap();
    let minor = gw
        .call(
            "POST",
            "/v1/players",
            None,
            Some(json!({"email": "kid@example.com", "password": PASSWORD, "date_of_birth": seventeen})),
        )
        .await;
    assert_eq!((minor.status, minor.code()), (StatusCode::UNPROCESSABLE_ENTITY, "under_age"));
    let adult = gw
        .call(
            "POST",
            "/v1/players",
            None,
            Some(json!({"email": "adult@example.com", "password": PASSWORD, "date_of_birth": eighteen})),
        )
        .await;
    assert_eq!(adult.status, StatusCode::ACCEPTED, "18 today may play");

    let cases = [
        (
            json!({"email": "not-an-email", "password": PASSWORD, "date_of_birth": "1990-01-01"}),
            "invalid_email",
        ),
        (
            json!({"email": "b@example.com", "password": "short", "date_of_birth": "1990-01-01"}),
            "weak_password",
        ),
        (
            json!({"email": "b@example.com", "password": PASSWORD, "date_of_birth": "1990-13-01"}),
            "invalid_body",
        ),
        (json!({"email": "b@example.com", "password": PASSWORD}), "invalid_body"),
    ];
    for (body, code) in cases {
        let reply = gw.call("POST", "/v1/players", None, Some(body.clone())).await;
        assert_eq!(reply.code(), code, "{body}");
    }
}

#[tokio::test]
async fn login_shows_the_previous_login_and_logout_ends_the_session() {
    let gw = TestGateway::new().await;
    gw.register("bob@example.com").await;
    let first = gw.login(json!({"email": "bob@example.com", "password": PASSWORD})).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(first.body["previous_login_at"], Value::Null);
    assert_eq!(first.headers["cache-control"], "no-store", "a token is never cached");
    assert_eq!(first.headers["x-content-type-options"], "nosniff");
    assert_eq!(
        (first.body["role"].clone(), first.body["token_type"].clone()),
        (json!("player"), json!("Bearer"))
    );
    let second = gw.login(json!({"email": "BOB@example.com", "password": PASSWORD})).await;
    assert!(second.body["previous_login_at"].is_string(), "{}", second.body);

    let token = second.body["access_token"].as_str().unwrap();
    let me = gw.call("GET", "/v1/me", Some(token), None).await;
    assert_eq!((me.status, me.body["player"]["email"].clone()), (StatusCode::OK, json!("bob@example.com")));
    assert_eq!(
        gw.call("DELETE", "/v1/sessions/current", Some(token), None).await.status,
        StatusCode::NO_CONTENT
    );
    let after = gw.call("GET", "/v1/me", Some(token), None).await;
    assert_eq!((after.status, after.code()), (StatusCode::UNAUTHORIZED, "session_ended"));
    // The other session is untouched.
    let other = first.body["access_token"].as_str().unwrap();
    assert_eq!(gw.call("GET", "/v1/me", Some(other), None).await.status, StatusCode::OK);
    // Another replica learns of the ended session from the database.
    let fresh = gateway::auth::EndedSessions::default();
    fresh.refresh(&gw.state.pool).await.unwrap();
    let claims = gw.tokens.verify(token).unwrap();
    assert!(fresh.contains(&claims.sid.unwrap()));
}

#[tokio::test]
async fn repeated_failures_lock_the_account_for_a_while() {
    let gw = TestGateway::new().await;
    gw.register("carl@example.com").await;
    // Three in a row by default (the New Jersey and Pennsylvania rules).
    for _ in 0..2 {
        let reply = gw.login(json!({"email": "carl@example.com", "password": "wrong password!"})).await;
        assert_eq!((reply.status, reply.code()), (StatusCode::UNAUTHORIZED, "invalid_credentials"));
    }
    let third = gw.login(json!({"email": "carl@example.com", "password": "wrong password!"})).await;
    assert_eq!((third.status, third.code()), (StatusCode::FORBIDDEN, "account_locked"));
    let retry: u64 = third.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((800..=900).contains(&retry), "{retry}");
    let right = gw.login(json!({"email": "carl@example.com", "password": PASSWORD})).await;
    assert_eq!(right.code(), "account_locked", "the right password does not open a locked account");
    // Unknown accounts answer like wrong passwords.
    let unknown = gw.login(json!({"email": "nobody@example.com", "password": PASSWORD})).await;
    assert_eq!(unknown.code(), "invalid_credentials");

    sqlx::query("UPDATE players SET locked_until = now() - interval '1 second'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let later = gw.login(json!({"email": "carl@example.com", "password": PASSWORD})).await;
    assert_eq!(later.status, StatusCode::CREATED, "{}", later.body);
}

#[tokio::test]
async fn the_operator_chooses_how_many_failures_lock_an_account_and_for_how_long() {
    let gw = TestGateway::new().await;
    gw.register("cleo@example.com").await;
    // As `LOTTO_LOCKOUT_AFTER_FAILURES=5` and `LOTTO_LOCKOUT_MINUTES=60` set it.
    let mut state = gw.state.clone();
    state.sessions.lockout_after_failures = 5;
    state.sessions.lockout = std::time::Duration::from_secs(3600);
    let router = gateway::router(state, platform::http::Limits::default());
    let login = || {
        let body = json!({"email": "cleo@example.com", "password": "wrong password!"}).to_string();
        let request = Request::post("/v1/sessions")
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap();
        platform::testing::send(&router, request)
    };
    for _ in 0..4 {
        assert_eq!(login().await.code(), "invalid_credentials");
    }
    let fifth = login().await;
    assert_eq!((fifth.status, fifth.code()), (StatusCode::FORBIDDEN, "account_locked"));
    let retry: u64 = fifth.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((3_500..=3_600).contains(&retry), "{retry}");
}

#[tokio::test]
async fn a_player_sees_their_own_wallet_and_deposits_within_limits() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let bob = gw.player("bob@example.com").await;

    let deposit = |amount: i64| json!({"amount": amount, "currency": "USD"});
    let first = gw.deposit(&ann.token, "d1", deposit(5_000)).await;
    assert_eq!(
        (first.status, first.body["state"].as_str()),
        (StatusCode::ACCEPTED, Some("pending")),
        "{}",
        first.body
    );
    let replay = gw.deposit(&ann.token, "d1", deposit(5_000)).await;
    assert_eq!(
        (replay.status, replay.body["id"].clone()),
        (StatusCode::OK, first.body["id"].clone()),
        "a replay"
    );
    let other = gw.deposit(&ann.token, "d1", deposit(6_000)).await;
    assert_eq!((other.status, other.code()), (StatusCode::CONFLICT, "idempotency_conflict"));
    let bobs = gw.deposit(&bob.token, "d1", deposit(700)).await;
    assert_eq!(bobs.status, StatusCode::ACCEPTED, "keys are per player");
    let paid = gw.settled_payment(&ann.token, first.body["id"].as_str().unwrap()).await;
    assert_eq!(paid["state"], "succeeded");
    gw.settled_payment(&bob.token, bobs.body["id"].as_str().unwrap()).await;
    let not_hers = gw
        .call(
            "GET",
            &format!("/v1/me/payments/{}", bobs.body["id"].as_str().unwrap()),
            Some(&ann.token),
            None,
        )
        .await;
    assert_eq!(not_hers.status, StatusCode::NOT_FOUND);

    let wallet = gw.call("GET", "/v1/me/wallet", Some(&ann.token), None).await;
    assert_eq!(wallet.body["balance"]["posted"], 5_000);
    let history = gw.call("GET", "/v1/me/wallet/transfers", Some(&ann.token), None).await;
    assert_eq!(history.body["items"].as_array().unwrap().len(), 1);

    // Lowering takes effect at once.
    let set = gw
        .call(
            "PUT",
            "/v1/me/deposit-limits",
            Some(&ann.token),
            Some(json!({"period": "daily", "amount": 6_000})),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    let over = gw.deposit(&ann.token, "d2", deposit(1_001)).await;
    assert_eq!((over.status, over.code()), (StatusCode::UNPROCESSABLE_ENTITY, "deposit_limit_exceeded"));
    assert_eq!(over.body["context"], json!({"period": "daily", "limit": 6_000, "used": 5_000}));
    assert_eq!(gw.deposit(&ann.token, "d3", deposit(1_000)).await.status, StatusCode::ACCEPTED);

    // Raising waits 24 hours.
    let raise = gw
        .call(
            "PUT",
            "/v1/me/deposit-limits",
            Some(&ann.token),
            Some(json!({"period": "daily", "amount": 50_000})),
        )
        .await;
    let daily = &raise.body.as_array().unwrap()[0];
    assert_eq!((daily["amount"].clone(), daily["pending_amount"].clone()), (json!(6_000), json!(50_000)));
    assert_eq!(gw.deposit(&ann.token, "d4", deposit(100)).await.code(), "deposit_limit_exceeded");
    sqlx::query("UPDATE player_limits SET pending_from = now() - interval '1 second'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let raised = gw.deposit(&ann.token, "d5", deposit(100)).await;
    assert_eq!(raised.status, StatusCode::ACCEPTED, "the raise applies after the delay");
    let limits = gw.call("GET", "/v1/me/deposit-limits", Some(&ann.token), None).await;
    assert_eq!(limits.body[0]["amount"], 50_000);

    assert_eq!(gw.deposit(&ann.token, "d6", deposit(0)).await.code(), "invalid_amount");
    assert_eq!(gw.deposit(&ann.token, "d7", deposit(i64::MAX)).await.code(), "amount_too_large");
    gw.settled_payment(&ann.token, raised.body["id"].as_str().unwrap()).await;
    let bob_wallet = gw.call("GET", "/v1/me/wallet", Some(&bob.token), None).await;
    assert_eq!(bob_wallet.body["balance"]["posted"], 700);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn self_exclusion_ends_sessions_at_once_and_suspends_play_not_login() {
    let gw = TestGateway::new().await;
    let dee = gw.player("dee@example.com").await;
    let second = gw.login(json!({"email": "dee@example.com", "password": PASSWORD})).await;
    let bad =
        gw.call("POST", "/v1/me/self-exclusion", Some(&dee.token), Some(json!({"period": "2_weeks"}))).await;
    assert_eq!(bad.code(), "invalid_body");
    let reply =
        gw.call("POST", "/v1/me/self-exclusion", Some(&dee.token), Some(json!({"period": "6_months"}))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let until: chrono::DateTime<Utc> = reply.body["self_excluded_until"].as_str().unwrap().parse().unwrap();
    let expected = Utc::now().checked_add_months(chrono::Months::new(6)).unwrap();
    assert!((until - expected).num_seconds().abs() < 60);

    for token in [dee.token.as_str(), second.body["access_token"].as_str().unwrap()] {
        assert_eq!(gw.call("GET", "/v1/me/wallet", Some(token), None).await.code(), "session_ended");
    }
    // Dee may log in again (to see when it ends, and to withdraw); no stake or deposit is taken.
    let login = gw.login(json!({"email": "dee@example.com", "password": PASSWORD})).await;
    assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
    let token = login.body["access_token"].as_str().unwrap();
    let me = gw.call("GET", "/v1/me", Some(token), None).await;
    assert_eq!(me.body["player"]["self_excluded_until"], reply.body["self_excluded_until"]);
    let ticket = Request::post("/v1/keno/tickets")
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .header("idempotency-key", "excluded-1")
        .body(Body::from(json!({"option": "bet", "spots": [7]}).to_string()))
        .unwrap();
    let refused = gw.send(ticket).await;
    assert_eq!(
        (refused.code(), &refused.body["context"]["reason"]),
        ("play_suspended", &json!("self_exclusion"))
    );
    let deposit = gw.deposit(token, "excluded-deposit", json!({"amount": 100, "currency": "USD"})).await;
    assert_eq!((deposit.status, deposit.code()), (StatusCode::FORBIDDEN, "self_excluded"));
}

#[tokio::test]
async fn terminals_log_in_with_a_key_shown_once_until_it_is_revoked() {
    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", Role::Operator).await;
    let (terminal, key) = gw.terminal(&operator).await;
    let me = gw.call("GET", "/v1/me", Some(&terminal.token), None).await;
    assert_eq!(me.body["role"], "retailer");
    let stored: Vec<u8> =
        sqlx::query_scalar("SELECT key_hash FROM terminals").fetch_one(&gw.state.pool).await.unwrap();
    assert_eq!(stored.len(), 32, "only a SHA-256 digest is stored");

    let mut wrong = key.clone();
    wrong.pop();
    wrong.push(if key.ends_with('0') { '1' } else { '0' });
    assert_eq!(gw.login(json!({"api_key": wrong})).await.code(), "invalid_credentials");

    // The console lists it by its label and the key's first characters, never the key.
    let retailer: uuid::Uuid =
        sqlx::query_scalar("SELECT retailer_id FROM terminals").fetch_one(&gw.state.pool).await.unwrap();
    // The till learns its retailer (for its statement) from /v1/me.
    let me = gw.call("GET", "/v1/me", Some(&terminal.token), None).await;
    assert_eq!(me.body["retailer_id"], retailer.to_string(), "{}", me.body);
    let listing = format!("/v1/retailers/{retailer}/terminals");
    let listed = gw.call("GET", &listing, Some(&operator.token), None).await;
    let item = &listed.body["items"][0];
    assert_eq!((item["id"].as_str(), &item["revoked_at"]), (Some(terminal.subject.as_str()), &Value::Null));
    assert!(key.starts_with(&format!("lk_{}_", item["key_prefix"].as_str().unwrap())), "{item}");
    assert!(!listed.body.to_string().contains(&key), "the key is shown once only: {}", listed.body);

    let path = format!("/v1/terminals/{}", terminal.subject);
    assert_eq!(gw.call("DELETE", &path, Some(&operator.token), None).await.status, StatusCode::NO_CONTENT);
    assert_eq!(gw.call("GET", "/v1/me", Some(&terminal.token), None).await.code(), "session_ended");
    assert_eq!(gw.login(json!({"api_key": key})).await.code(), "key_revoked");
    let listed = gw.call("GET", &listing, Some(&operator.token), None).await;
    assert!(listed.body["items"][0]["revoked_at"].is_string(), "{}", listed.body);
    let unknown = format!("/v1/retailers/{}/terminals", uuid::Uuid::nil());
    assert_eq!(gw.call("GET", &unknown, Some(&operator.token), None).await.code(), "retailer_not_found");
}

#[tokio::test]
async fn operators_create_staff_and_auditors_only_read() {
    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", Role::Operator).await;
    let new = json!({"username": "Audrey", "password": PASSWORD, "role": "auditor"});
    let created = gw.call("POST", "/v1/staff", Some(&operator.token), Some(new.clone())).await;
    assert_eq!((created.status, created.body["username"].clone()), (StatusCode::CREATED, json!("audrey")));
    assert_eq!(gw.call("POST", "/v1/staff", Some(&operator.token), Some(new)).await.code(), "username_taken");

    // Her first login enrols her second factor (she logs in with it after).
    let refused = gw.login(json!({"username": "audrey", "password": PASSWORD})).await;
    assert_eq!(refused.code(), "second_factor_enrolment_required", "{}", refused.body);
    let auditor = gw.enrol("audrey").await["session"]["access_token"].as_str().unwrap().to_owned();
    assert_eq!(gw.call("GET", "/v1/staff", Some(&auditor), None).await.status, StatusCode::OK);
    assert_eq!(
        gw.call("GET", "/v1/reports/trial-balance", Some(&auditor), None).await.status,
        StatusCode::OK
    );
    let write = gw.call("POST", "/v1/retailers", Some(&auditor), Some(json!({"name": "x"}))).await;
    assert_eq!((write.status, write.code()), (StatusCode::FORBIDDEN, "forbidden"));
    let promote = json!({"username": "mallory", "password": PASSWORD, "role": "operator"});
    assert_eq!(
        gw.call("POST", "/v1/staff", Some(&auditor), Some(promote)).await.status,
        StatusCode::FORBIDDEN
    );
}

/// Two replicas of the gateway taking turns admit one limit's worth between them, not two
/// (issue 34): 30 requests from one address over both within about a second, against a burst of
/// 10 refilled at one a second.
#[tokio::test]
async fn replicas_share_one_limit() {
    let gw = TestGateway::with_quota(gateway::rate_limit::Quota { per_minute: 60, burst: 10 }).await;
    let replicas = [gw.router.clone(), gw.replica().router];
    let started = std::time::Instant::now();
    let mut admitted = 0;
    for n in 0..30 {
        let request = Request::post("/v1/sessions")
            .header("content-type", "application/json")
            .body(Body::from(json!({"api_key": "nope"}).to_string()))
            .unwrap();
        let reply = platform::testing::send(&replicas[n % 2], request).await;
        if reply.status != StatusCode::TOO_MANY_REQUESTS {
            admitted += 1;
        }
    }
    // What refilled while the requests were made counts too (one a second).
    let refilled = started.elapsed().as_secs() + 1;
    assert!(
        (10..=10 + refilled).contains(&admitted),
        "{admitted} admitted over two replicas in {:?}: each limited alone would admit 20",
        started.elapsed()
    );
}

/// Forty requests of one address at once share one draw from the shared bucket (each drawing
/// its own allowance would take the burst many times over and refuse most of them).
#[tokio::test]
async fn requests_at_once_draw_one_allowance_between_them() {
    let gw = TestGateway::with_quota(gateway::rate_limit::Quota { per_minute: 6_000, burst: 100 }).await;
    let mut calls = Vec::new();
    for _ in 0..40 {
        let router = gw.router.clone();
        calls.push(tokio::spawn(async move {
            let request = Request::post("/v1/sessions")
                .header("content-type", "application/json")
                .body(Body::from(json!({"api_key": "nope"}).to_string()))
                .unwrap();
            platform::testing::send(&router, request).await.status
        }));
    }
    let mut refused = 0;
    for call in calls {
        refused += usize::from(call.await.unwrap() == StatusCode::TOO_MANY_REQUESTS);
    }
    assert_eq!(refused, 0, "40 requests against a burst of 100");
}

#[tokio::test]
async fn a_busy_identity_or_address_is_slowed_with_retry_after() {
    let gw = TestGateway::with_quota(gateway::rate_limit::Quota { per_minute: 60, burst: 5 }).await;
    let mut statuses = Vec::new();
    for _ in 0..7 {
        let reply = gw.call("GET", "/healthz", None, None).await;
        statuses.push(reply.status);
    }
    // Probes are not rate limited: they live outside the gateway's routes.
    assert!(statuses.iter().all(|s| *s == StatusCode::OK));
    let mut last = None;
    let mut remaining = Vec::new();
    for _ in 0..6 {
        let reply = gw.call("POST", "/v1/sessions", None, Some(json!({"api_key": "nope"}))).await;
        let header = |name: &str| reply.headers[name].to_str().unwrap().parse::<u64>().unwrap();
        // Every answer says where the caller stands (ADR 0009 §7).
        assert_eq!(header("ratelimit-limit"), 5);
        remaining.push(header("ratelimit-remaining"));
        assert!(header("ratelimit-reset") >= 1);
        last = Some(reply);
    }
    assert_eq!(
        remaining,
        vec![4, 3, 2, 1, 0, 0],
        "each request takes one; the refused one says none is left"
    );
    let last = last.unwrap();
    assert_eq!((last.status, last.code()), (StatusCode::TOO_MANY_REQUESTS, "rate_limited"));
    assert!(last.headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);

    // A second replica draws from the same bucket: the address has used its burst.
    let login = || {
        Request::post("/v1/sessions")
            .header("content-type", "application/json")
            .body(Body::from(json!({"api_key": "nope"}).to_string()))
            .unwrap()
    };
    let elsewhere = gw.replica().send(login()).await;
    assert_eq!(elsewhere.status, StatusCode::TOO_MANY_REQUESTS, "{}", elsewhere.body);

    // The per-identity limit counts a token whatever the case of its scheme, as the handlers
    // accept it: `BEARER` is not a way around it.
    let gw = TestGateway::with_quotas(
        gateway::rate_limit::Quota { per_minute: 60, burst: 5 },
        gateway::rate_limit::Quota { per_minute: 1_000_000, burst: 1_000_000 },
    )
    .await;
    let ann = gw.player("ann@example.com").await;
    let mut statuses = Vec::new();
    for scheme in ["BEARER", "bearer", "BeArEr", "Bearer", "BEARER", "bearer", "BEARER"] {
        let request = Request::get("/v1/me")
            .header("authorization", format!("{scheme} {}", ann.token))
            .body(Body::empty())
            .unwrap();
        statuses.push(gw.send(request).await.status);
    }
    assert_eq!(statuses.first(), Some(&StatusCode::OK), "the handler accepts any case");
    let limited = gw
        .send(
            Request::get("/v1/me")
                .header("authorization", format!("BEARER {}", ann.token))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert!(statuses.contains(&StatusCode::TOO_MANY_REQUESTS), "{statuses:?}");
    assert!(limited.body["detail"].as_str().unwrap().contains("identity"), "{}", limited.body);
}

#[tokio::test]
async fn operators_find_a_player_by_email_whatever_its_case() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let operator = gw.staff("olga", Role::Operator).await;
    let found = gw.call("GET", "/v1/players?email=%20Ann@Example.com", Some(&operator.token), None).await;
    assert_eq!(
        (found.status, found.body["id"].as_str()),
        (StatusCode::OK, Some(ann.subject.as_str())),
        "{}",
        found.body
    );
    let unknown = gw.call("GET", "/v1/players?email=nobody@example.com", Some(&operator.token), None).await;
    assert_eq!((unknown.status, unknown.code()), (StatusCode::NOT_FOUND, "player_not_found"));
    assert_eq!(gw.call("GET", "/v1/players", Some(&operator.token), None).await.code(), "invalid_query");
    let as_player = gw.call("GET", "/v1/players?email=ann@example.com", Some(&ann.token), None).await;
    assert_eq!(as_player.status, StatusCode::FORBIDDEN);
}
