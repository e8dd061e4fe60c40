//! The ledger's API against a real Postgres: accounts, transfers, idempotency, batches, holds,
//! history, cash movements, bad input and the append-only journal.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use axum::http::StatusCode;
use common::{TestApp, transfer};
use platform::http::Limits;
use serde_json::{Value, json};
use uuid::Uuid;

#[tokio::test]
async fn accounts_are_created_idempotently_and_listed_by_owner() {
    let app = TestApp::new().await;
    let id = Uuid::now_v7();
    let body = json!({"id": id, "kind": "player_wallet", "owner": "ann", "currency": "USD", "metadata": {"tier": "gold"}});
    let first = app.post("/v1/accounts", body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(first.headers["location"], format!("/v1/accounts/{id}").as_str());
    assert_eq!(first.body["flags"], json!({"no_negative_balance": true, "hot": false}));
    assert_eq!(
        first.body["balance"],
        json!({"posted": 0, "pending_debits": 0, "pending_credits": 0, "available": 0})
    );

    let again = app.post("/v1/accounts", body.clone()).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body, first.body);

    let mut changed = body.clone();
    changed["owner"] = json!("bob");
    let conflict = app.post("/v1/accounts", changed).await;
    assert_eq!((conflict.status, conflict.code()), (StatusCode::CONFLICT, "idempotency_conflict"));

    for _ in 0..4 {
        app.account("game_escrow", "ann").await;
    }
    app.account("player_wallet", "someone-else").await;
    let page1 = app.get("/v1/accounts?owner=ann&limit=3").await;
    assert_eq!(page1.body["items"].as_array().unwrap().len(), 3);
    let next = page1.body["next"].as_str().unwrap().to_owned();
    let page2 = app.get(&format!("/v1/accounts?owner=ann&limit=3&after={next}")).await;
    assert_eq!(page2.body["items"].as_array().unwrap().len(), 2);
    assert_eq!(page2.body["next"], Value::Null);
    let all: Vec<&Value> = page1.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(page2.body["items"].as_array().unwrap())
        .collect();
    assert!(all.iter().all(|a| a["owner"] == "ann"));

    let missing = app.get(&format!("/v1/accounts/{}", Uuid::now_v7())).await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "account_not_found"));
    let bad_path = app.get("/v1/accounts/not-a-uuid").await;
    assert_eq!((bad_path.status, bad_path.code()), (StatusCode::BAD_REQUEST, "invalid_path"));
    let bad_limit = app.get("/v1/accounts?owner=ann&limit=0").await;
    assert_eq!(bad_limit.code(), "invalid_limit");
}

