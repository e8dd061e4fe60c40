//! Deposits and withdrawals through a payment provider (issue 11, defect 4): money moves only
//! when the provider's signed webhook says so, each event once; the sandbox provider confirms or
//! declines; a withdrawal is a hold until then.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{TestGateway, WEBHOOK_SECRET, new_id};
use platform::testing::Reply;
use platform::webhook::WebhookSecret;
use serde_json::{Value, json};

async fn wallet(gw: &TestGateway, token: &str) -> (i64, i64) {
    let wallet = gw.call("GET", "/v1/me/wallet", Some(token), None).await;
    (
        wallet.body["balance"]["posted"].as_i64().unwrap(),
        wallet.body["balance"]["available"].as_i64().unwrap(),
    )
}

async fn webhook(gw: &TestGateway, body: &Value, signature: Option<String>) -> Reply {
    let bytes = body.to_string();
    let signature = signature.unwrap_or_else(|| {
        WebhookSecret::new(WEBHOOK_SECRET).sign(chrono::Utc::now().timestamp(), bytes.as_bytes())
    });
    let request = Request::post("/v1/payments/webhook")
        .header("content-type", "application/json")
        .header("lotto-signature", signature)
        .body(Body::from(bytes))
        .unwrap();
    gw.send(request).await
}

/// A request to the same gateway with its payment provider away: the intent is recorded (and a
/// withdrawal's hold taken) but the provider never hears of it, so the answer is 503.
async fn with_provider_away(gw: &TestGateway, path: &str, token: &str, key: &str, body: Value) -> Reply {
    let mut offline = gw.state.clone();
    offline.payments.provider = None;
    let router = gateway::router(offline, platform::http::Limits::default());
    let request = Request::post(path)
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .header("idempotency-key", key)
        .body(Body::from(body.to_string()))
        .unwrap();
    platform::testing::send(&router, request).await
}

async fn withdraw(gw: &TestGateway, token: &str, key: &str, body: Value) -> Reply {
    let request = Request::post("/v1/me/withdrawals")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .header("idempotency-key", key)
        .body(Body::from(body.to_string()))
        .unwrap();
    gw.send(request).await
}

#[tokio::test]
async fn a_deposit_is_credited_only_when_the_provider_confirms_it() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let declined = gw
        .deposit(
            &ann.token,
            "no",
            json!({"amount": 2_500, "currency": "USD", "payment_method": "sandbox_decline"}),
        )
        .await;
    assert_eq!(declined.status, StatusCode::ACCEPTED, "{}", declined.body);
    let outcome = gw.settled_payment(&ann.token, declined.body["id"].as_str().unwrap()).await;
    assert_eq!(
        (outcome["state"].as_str(), outcome["failure"].as_str()),
        (Some("failed"), Some("card_declined"))
    );
    assert_eq!(wallet(&gw, &ann.token).await, (0, 0), "a declined deposit never reaches the wallet");

    gw.fund(&ann.token, 4_000).await;
    assert_eq!(wallet(&gw, &ann.token).await, (4_000, 4_000));
    // The player's payments, newest first: the declined one stays, with the provider's reason,
    // a page at a time; another player sees none of them.
    let listed = gw.call("GET", "/v1/me/payments?limit=1", Some(&ann.token), None).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    assert_eq!(listed.body["items"][0]["state"], "succeeded", "{}", listed.body);
    let next = listed.body["next"].as_str().expect("a second page");
    let older =
        gw.call("GET", &format!("/v1/me/payments?limit=1&after={next}"), Some(&ann.token), None).await;
    assert_eq!(
        (
            &older.body["items"][0]["state"],
            &older.body["items"][0]["failure"],
            &older.body["items"][0]["amount"]
        ),
        (&json!("failed"), &json!("card_declined"), &json!(2_500)),
        "{}",
        older.body
    );
    let bob = gw.player("bob@example.com").await;
    let theirs = gw.call("GET", "/v1/me/payments", Some(&bob.token), None).await;
    assert_eq!(theirs.body["items"], json!([]), "{}", theirs.body);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn staff_find_players_by_any_part_of_their_email() {
    let gw = TestGateway::new().await;
    for email in ["ann.smith@example.com", "bob@smith.org", "cal@example.net"] {
        gw.player(email).await;
    }
    let olga = gw.staff("olga", platform::auth::Role::Operator).await;
    let found = |part: &'static str| {
        let gw = &gw;
        let token = olga.token.clone();
        async move { gw.call("GET", &format!("/v1/players/matches?part={part}"), Some(&token), None).await }
    };
    let smiths = found("SMITH").await;
    let emails: Vec<&str> =
        smiths.body["items"].as_array().unwrap().iter().filter_map(|m| m["email"].as_str()).collect();
    assert_eq!(emails, ["ann.smith@example.com", "bob@smith.org"], "{}", smiths.body);
    assert_eq!(smiths.body["more"], false);
    // `%` and `_` are letters here, not patterns.
    assert_eq!(found("%25%25").await.body["items"], json!([]));
    assert_eq!(found("a").await.body["code"], "invalid_query");
    let me = gw.call("GET", "/v1/me", Some(&olga.token), None).await;
    assert_eq!(me.body["username"], "olga", "the console names who is logged in: {}", me.body);
}