#[tokio::test]
async fn a_transfer_moves_money_once_however_often_it_is_sent() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let bob = app.funded_wallet("bob", 0).await;
    let body = transfer(alice, bob, 250);

    let first = app.post("/v1/transfers", body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    assert_eq!(first.body["kind"], "posted");
    for _ in 0..3 {
        let replay = app.post("/v1/transfers", body.clone()).await;
        assert_eq!(replay.status, StatusCode::OK);
        assert_eq!(replay.headers["idempotent-replayed"], "true");
        assert_eq!(replay.body, first.body);
    }
    assert_eq!((app.posted(alice).await, app.posted(bob).await), (750, 250));

    let mut different = body.clone();
    different["amount"] = json!(251);
    let conflict = app.post("/v1/transfers", different).await;
    assert_eq!((conflict.status, conflict.code()), (StatusCode::CONFLICT, "idempotency_conflict"));
    assert_eq!(app.posted(alice).await, 750);

    // A replay is compared on its money (ADR 0017): described otherwise, it is the same transfer,
    // and the journal keeps the first description.
    let mut described = body.clone();
    described["metadata"] = json!({"game": "instant-283", "money": "prize"});
    let replay = app.post("/v1/transfers", described).await;
    assert_eq!(replay.status, StatusCode::OK, "{}", replay.body);
    assert_eq!(replay.headers["idempotent-replayed"], "true");
    assert_eq!(replay.body, first.body);
    assert_eq!(app.posted(alice).await, 750);
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn the_idempotency_key_header_names_the_transfer() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let bob = app.funded_wallet("bob", 0).await;
    let body = json!({"debit_account_id": alice, "credit_account_id": bob, "amount": 100, "currency": "USD"});

    let missing = app.post("/v1/transfers", body.clone()).await;
    assert_eq!((missing.status, missing.code()), (StatusCode::BAD_REQUEST, "missing_idempotency_key"));
    let first = app.post_with_key("/v1/transfers", "order-17", body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let replay = app.post_with_key("/v1/transfers", "order-17", body.clone()).await;
    assert_eq!((replay.status, replay.body["id"].clone()), (StatusCode::OK, first.body["id"].clone()));

    let mut with_other_id = body.clone();
    with_other_id["id"] = json!(Uuid::now_v7());
    let mismatch = app.post_with_key("/v1/transfers", "order-17", with_other_id).await;
    assert_eq!(mismatch.code(), "idempotency_key_mismatch");
    let bad_key = app.post_with_key("/v1/transfers", "has space", body).await;
    assert_eq!(bad_key.code(), "invalid_idempotency_key");
    assert_eq!(app.posted(bob).await, 100);
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn bad_input_gets_a_problem_and_changes_nothing() {
    let app = TestApp::with_limits(Limits { body_limit_bytes: 4096, ..Limits::default() }).await;
    let alice = app.funded_wallet("alice", 500).await;
    let bob = app.funded_wallet("bob", 0).await;
    let euro = {
        let reply = app
            .post("/v1/accounts", json!({"kind": "player_wallet", "owner": "eve", "currency": "EUR"}))
            .await;
        reply.body["id"].as_str().unwrap().parse::<Uuid>().unwrap()
    };
    let before = app.transfer_count().await;
    let with = |patch: Value| {
        let mut body = transfer(alice, bob, 100);
        for (k, v) in patch.as_object().unwrap() {
            if v.is_null() {
                body.as_object_mut().unwrap().remove(k);
            } else {
                body[k] = v.clone();
            }
        }
        body.to_string()
    };
    let cases: Vec<(&str, String, StatusCode, &str)> = vec![
        ("missing amount", with(json!({"amount": null})), StatusCode::UNPROCESSABLE_ENTITY, "missing_field"),
        (
            "missing credit",
            with(json!({"credit_account_id": null})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "missing_field",
        ),
        ("zero amount", with(json!({"amount": 0})), StatusCode::UNPROCESSABLE_ENTITY, "invalid_amount"),
        (
            "negative amount",
            with(json!({"amount": -100})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_amount",
        ),
        ("fractional amount", with(json!({"amount": 1.5})), StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"),
        ("amount as text", with(json!({"amount": "100"})), StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"),
        ("unknown field", with(json!({"amount_usd": 1})), StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"),
        (
            "bad currency",
            with(json!({"currency": "usd"})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_currency",
        ),
        (
            "unknown debit",
            with(json!({"debit_account_id": Uuid::now_v7()})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "account_not_found",
        ),
        (
            "unknown credit",
            with(json!({"credit_account_id": Uuid::now_v7()})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "account_not_found",
        ),
        (
            "currency mismatch",
            with(json!({"credit_account_id": euro})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "currency_mismatch",
        ),
        (
            "same account",
            with(json!({"credit_account_id": alice})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "same_account",
        ),
        (
            "insufficient funds",
            with(json!({"amount": 501})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "insufficient_funds",
        ),
        (
            "metadata not an object",
            with(json!({"metadata": [1]})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_metadata",
        ),
        ("bad id", with(json!({"id": "nope"})), StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"),
        ("malformed json", "{\"amount\": ".to_owned(), StatusCode::BAD_REQUEST, "malformed_json"),
        ("not an object", "[]".to_owned(), StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"),
        (
            "oversized body",
            with(json!({"metadata": {"pad": "x".repeat(5000)}})),
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
        ),
    ];
    for (name, body, status, code) in cases {
        let reply = app.post_raw("/v1/transfers", body, None).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{name}: {}", reply.body);
    }
    let no_type = app
        .send(axum::http::Request::post("/v1/transfers").body(axum::body::Body::from("{}")).unwrap())
        .await;
    assert_eq!(
        (no_type.status, no_type.code()),
        (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type")
    );

    assert_eq!(app.transfer_count().await, before);
    assert_eq!((app.posted(alice).await, app.posted(bob).await), (500, 0));
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn a_batch_applies_all_or_nothing() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let bob = app.funded_wallet("bob", 0).await;
    let house = app.account("house_revenue", "casino").await;

    let failing = json!({"transfers": [transfer(alice, bob, 300), transfer(alice, house, 200), transfer(bob, house, 301)]});
    let reply = app.post("/v1/transfers/batch", failing).await;
    assert_eq!((reply.status, reply.code()), (StatusCode::UNPROCESSABLE_ENTITY, "insufficient_funds"));
    assert_eq!(reply.body["context"]["account_id"], json!(bob));
    assert_eq!(app.transfer_count().await, 1, "only the deposit exists");

    let first = transfer(alice, bob, 300);
    let batch = json!({"transfers": [first.clone(), transfer(alice, house, 200), transfer(bob, house, 300)]});
    let reply = app.post("/v1/transfers/batch", batch.clone()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let items = reply.body["transfers"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert!(items.iter().all(|t| t["replayed"] == false && t["batch_id"] == items[0]["batch_id"]));
    assert_eq!((app.posted(alice).await, app.posted(bob).await, app.posted(house).await), (500, 0, 500));

    let replay = app.post("/v1/transfers/batch", batch).await;
    assert_eq!(replay.status, StatusCode::OK);
    assert!(replay.body["transfers"].as_array().unwrap().iter().all(|t| t["replayed"] == true));

    let duplicate = json!({"transfers": [transfer(alice, bob, 1), first.clone(), first]});
    let reply = app.post("/v1/transfers/batch", duplicate).await;
    assert_eq!(reply.code(), "duplicate_transfer_id");
    let invalid_item = json!({"transfers": [transfer(alice, bob, 1), transfer(alice, bob, 0)]});
    let reply = app.post("/v1/transfers/batch", invalid_item).await;
    assert_eq!((reply.code(), reply.body["context"]["index"].clone()), ("invalid_amount", json!(1)));
    let empty = app.post("/v1/transfers/batch", json!({"transfers": []})).await;
    assert_eq!(empty.code(), "invalid_batch");
    assert_eq!(app.posted(house).await, 500);

    // Items without ids: the batch's Idempotency-Key names them, by their place.
    let unnamed = |from: Uuid, to: Uuid, amount: i64| json!({"debit_account_id": from, "credit_account_id": to, "amount": amount, "currency": "USD"});
    let keyed = json!({"transfers": [unnamed(alice, bob, 10), unnamed(alice, bob, 20)]});
    let no_key = app.post("/v1/transfers/batch", keyed.clone()).await;
    assert_eq!((no_key.code(), no_key.body["context"]["index"].clone()), ("missing_field", json!(0)));
    let reply = app.post_with_key("/v1/transfers/batch", "batch-k", keyed.clone()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let again = app.post_with_key("/v1/transfers/batch", "batch-k", keyed).await;
    assert_eq!(
        (again.status, app.posted(bob).await),
        (StatusCode::OK, 30),
        "the same key: the same batch, once"
    );
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn a_batch_checks_funds_in_order() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let bob = app.funded_wallet("bob", 100).await;
    let house = app.account("house_revenue", "casino").await;
    // A stake paid by the prize after it (a Keno ticket's shape): refused, whatever the net.
    let stake_then_prize = json!({"transfers": [transfer(bob, house, 200), transfer(house, bob, 600)]});
    let reply = app.post("/v1/transfers/batch", stake_then_prize).await;
    assert_eq!(
        (reply.code(), reply.body["context"]["account_id"].clone()),
        ("insufficient_funds", json!(bob))
    );
    // Covered at every step: taken.
    let covered = json!({"transfers": [transfer(bob, house, 100), transfer(house, bob, 600)]});
    assert_eq!(app.post("/v1/transfers/batch", covered).await.status, StatusCode::CREATED);
    // A credit ahead of the debit funds it.
    let funded_first = json!({"transfers": [transfer(alice, bob, 400), transfer(bob, house, 1_000)]});
    assert_eq!(app.post("/v1/transfers/batch", funded_first).await.status, StatusCode::CREATED);
    assert_eq!((app.posted(alice).await, app.posted(bob).await), (600, 0));
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn a_funds_check_refuses_a_transfer_unless_the_account_held_enough_just_before_it() {
    let app = TestApp::new().await;
    let bob = app.funded_wallet("bob", 100).await;
    let house = app.account("house_revenue", "casino").await;
    let checked = |t: Value, account: Uuid, at_least: i64| {
        let mut t = t;
        t["check_funds"] = json!({"account_id": account, "at_least": at_least});
        t
    };
    // A stake of 200 netted against a prize of 600: one credit of 400, refused for a wallet of
    // 100 as the stake and the prize in two transfers are (`a_batch_checks_funds_in_order`).
    let net = checked(transfer(house, bob, 400), bob, 200);
    let reply = app.post("/v1/transfers/batch", json!({"transfers": [net]})).await;
    assert_eq!(
        (reply.code(), reply.body["context"]["account_id"].clone(), reply.body["context"]["index"].clone()),
        ("insufficient_funds", json!(bob), json!(0))
    );
    assert_eq!(app.posted(bob).await, 100, "nothing moved");
    // Counted in order: a credit ahead of the checked transfer counts, one after it does not.
    let after = json!({"transfers": [checked(transfer(house, bob, 5), bob, 150), transfer(house, bob, 100)]});
    assert_eq!(app.post("/v1/transfers/batch", after).await.code(), "insufficient_funds");
    let ahead = json!({"transfers": [transfer(house, bob, 100), checked(transfer(house, bob, 5), bob, 200)]});
    assert_eq!(app.post("/v1/transfers/batch", ahead).await.status, StatusCode::CREATED);
    assert_eq!(app.posted(bob).await, 205);
    // Covered: applied once; a replay is not checked again.
    let covered = checked(transfer(bob, house, 5), bob, 205);
    let reply = app.post("/v1/transfers", covered.clone()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let replay = app.post("/v1/transfers", covered).await;
    assert_eq!((replay.status, app.posted(bob).await), (StatusCode::OK, 200));
    // Bad checks: an account that does not exist, an amount that is not positive, a field unknown.
    let nobody = Uuid::now_v7();
    let reply = app
        .post("/v1/transfers/batch", json!({"transfers": [checked(transfer(house, bob, 1), nobody, 1)]}))
        .await;
    assert_eq!(
        (reply.code(), reply.body["context"]["account_id"].clone()),
        ("account_not_found", json!(nobody))
    );
    let reply = app.post("/v1/transfers", checked(transfer(house, bob, 1), bob, 0)).await;
    assert_eq!(reply.code(), "invalid_amount");
    let mut odd = transfer(house, bob, 1);
    odd["check_funds"] = json!({"account_id": bob, "at_least": 1, "or": 2});
    assert_eq!(app.post("/v1/transfers", odd).await.status.as_u16(), 422);
    assert_eq!(app.posted(bob).await, 200, "nothing moved");
    // A replay ahead of a checked transfer leaves the check in force (a batch with one new
    // transfer takes a shorter path to its balances, which must still see that transfer's check).
    let sent = transfer(house, bob, 1);
    assert_eq!(app.post("/v1/transfers", sent.clone()).await.status, StatusCode::CREATED);
    let batch = json!({"transfers": [sent, checked(transfer(house, bob, 5), bob, 1_000)]});
    let reply = app.post("/v1/transfers/batch", batch).await;
    assert_eq!((reply.code(), reply.body["context"]["index"].clone()), ("insufficient_funds", json!(1)));
    assert_eq!(app.posted(bob).await, 201, "only the first transfer moved, once");
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn a_batch_answers_the_balances_it_is_asked_for() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let house = app.account("house_revenue", "casino").await;
    let (stake, prize) = (transfer(alice, house, 300), transfer(house, alice, 120));
    let batch = json!({"transfers": [stake, prize], "balances_of": [alice, house]});
    let reply = app.post("/v1/transfers/batch", batch.clone()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(
        reply.body["balances"],
        json!([{"account_id": alice, "posted": 820}, {"account_id": house, "posted": 180}])
    );
    // A replay moves nothing and answers the balances as they are now.
    app.post("/v1/transfers/batch", json!({"transfers": [transfer(alice, house, 20)]})).await;
    let replay = app.post("/v1/transfers/batch", batch).await;
    assert_eq!(replay.status, StatusCode::OK);
    assert_eq!(replay.body["balances"][0]["posted"], 800);
    // None asked for: none answered; an account that does not exist counts nothing.
    let plain = app.post("/v1/transfers/batch", json!({"transfers": [transfer(alice, house, 1)]})).await;
    assert_eq!(plain.body["balances"], json!([]));
    let nobody = Uuid::now_v7();
    let unknown = app
        .post(
            "/v1/transfers/batch",
            json!({"transfers": [transfer(alice, house, 1)], "balances_of": [nobody]}),
        )
        .await;
    assert_eq!(unknown.body["balances"], json!([{"account_id": nobody, "posted": 0}]));
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn a_hold_reserves_funds_and_ends_exactly_once() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let escrow = app.account("game_escrow", "blackjack").await;
    let mut hold = transfer(alice, escrow, 600);
    hold["pending"] = json!(true);
    hold["timeout_seconds"] = json!(60);
    let hold_id = hold["id"].clone();
    let reply = app.post("/v1/transfers", hold).await;
    assert_eq!((reply.status, reply.body["kind"].clone()), (StatusCode::CREATED, json!("pending")));
    assert_eq!(
        app.balance(alice).await,
        json!({"posted": 1000, "pending_debits": 600, "pending_credits": 0, "available": 400})
    );
    assert_eq!(app.balance(escrow).await["pending_credits"], 600);

    // The held funds cannot be spent twice.
    let overspend = app.post("/v1/transfers", transfer(alice, escrow, 401)).await;
    assert_eq!(overspend.code(), "insufficient_funds");

    let too_much = app
        .post("/v1/transfers", json!({"id": Uuid::now_v7(), "post_pending_id": hold_id, "amount": 601}))
        .await;
    assert_eq!(too_much.code(), "amount_exceeds_hold");

    let post = json!({"id": Uuid::now_v7(), "post_pending_id": hold_id, "amount": 450});
    let reply = app.post("/v1/transfers", post.clone()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(
        (reply.body["kind"].clone(), reply.body["amount"].clone()),
        (json!("post_pending"), json!(450))
    );
    assert_eq!(
        app.balance(alice).await,
        json!({"posted": 550, "pending_debits": 0, "pending_credits": 0, "available": 550})
    );
    assert_eq!(app.balance(escrow).await["posted"], 450);
    assert_eq!(
        app.post("/v1/transfers", post).await.status,
        StatusCode::OK,
        "a replayed post is not a second end"
    );

    let void = app.post("/v1/transfers", json!({"id": Uuid::now_v7(), "void_pending_id": hold_id})).await;
    assert_eq!((void.status, void.code()), (StatusCode::CONFLICT, "hold_already_ended"));
    let again = app.post("/v1/transfers", json!({"id": Uuid::now_v7(), "post_pending_id": hold_id})).await;
    assert_eq!(again.code(), "hold_already_ended");
    let not_a_hold =
        app.post("/v1/transfers", json!({"id": Uuid::now_v7(), "void_pending_id": Uuid::now_v7()})).await;
    assert_eq!(not_a_hold.code(), "hold_not_found");

    // A void gives everything back.
    let mut second = transfer(alice, escrow, 500);
    second["pending"] = json!(true);
    let second_id = second["id"].clone();
    app.post("/v1/transfers", second).await;
    assert_eq!(app.balance(alice).await["available"], 50);
    let void = app.post("/v1/transfers", json!({"id": Uuid::now_v7(), "void_pending_id": second_id})).await;
    assert_eq!((void.status, void.body["amount"].clone()), (StatusCode::CREATED, json!(500)));
    assert_eq!(app.balance(alice).await["available"], 550);
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn an_expired_hold_is_refused_then_voided_by_the_sweeper() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let escrow = app.account("game_escrow", "keno").await;
    let mut hold = transfer(alice, escrow, 700);
    hold["pending"] = json!(true);
    hold["timeout_seconds"] = json!(1);
    let hold_id: Uuid = hold["id"].as_str().unwrap().parse().unwrap();
    app.post("/v1/transfers", hold).await;
    assert_eq!(ledger::holds::expire_due_holds(&app.pool).await.unwrap(), 0, "not due yet");
    assert_eq!(app.balance(alice).await["available"], 300);

    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let late = app.post("/v1/transfers", json!({"id": Uuid::now_v7(), "post_pending_id": hold_id})).await;
    assert_eq!(late.code(), "hold_expired");
    assert_eq!(ledger::holds::expire_due_holds(&app.pool).await.unwrap(), 1);
    assert_eq!(ledger::holds::expire_due_holds(&app.pool).await.unwrap(), 0, "a hold expires once");
    assert_eq!(
        app.balance(alice).await,
        json!({"posted": 1000, "pending_debits": 0, "pending_credits": 0, "available": 1000})
    );
    let expiry = app.get(&format!("/v1/transfers/{}", ledger::holds::expiry_id(hold_id))).await;
    assert_eq!(
        (expiry.body["kind"].clone(), expiry.body["pending_id"].clone()),
        (json!("expire_pending"), json!(hold_id))
    );
    let after = app.post("/v1/transfers", json!({"id": Uuid::now_v7(), "void_pending_id": hold_id})).await;
    assert_eq!(after.code(), "hold_already_ended");
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn history_pages_through_an_accounts_transfers_in_order() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 1_000).await;
    let bob = app.funded_wallet("bob", 0).await;
    let mut sent = Vec::new();
    for amount in [10, 20, 30, 40] {
        let body = transfer(alice, bob, amount);
        sent.push(body["id"].clone());
        app.post("/v1/transfers", body).await;
    }
    app.post("/v1/transfers", transfer(bob, alice, 5)).await;

    let mut seen = Vec::new();
    let mut path = format!("/v1/accounts/{alice}/transfers?limit=2");
    loop {
        let page = app.get(&path).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        seen.extend(
            page.body["items"].as_array().unwrap().iter().map(|t| (t["side"].clone(), t["amount"].clone())),
        );
        match page.body["next"].as_str() {
            Some(next) => path = format!("/v1/accounts/{alice}/transfers?limit=2&after={next}"),
            None => break,
        }
    }
    let expected: Vec<(Value, Value)> =
        [("credit", 1000), ("debit", 10), ("debit", 20), ("debit", 30), ("debit", 40), ("credit", 5)]
            .iter()
            .map(|(side, amount)| (json!(side), json!(amount)))
            .collect();
    assert_eq!(seen, expected);
    let bad = app.get(&format!("/v1/accounts/{alice}/transfers?after=xyz")).await;
    assert_eq!(bad.code(), "invalid_cursor");
    let unknown = app.get(&format!("/v1/accounts/{}/transfers", Uuid::now_v7())).await;
    assert_eq!(unknown.code(), "account_not_found");
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn deposits_and_withdrawals_go_through_cash_clearing() {
    let app = TestApp::new().await;
    let wallet = app.funded_wallet("carol", 0).await;
    let deposit =
        json!({"account_id": wallet, "amount": 2_000, "currency": "USD", "metadata": {"card": "visa-4242"}});
    assert_eq!(app.post_with_key("/v1/deposits", "dep-1", deposit.clone()).await.status, StatusCode::CREATED);
    assert_eq!(app.post_with_key("/v1/deposits", "dep-1", deposit).await.status, StatusCode::OK);
    let withdraw = json!({"account_id": wallet, "amount": 1_500, "currency": "USD"});
    assert_eq!(app.post_with_key("/v1/withdrawals", "wd-1", withdraw).await.status, StatusCode::CREATED);
    let overdraw = app
        .post_with_key(
            "/v1/withdrawals",
            "wd-2",
            json!({"account_id": wallet, "amount": 501, "currency": "USD"}),
        )
        .await;
    assert_eq!(overdraw.code(), "insufficient_funds");
    assert_eq!(app.posted(wallet).await, 500);

    let trial = app.get("/v1/reports/trial-balance").await;
    let usd = &trial.body["currencies"][0];
    assert_eq!((usd["debits_posted"].clone(), usd["credits_posted"].clone()), (json!(3_500), json!(3_500)));
    let clearing = usd["by_kind"].as_array().unwrap().iter().find(|k| k["kind"] == "cash_clearing").unwrap();
    assert_eq!(clearing["posted"], -500);
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn a_hot_account_is_spread_over_rows_yet_balances_exactly() {
    let app = TestApp::new().await;
    let house = app.account("house_revenue", "casino").await;
    let mut expected = 0;
    for i in 1..=40 {
        let wallet = app.funded_wallet(&format!("p{i}"), 100).await;
        app.post("/v1/transfers", transfer(wallet, house, i)).await;
        expected += i;
    }
    assert_eq!(app.posted(house).await, expected);
    let rows_used: i64 =
        sqlx::query_scalar("SELECT count(*) FROM balances WHERE account_id = $1 AND credits_posted > 0")
            .bind(house)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(rows_used > 1, "40 credits all landed on one balance row");
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn the_database_refuses_to_rewrite_the_journal() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 100).await;
    let statements = [
        "UPDATE transfers SET amount = amount + 1",
        "DELETE FROM transfers",
        "TRUNCATE transfers",
        "UPDATE accounts SET currency = 'EUR'",
        "DELETE FROM accounts",
        "DELETE FROM balances",
    ];
    for sql in statements {
        let err = sqlx::query(sql).execute(&app.pool).await.expect_err(sql);
        let db = err.as_database_error().expect("a database error");
        assert_eq!(db.message(), "append_only", "{sql}");
    }
    assert_eq!(app.posted(alice).await, 100);
    assert_eq!(app.transfer_count().await, 1);
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn operational_endpoints_answer() {
    let app = TestApp::new().await;
    assert_eq!(app.get("/healthz").await.status, StatusCode::OK);
    assert_eq!(app.get("/readyz").await.status, StatusCode::OK);
    app.get("/v1/reports/trial-balance").await;
    // Metrics are not on the API port (they have a listener of their own).
    assert_eq!(app.get("/metrics").await.code(), "route_not_found");
    let metrics = platform::testing::send(
        &platform::http::metrics_app(),
        axum::http::Request::get("/metrics").body(axum::body::Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(metrics.status, StatusCode::OK);
    let unknown = app.get("/v1/nothing-here").await;
    assert_eq!((unknown.status, unknown.code()), (StatusCode::NOT_FOUND, "route_not_found"));
    let wrong_method =
        app.send(axum::http::Request::delete("/v1/transfers").body(axum::body::Body::empty()).unwrap()).await;
    assert_eq!(
        (wrong_method.status, wrong_method.code()),
        (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed")
    );
    let reply = app.get("/healthz").await;
    assert!(reply.headers.contains_key("x-request-id"));
}

/// The metrics' value of the series `series` (its name and labels, as rendered), or 0.
async fn metric(series: &str) -> f64 {
    let metrics = platform::testing::send(
        &platform::http::metrics_app(),
        axum::http::Request::get("/metrics").body(axum::body::Body::empty()).unwrap(),
    )
    .await;
    let text = metrics.body.as_str().unwrap_or_default().to_owned();
    text.lines()
        .find_map(|l| l.strip_prefix(series).and_then(|v| v.strip_prefix(' ')).and_then(|v| v.parse().ok()))
        .unwrap_or(0.0)
}

/// Issue 51: the ledger counts the transfers it applies and their cents by game and kind of
/// money (a replay is not counted again; a game no journal knows is `other`, never a new label)
/// and its refusals by code. (Other tests of this binary run at once: the series here are ones
/// only this test moves.)
#[tokio::test]
async fn the_ledger_counts_what_it_applies_and_refuses() {
    let app = TestApp::new().await;
    let wallet = app.funded_wallet("counted", 1_000).await;
    let house = app.account("house_revenue", "counted house").await;
    let refunds = r#"ledger_transfers_total{game="craps",money="refund",channel="none"}"#;
    let cents = r#"ledger_transfer_cents_total{game="craps",money="refund",channel="none"}"#;
    let (before, cents_before) = (metric(refunds).await, metric(cents).await);
    let mut refund = transfer(house, wallet, 250);
    refund["metadata"] = json!({"game": "craps", "money": "refund"});
    for _ in 0..2 {
        let reply = app.post("/v1/transfers", refund.clone()).await;
        assert!(reply.status.is_success(), "{}", reply.body);
    }
    assert_eq!(
        (metric(refunds).await - before, metric(cents).await - cents_before),
        (1.0, 250.0),
        "once, not its replay"
    );
    let made_up = format!("game-{}", Uuid::now_v7().simple());
    let mut odd = transfer(wallet, house, 1);
    odd["metadata"] = json!({"game": made_up, "money": "stake"});
    assert!(app.post("/v1/transfers", odd).await.status.is_success());
    assert_eq!(metric(&format!("ledger_transfers_total{{game=\"{made_up}\"")).await, 0.0);
    assert!(metric(r#"ledger_transfers_total{game="other",money="stake",channel="none"}"#).await >= 1.0);
    let refused = r#"ledger_refusals_total{code="insufficient_funds"}"#;
    let before = metric(refused).await;
    let too_much = app.post("/v1/transfers", transfer(wallet, house, 1_000_000)).await;
    assert_eq!(too_much.code(), "insufficient_funds");
    assert!(metric(refused).await - before >= 1.0);
    app.assert_ledger_consistent().await;
}

#[tokio::test]
async fn a_balance_that_would_overflow_is_refused_not_wrapped() {
    let app = TestApp::new().await;
    let wallet = app.funded_wallet("rich", 0).await;
    // One transfer: at most Amount::MAX_CENTS.
    let huge = app
        .post(
            "/v1/deposits",
            json!({"id": Uuid::now_v7(), "account_id": wallet, "amount": i64::MAX, "currency": "USD"}),
        )
        .await;
    assert_eq!((huge.status, huge.code()), (StatusCode::UNPROCESSABLE_ENTITY, "amount_too_large"));
    assert_eq!(app.posted(wallet).await, 0);
    // An account: filled to its limit by the largest transfers, in two batches...
    let most = domain::Amount::MAX_CENTS;
    let per_account = domain::Amount::MAX_ROW_TOTAL_CENTS / most;
    let source = app.account("cash_clearing", "overflow source").await;
    for half in 0..2 {
        let transfers: Vec<_> = (0..per_account / 2)
            .map(|_| json!({"id": Uuid::now_v7(), "debit_account_id": source, "credit_account_id": wallet, "amount": most, "currency": "USD"}))
            .collect();
        let batch = app.post("/v1/transfers/batch", json!({"transfers": transfers})).await;
        assert_eq!(batch.status, StatusCode::CREATED, "batch {half}: {}", batch.body);
    }
    assert_eq!(app.posted(wallet).await, domain::Amount::MAX_ROW_TOTAL_CENTS);
    // ...then one more cent is refused, in the same statement that would post it.
    for amount in [1, most] {
        let again = app
            .post(
                "/v1/deposits",
                json!({"id": Uuid::now_v7(), "account_id": wallet, "amount": amount, "currency": "USD"}),
            )
            .await;
        assert_eq!((again.status, again.code()), (StatusCode::UNPROCESSABLE_ENTITY, "account_limit_reached"));
    }
    // The account and the reports still read.
    assert_eq!(app.get(&format!("/v1/accounts/{wallet}")).await.status, StatusCode::OK);
    let trial = app.get("/v1/reports/trial-balance").await;
    assert_eq!(
        (trial.status, trial.body["balanced"].clone()),
        (StatusCode::OK, json!(true)),
        "{}",
        trial.body
    );
    assert_eq!(app.posted(wallet).await, domain::Amount::MAX_ROW_TOTAL_CENTS);
    app.assert_ledger_consistent().await;
}

/// Two postings of one hold sent at once under one id (a service finishing the same payment
/// twice at the same moment) are one posting: each answers it, neither is told the hold ended,
/// and the money moves once. Repeated, so the two overlap in the database.
#[tokio::test]
async fn concurrent_postings_of_a_hold_under_one_id_are_one_posting() {
    let app = TestApp::new().await;
    let alice = app.funded_wallet("alice", 100_000).await;
    let escrow = app.account("game_escrow", "payments").await;
    for round in 0..20 {
        let mut hold = transfer(alice, escrow, 100);
        hold["pending"] = json!(true);
        hold["timeout_seconds"] = json!(60);
        let hold_id = hold["id"].clone();
        assert_eq!(app.post("/v1/transfers", hold).await.status, StatusCode::CREATED);
        let post = json!({"id": Uuid::now_v7(), "post_pending_id": hold_id});
        let (a, b, c) = tokio::join!(
            app.post("/v1/transfers", post.clone()),
            app.post("/v1/transfers", post.clone()),
            app.post("/v1/transfers", post.clone())
        );
        let answers = [
            (a.status, a.code().to_owned()),
            (b.status, b.code().to_owned()),
            (c.status, c.code().to_owned()),
        ];
        assert!(answers.iter().all(|(s, _)| s.is_success()), "round {round}: {answers:?}");
        assert_eq!(app.posted(escrow).await, 100 * (round + 1), "round {round}");
    }
}