#[tokio::test]
async fn a_webhook_must_be_signed_recent_and_is_applied_once() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    // A deposit the provider has not answered yet: the gateway without a provider records the
    // intent and answers 503; the test plays the provider.
    let away = with_provider_away(
        &gw,
        "/v1/me/deposits",
        &ann.token,
        "offline",
        json!({"amount": 900, "currency": "USD"}),
    )
    .await;
    assert_eq!((away.status, away.code()), (StatusCode::SERVICE_UNAVAILABLE, "unavailable"), "{}", away.body);
    let id: String = sqlx::query_scalar("SELECT id::text FROM payments WHERE state = 'pending'")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();

    let event = json!({"id": "evt_1", "type": "payment.succeeded", "payment_id": id, "amount": 900, "currency": "USD"});
    let body = event.to_string();
    let now = chrono::Utc::now().timestamp();
    let secret = WebhookSecret::new(WEBHOOK_SECRET);
    for (why, signature) in [
        ("no signature", String::new()),
        (
            "another secret",
            WebhookSecret::new("not the provider's secret at all!!").sign(now, body.as_bytes()),
        ),
        ("a replayed old request", secret.sign(now - 3_600, body.as_bytes())),
        ("another body", secret.sign(now, b"{}")),
    ] {
        let refused = webhook(&gw, &event, Some(signature)).await;
        assert_eq!(
            (refused.status, refused.code()),
            (StatusCode::UNAUTHORIZED, "invalid_signature"),
            "{why}"
        );
    }
    assert_eq!(wallet(&gw, &ann.token).await.0, 0, "nothing credited by a forged webhook");

    let wrong_amount = json!({"id": "evt_0", "type": "payment.succeeded", "payment_id": id, "amount": 90_000, "currency": "USD"});
    assert_eq!(webhook(&gw, &wrong_amount, None).await.code(), "event_mismatch");

    let applied = webhook(&gw, &event, None).await;
    assert_eq!(
        (applied.status, applied.body["replayed"].clone()),
        (StatusCode::OK, json!(false)),
        "{}",
        applied.body
    );
    let again = webhook(&gw, &event, None).await;
    assert_eq!((again.status, again.body["replayed"].clone()), (StatusCode::OK, json!(true)));
    let second_event = json!({"id": "evt_2", "type": "payment.succeeded", "payment_id": id, "amount": 900, "currency": "USD"});
    assert_eq!(webhook(&gw, &second_event, None).await.body["state"], "succeeded");
    let late_failure =
        json!({"id": "evt_3", "type": "payment.failed", "payment_id": id, "amount": 900, "currency": "USD"});
    assert_eq!(webhook(&gw, &late_failure, None).await.body["state"], "succeeded", "an outcome is final");
    assert_eq!(wallet(&gw, &ann.token).await.0, 900, "credited once");

    // Concurrent deliveries of one event credit once.
    let retry = gw.deposit(&ann.token, "offline-2", json!({"amount": 100, "currency": "USD"})).await;
    gw.settled_payment(&ann.token, retry.body["id"].as_str().unwrap()).await;
    let before = wallet(&gw, &ann.token).await.0;
    with_provider_away(
        &gw,
        "/v1/me/deposits",
        &ann.token,
        "offline-3",
        json!({"amount": 300, "currency": "USD"}),
    )
    .await;
    let id: String = sqlx::query_scalar("SELECT id::text FROM payments WHERE state = 'pending'")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    let event = json!({"id": new_id(), "type": "payment.succeeded", "payment_id": id, "amount": 300, "currency": "USD"});
    let body = event.to_string();
    let signature = WebhookSecret::new(WEBHOOK_SECRET).sign(chrono::Utc::now().timestamp(), body.as_bytes());
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let request = Request::post("/v1/payments/webhook")
            .header("content-type", "application/json")
            .header("lotto-signature", signature.clone())
            .body(Body::from(body.clone()))
            .unwrap();
        let router = gw.router.clone();
        tasks.push(tokio::spawn(async move { platform::testing::send(&router, request).await }));
    }
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.unwrap());
    }
    assert!(
        replies.iter().all(|r| r.status == StatusCode::OK),
        "{:?}",
        replies.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    assert_eq!(replies.iter().filter(|r| r.body["replayed"] == false).count(), 1);
    assert_eq!(wallet(&gw, &ann.token).await.0, before + 300);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn a_withdrawal_holds_the_money_until_the_provider_pays_or_fails_it() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 10_000).await;

    let euros = withdraw(&gw, &ann.token, "w-eur", json!({"amount": 1_000, "currency": "EUR"})).await;
    assert_eq!((euros.status, euros.code()), (StatusCode::UNPROCESSABLE_ENTITY, "unsupported_currency"));
    assert_eq!(wallet(&gw, &ann.token).await, (10_000, 10_000), "a wallet in dollars holds no euros back");
    let too_much = withdraw(&gw, &ann.token, "w0", json!({"amount": 10_001, "currency": "USD"})).await;
    assert_eq!((too_much.status, too_much.code()), (StatusCode::UNPROCESSABLE_ENTITY, "insufficient_funds"));
    let recorded: i64 = sqlx::query_scalar("SELECT count(*) FROM payments WHERE kind = 'withdrawal'")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    assert_eq!(recorded, 0, "a refused withdrawal leaves nothing behind");

    let paid = withdraw(&gw, &ann.token, "w1", json!({"amount": 3_000, "currency": "USD"})).await;
    assert_eq!(paid.status, StatusCode::ACCEPTED, "{}", paid.body);
    let replay = withdraw(&gw, &ann.token, "w1", json!({"amount": 3_000, "currency": "USD"})).await;
    assert_eq!(replay.status, StatusCode::OK);
    assert_eq!(gw.settled_payment(&ann.token, paid.body["id"].as_str().unwrap()).await["state"], "succeeded");
    assert_eq!(wallet(&gw, &ann.token).await, (7_000, 7_000), "paid out once");

    let declined = withdraw(
        &gw,
        &ann.token,
        "w2",
        json!({"amount": 2_000, "currency": "USD", "payment_method": "sandbox_decline"}),
    )
    .await;
    assert_eq!(
        gw.settled_payment(&ann.token, declined.body["id"].as_str().unwrap()).await["state"],
        "failed"
    );
    assert_eq!(wallet(&gw, &ann.token).await, (7_000, 7_000), "the hold was released");

    // While the provider has not answered, the money is held: not spendable, not gone.
    let held = with_provider_away(
        &gw,
        "/v1/me/withdrawals",
        &ann.token,
        "w3",
        json!({"amount": 1_000, "currency": "USD"}),
    )
    .await;
    assert_eq!(held.status, StatusCode::SERVICE_UNAVAILABLE);
    let retried = withdraw(&gw, &ann.token, "w3", json!({"amount": 1_000, "currency": "USD"})).await;
    assert_eq!(retried.status, StatusCode::OK, "the retry sends the same withdrawal: {}", retried.body);
    assert_eq!(
        gw.settled_payment(&ann.token, retried.body["id"].as_str().unwrap()).await["state"],
        "succeeded"
    );
    assert_eq!(wallet(&gw, &ann.token).await, (6_000, 6_000));
    gw.assert_ledger_balanced().await;
}

/// A withdrawal whose intent cannot be recorded (the database refuses the row: a trigger stands
/// in for the failure) releases its hold; a retry with the same key meets that released hold and
/// is refused 409 `withdrawal_abandoned` rather than recorded with no money held (the defect of
/// earlier notes); a new key withdraws.
#[tokio::test]
async fn a_withdrawal_that_could_not_be_recorded_releases_its_hold_and_spends_its_key() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 5_000).await;
    let trigger = [
        "CREATE FUNCTION refuse_payment() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'the test refuses this row'; END $$",
        "CREATE TRIGGER refuse_payment BEFORE INSERT ON payments FOR EACH ROW
            WHEN (NEW.amount = 1234) EXECUTE FUNCTION refuse_payment()",
    ];
    for sql in trigger {
        sqlx::query(sql).execute(&gw.state.pool).await.unwrap();
    }
    let body = json!({"amount": 1_234, "currency": "USD"});
    let failed = withdraw(&gw, &ann.token, "w-lost", body.clone()).await;
    assert!(failed.status.is_server_error(), "{} {}", failed.status, failed.body);
    assert_eq!(wallet(&gw, &ann.token).await, (5_000, 5_000), "the hold was released");
    sqlx::query("DROP TRIGGER refuse_payment ON payments").execute(&gw.state.pool).await.unwrap();

    let retried = withdraw(&gw, &ann.token, "w-lost", body.clone()).await;
    assert_eq!(
        (retried.status, retried.code()),
        (StatusCode::CONFLICT, "withdrawal_abandoned"),
        "{}",
        retried.body
    );
    let recorded: i64 = sqlx::query_scalar("SELECT count(*) FROM payments WHERE kind = 'withdrawal'")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    assert_eq!(recorded, 0, "nothing recorded against the released hold");
    assert_eq!(wallet(&gw, &ann.token).await, (5_000, 5_000));

    let fresh = withdraw(&gw, &ann.token, "w-new", body).await;
    assert_eq!(fresh.status, StatusCode::ACCEPTED, "{}", fresh.body);
    assert_eq!(
        gw.settled_payment(&ann.token, fresh.body["id"].as_str().unwrap()).await["state"],
        "succeeded"
    );
    assert_eq!(wallet(&gw, &ann.token).await, (3_766, 3_766), "paid out once");
    gw.assert_ledger_balanced().await;
}

/// No row lock is held while the ledger moves a payment's money (issue 33 §2): at every ledger
/// call of a withdrawal's hold, its webhook, and a deposit's webhook, the gateway's players and
/// payments can be locked by another connection at once. Before, the withdrawal's hold was taken
/// with its player locked and each webhook's money moved with its payment locked. A payment
/// claimed by a webhook whose money has not moved is finished by the next delivery or the
/// recovery pass.
#[tokio::test]
async fn no_row_lock_is_held_while_the_ledger_moves_a_payments_money() {
    use std::sync::{Arc, Mutex};
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 5_000).await;

    // The ledger behind a probe: before each write it tries the gateway's rows with NOWAIT.
    let probe_pool = sqlx::PgPool::connect(&gw.url).await.unwrap();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let ledger = gw.state.ledger.upstream().clone();
    let (pool, log) = (probe_pool.clone(), Arc::clone(&seen));
    let probe = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let (ledger, pool, log) = (ledger.clone(), pool.clone(), Arc::clone(&log));
        async move {
            if request.method() == axum::http::Method::POST {
                for table in ["gateway.players", "gateway.payments"] {
                    let mut tx = pool.begin().await.unwrap();
                    let tried = sqlx::query(&format!("SELECT 1 FROM {table} FOR UPDATE NOWAIT"))
                        .execute(&mut *tx)
                        .await;
                    log.lock().unwrap().push(match tried {
                        Ok(_) => format!("{} {table}: free", request.uri().path()),
                        Err(e) => format!("{} {table}: LOCKED ({e})", request.uri().path()),
                    });
                    tx.rollback().await.unwrap();
                }
            }
            ledger.forward(request, usize::MAX).await
        }
    });
    let mut probed = gw.state.clone();
    probed.ledger = ledger_api::LedgerClient::new(
        platform::upstream::Upstream::local("ledger", probe),
        gw.tokens.clone(),
        "gateway",
    );
    probed.payments.provider = None;
    let router = gateway::router(probed, platform::http::Limits::default());
    let send = |path: &'static str, key: &'static str, body: Value| {
        let request = Request::post(path)
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {}", ann.token))
            .header("idempotency-key", key)
            .body(Body::from(body.to_string()))
            .unwrap();
        platform::testing::send(&router, request)
    };
    let signed = |event: &Value| {
        let bytes = event.to_string();
        Request::post("/v1/payments/webhook")
            .header("content-type", "application/json")
            .header(
                "lotto-signature",
                WebhookSecret::new(WEBHOOK_SECRET).sign(chrono::Utc::now().timestamp(), bytes.as_bytes()),
            )
            .body(Body::from(bytes))
            .unwrap()
    };

    // A withdrawal (its hold) and a deposit, recorded with the provider away; then their webhooks.
    let out = send("/v1/me/withdrawals", "w-1", json!({"amount": 1_200, "currency": "USD"})).await;
    let deposit = send("/v1/me/deposits", "d-1", json!({"amount": 700, "currency": "USD"})).await;
    assert_eq!(
        (out.status, deposit.status),
        (StatusCode::SERVICE_UNAVAILABLE, StatusCode::SERVICE_UNAVAILABLE)
    );
    let ids: Vec<(String, String)> =
        sqlx::query_as("SELECT id::text, kind FROM payments WHERE state = 'pending' ORDER BY kind")
            .fetch_all(&gw.state.pool)
            .await
            .unwrap();
    assert_eq!(ids.len(), 2, "{ids:?}");
    for (n, (id, kind)) in ids.iter().enumerate() {
        let amount = if kind == "deposit" { 700 } else { 1_200 };
        let event = json!({"id": format!("evt-{n}"), "type": "payment.succeeded", "payment_id": id, "amount": amount, "currency": "USD"});
        let applied = platform::testing::send(&router, signed(&event)).await;
        assert_eq!(
            (applied.status, applied.body["state"].as_str()),
            (StatusCode::OK, Some("succeeded")),
            "{}",
            applied.body
        );
    }
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 6, "a hold, a posting and a deposit, each probed on two tables: {seen:?}");
    assert!(seen.iter().all(|s| s.ends_with("free")), "{seen:#?}");
    assert_eq!(wallet(&gw, &ann.token).await, (5_000 - 1_200 + 700, 5_000 - 1_200 + 700));

    // A payment claimed as settling whose money never moved (its process died): the recovery
    // pass finishes it, once.
    let stuck = gw.deposit(&ann.token, "d-2", json!({"amount": 300, "currency": "USD"})).await;
    let id = stuck.body["id"].as_str().unwrap().to_owned();
    gw.settled_payment(&ann.token, &id).await;
    let before = wallet(&gw, &ann.token).await.0;
    sqlx::query("UPDATE payments SET state = 'settling', outcome = 'succeeded', updated_at = now() - interval '1 minute' WHERE id = $1::uuid")
        .bind(&id)
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let finished = gw.state.finish_settling_payments(std::time::Duration::from_secs(5)).await.unwrap();
    assert_eq!(finished, 1);
    let state: String = sqlx::query_scalar("SELECT state FROM payments WHERE id = $1::uuid")
        .bind(&id)
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    assert_eq!(
        (state.as_str(), wallet(&gw, &ann.token).await.0),
        ("succeeded", before),
        "credited once, not again"
    );
    gw.assert_ledger_balanced().await;
}

/// Deliveries of a withdrawal's outcome that arrive together (the provider sends two events, or
/// sends one again before the first is answered) pay it out once: the second finds the hold
/// ended by the first's posting and takes nothing more from the wallet.
#[tokio::test]
async fn outcomes_delivered_at_once_pay_a_withdrawal_out_once() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 10_000).await;
    for round in 0..5 {
        let key = format!("together-{round}");
        let held = with_provider_away(
            &gw,
            "/v1/me/withdrawals",
            &ann.token,
            &key,
            json!({"amount": 500, "currency": "USD"}),
        )
        .await;
        assert_eq!(held.status, StatusCode::SERVICE_UNAVAILABLE, "{}", held.body);
        let id: String = sqlx::query_scalar(
            "SELECT id::text FROM payments WHERE state = 'pending' AND kind = 'withdrawal'",
        )
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
        let event = |n: u32| json!({"id": format!("{key}-{n}"), "type": "payment.succeeded", "payment_id": id, "amount": 500, "currency": "USD"});
        let (one, two) = (event(1), event(2));
        let (first, second, third) =
            tokio::join!(webhook(&gw, &one, None), webhook(&gw, &two, None), webhook(&gw, &one, None));
        for reply in [&first, &second, &third] {
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        }
        let paid_out = 500 * (i64::from(round) + 1);
        assert_eq!(wallet(&gw, &ann.token).await, (10_000 - paid_out, 10_000 - paid_out), "round {round}");
    }
    gw.assert_ledger_balanced().await;
}

/// The gateway holds the sandbox as its provider and the sandbox reports to the gateway: a
/// platform that is done with gives all its database connections back, webhooks delivered or not
/// (the cycle once kept every test's platform, and its connections, until the process ended).
#[tokio::test]
async fn a_platform_dropped_after_a_deposit_gives_its_connections_back() {
    let gw = TestGateway::new().await;
    let player = gw.player("dropped@example.com").await;
    gw.fund(&player.token, 2_000).await;
    let database = gw.url.rsplit('/').next().unwrap().to_owned();
    let admin = sqlx::PgPool::connect(&platform::testing::server_url()).await.unwrap();
    let connections = || {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM pg_stat_activity WHERE datname = $1")
            .bind(&database)
            .fetch_one(&admin)
    };
    assert!(connections().await.unwrap() > 0, "the platform holds connections while it lives");
    drop(gw);
    let mut left = -1;
    for _ in 0..50 {
        left = connections().await.unwrap();
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(left, 0, "connections to {database} left after the platform was dropped");
}
