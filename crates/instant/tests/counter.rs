//! The retailer's side of the counter (issue 14): a pack's life from shipping to settlement or to
//! a theft report, claims paid with receipts under an Idempotency-Key, and the retailer's and the
//! operator's reads: packs, receipts, statements. Against a real Postgres and the real ledger.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{get, post, printed, scan, service, staff, till};
use platform::auth::Role;
use platform::testing::send;
use serde_json::{Value, json};

/// A claim from `token` with idempotency key `key`.
async fn claim(router: &axum::Router, token: &str, key: &str, body: &Value) -> platform::testing::Reply {
    send(
        router,
        Request::post("/v1/instant/claims")
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(Body::from(body.to_string()))
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn a_pack_is_shipped_received_activated_and_settled_or_returned_or_reported_stolen() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 283, 31).await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let shop = till(&tokens, "till-1", "shop-pl-a");
    let other_shop = till(&tokens, "till-9", "shop-pl-b");
    let pack = |book: u32, what: &str| format!("/v1/instant/packs/283/{book}/{what}");
    let winner_in = |book: u32| tickets.iter().find(|t| t.book == book && t.prize_row == Some(0)).unwrap();
    let (first, _) = common::books_of(
        &state,
        &json!(
            sqlx::query_scalar::<_, uuid::Uuid>("SELECT print_run FROM packs WHERE game = 283 AND book = $1")
                .bind(i32::try_from(tickets[0].book).unwrap())
                .fetch_one(&state.pool)
                .await
                .unwrap()
                .to_string()
        ),
    )
    .await;
    let book = |n: i32| u32::try_from(first + n).unwrap();

    // The road: shipped, received, activated, settled.
    let (a, b, c, d) = (book(0), book(1), book(2), book(3));
    assert_eq!(post(&router, &pack(a, "receive"), &shop, json!(null)).await.code(), "pack_not_found");
    let shipped = post(&router, &pack(a, "ship"), &operator, json!({"retailer_id": "shop-pl-a"})).await;
    assert_eq!(shipped.body["state"], "shipped", "{}", shipped.body);
    assert_eq!(post(&router, &pack(a, "receive"), &other_shop, json!(null)).await.code(), "pack_not_found");
    let received = post(&router, &pack(a, "receive"), &shop, json!(null)).await;
    assert_eq!(received.body["state"], "received", "{}", received.body);
    assert_eq!(post(&router, &pack(a, "receive"), &shop, json!(null)).await.code(), "pack_not_shipped");
    // Not active yet: its tickets are not validated.
    assert_eq!(
        post(&router, "/v1/instant/validations", &shop, scan(winner_in(a))).await.code(),
        "pack_not_active"
    );
    assert_eq!(post(&router, &pack(a, "activate"), &shop, json!(null)).await.body["state"], "active");
    assert_eq!(post(&router, &pack(a, "return"), &operator, json!(null)).await.code(), "pack_not_returnable");
    assert_eq!(post(&router, &pack(a, "settle"), &shop, json!(null)).await.body["state"], "settled");

    // Activated straight from shipped: the receipt is confirmed in the same step.
    post(&router, &pack(b, "ship"), &operator, json!({"retailer_id": "shop-pl-a"})).await;
    assert_eq!(post(&router, &pack(b, "activate"), &shop, json!(null)).await.body["state"], "active");

    // Returned unsold: its tickets never validate.
    post(&router, &pack(c, "ship"), &operator, json!({"retailer_id": "shop-pl-a"})).await;
    assert_eq!(post(&router, &pack(c, "return"), &shop, json!(null)).await.status, StatusCode::FORBIDDEN);
    assert_eq!(post(&router, &pack(c, "return"), &operator, json!(null)).await.body["state"], "returned");
    assert_eq!(post(&router, &pack(c, "activate"), &shop, json!(null)).await.code(), "pack_not_shipped");
    assert_eq!(
        post(&router, "/v1/instant/validations", &shop, scan(winner_in(c))).await.code(),
        "pack_not_active"
    );

    // Stolen from the shop after activation, reported by its own till: refused at every counter
    // with its own code, and it cannot be settled, returned or reported again.
    post(&router, &pack(d, "ship"), &operator, json!({"retailer_id": "shop-pl-a"})).await;
    post(&router, &pack(d, "activate"), &shop, json!(null)).await;
    assert_eq!(post(&router, &pack(d, "stolen"), &other_shop, json!(null)).await.code(), "pack_not_found");
    let stolen = post(&router, &pack(d, "stolen"), &shop, json!(null)).await;
    assert_eq!(stolen.body["state"], "stolen", "{}", stolen.body);
    for counter in [&shop, &other_shop] {
        let refused = post(&router, "/v1/instant/validations", counter, scan(winner_in(d))).await;
        assert_eq!((refused.status, refused.code()), (StatusCode::CONFLICT, "pack_stolen"));
        assert_eq!(claim(&router, counter, "stolen-1", &scan(winner_in(d))).await.code(), "pack_stolen");
    }
    let at_office = post(
        &router,
        "/v1/instant/office-claims",
        &operator,
        json!({"barcode": winner_in(d).barcode, "virn": winner_in(d).virn, "claimant": {"name": "Pat"}}),
    )
    .await;
    assert_eq!(at_office.code(), "pack_stolen");
    assert_eq!(
        post(&router, &pack(d, "stolen"), &operator, json!(null)).await.code(),
        "pack_not_at_retailer"
    );
    assert_eq!(post(&router, &pack(d, "settle"), &operator, json!(null)).await.code(), "pack_not_active");
    let (reported_by,): (Option<String>,) =
        sqlx::query_as("SELECT stolen_reported_by FROM packs WHERE game = 283 AND book = $1")
            .bind(first + 3)
            .fetch_one(&state.pool)
            .await
            .unwrap();
    assert_eq!(reported_by.as_deref(), Some("till-1"));

    // The lists: the shop sees its own packs by state; staff any, by game, state and retailer.
    let own = get(&router, "/v1/instant/packs", &shop).await;
    let states: Vec<(i64, &str)> = own.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["book"].as_i64().unwrap(), p["state"].as_str().unwrap()))
        .collect();
    let at = |n: i32| i64::from(first + n);
    assert_eq!(states, vec![(at(0), "settled"), (at(1), "active"), (at(2), "returned"), (at(3), "stolen")]);
    assert!(
        own.body["items"][0]["received_at"].is_string() && own.body["items"][1]["received_at"].is_string()
    );
    assert_eq!(get(&router, "/v1/instant/packs", &other_shop).await.body["items"], json!([]));
    assert_eq!(
        get(&router, "/v1/instant/packs?retailer_id=shop-pl-a", &other_shop).await.status,
        StatusCode::FORBIDDEN
    );
    let stolen_ones = get(&router, "/v1/instant/packs?state=stolen&game=283", &operator).await;
    assert_eq!(stolen_ones.body["items"].as_array().unwrap().len(), 1, "{}", stolen_ones.body);
    // Pages: two at a time, following `next` to the end, every pack once.
    let mut seen = Vec::new();
    let mut path = "/v1/instant/packs?retailer_id=shop-pl-a&limit=2".to_owned();
    loop {
        let page = get(&router, &path, &operator).await;
        seen.extend(page.body["items"].as_array().unwrap().iter().map(|p| p["book"].as_i64().unwrap()));
        match page.body["next"].as_str() {
            Some(next) => path = format!("/v1/instant/packs?retailer_id=shop-pl-a&limit=2&after={next}"),
            None => break,
        }
    }
    assert_eq!(seen, vec![at(0), at(1), at(2), at(3)]);
    // Bad reads are refused, clearly.
    assert_eq!(get(&router, "/v1/instant/packs?state=lost", &operator).await.code(), "invalid_query");
    assert_eq!(get(&router, "/v1/instant/packs?after=nonsense", &operator).await.code(), "invalid_cursor");
    assert_eq!(get(&router, "/v1/instant/packs?limit=0", &operator).await.code(), "invalid_limit");
}

#[tokio::test]
async fn a_claim_leaves_a_receipt_and_a_retry_with_its_key_answers_the_same_receipt() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 283, 32).await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let shop = till(&tokens, "till-1", "shop-rc-a");
    let second_till = till(&tokens, "till-2", "shop-rc-a");
    let other_shop = till(&tokens, "till-9", "shop-rc-b");
    let winners: Vec<_> = tickets.iter().filter(|t| t.prize_row == Some(0)).take(2).collect();
    let loser = tickets.iter().find(|t| t.prize_row.is_none() && t.book == winners[0].book).unwrap();
    for t in &winners {
        post(
            &router,
            &format!("/v1/instant/packs/283/{}/ship", t.book),
            &operator,
            json!({"retailer_id": "shop-rc-a"}),
        )
        .await;
        post(&router, &format!("/v1/instant/packs/283/{}/activate", t.book), &shop, json!(null)).await;
    }

    // No key: refused before anything is read or paid.
    let no_key = send(
        &router,
        Request::post("/v1/instant/claims")
            .header("authorization", format!("Bearer {shop}"))
            .header("content-type", "application/json")
            .body(Body::from(scan(winners[0]).to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!((no_key.status, no_key.code()), (StatusCode::BAD_REQUEST, "missing_idempotency_key"));

    let paid = claim(&router, &shop, "k-1", &scan(winners[0])).await;
    assert_eq!(paid.status, StatusCode::CREATED, "{}", paid.body);
    assert_eq!(paid.headers["idempotent-replayed"], "false");
    let at = format!("/v1/instant/receipts/{}", paid.body["receipt_id"].as_str().unwrap());
    assert_eq!(paid.headers["location"], at.as_str(), "the receipt is where the answer says");
    let receipt = paid.body.clone();
    assert_eq!(
        (receipt["barcode"].as_str(), receipt["prize_cents"].as_i64(), receipt["paid_cents"].as_i64()),
        (Some(winners[0].barcode.as_str()), Some(100), Some(100))
    );
    assert_eq!(
        (receipt["terminal_id"].as_str(), receipt["retailer_id"].as_str()),
        (Some("till-1"), Some("shop-rc-a"))
    );
    assert_eq!(receipt["payment"], "paid");
    let lines: Vec<&str> = receipt["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(lines.contains(&format!("Ticket    {}", winners[0].barcode).as_str()), "{lines:?}");
    assert!(lines.contains(&"Prize     $1.00"), "{lines:?}");

    // The same key again, from the same retailer's other till: the same receipt, nothing paid.
    let account = ledger_api::retailer_account("shop-rc-a");
    let before = state.ledger.balance(account).await.unwrap();
    let replay = claim(&router, &second_till, "k-1", &scan(winners[0])).await;
    assert_eq!(
        (replay.status, replay.headers["idempotent-replayed"].to_str().unwrap()),
        (StatusCode::OK, "true")
    );
    assert_eq!(replay.body, receipt);
    assert_eq!(state.ledger.balance(account).await.unwrap(), before);
    // A new key for the paid ticket is a new claim: already paid.
    assert_eq!(claim(&router, &shop, "k-2", &scan(winners[0])).await.code(), "already_paid");
    // The key of a paid claim for another ticket: a conflict, and the other ticket is not paid.
    assert_eq!(claim(&router, &shop, "k-1", &scan(winners[1])).await.code(), "idempotency_conflict");
    // Another retailer's keys are its own: its "k-1" is a new claim (refused: not its winner's
    // pack, and already paid anyway).
    assert_eq!(claim(&router, &other_shop, "k-1", &scan(winners[0])).await.code(), "already_paid");
    // A loser leaves no receipt.
    assert_eq!(claim(&router, &shop, "k-3", &scan(loser)).await.code(), "not_a_winner");
    // A till whose token names its shop and itself prints the names, not the ids (issue 32 §7);
    // the first receipt, from a till named by id only, printed the ids.
    let place = platform::auth::Place {
        shop: "Corner Market".to_owned(),
        address: Some("12 Main St, Topeka KS".to_owned()),
        terminal: "Front counter".to_owned(),
    };
    let named = common::named_till(&tokens, "till-3", "shop-rc-a", &place);
    let second = claim(&router, &named, "k-4", &scan(winners[1])).await;
    assert_eq!(second.status, StatusCode::CREATED, "{}", second.body);
    let printed: Vec<&str> =
        second.body["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    for line in ["Retailer  Corner Market", "          12 Main St, Topeka KS", "Terminal  Front counter"] {
        assert!(printed.contains(&line), "{printed:?}");
    }
    assert!(!printed.iter().any(|l| l.contains("shop-rc-a") || l.contains("till-3")), "{printed:?}");
    assert_eq!(
        (second.body["shop"].as_str(), second.body["terminal_label"].as_str()),
        (Some("Corner Market"), Some("Front counter"))
    );
    assert!(lines.contains(&"Retailer  shop-rc-a") && lines.contains(&"Terminal  till-1"), "{lines:?}");

    // Receipts read again: the shop's own, and staff's; another shop's is not found.
    let id = receipt["receipt_id"].as_str().unwrap();
    assert_eq!(get(&router, &format!("/v1/instant/receipts/{id}"), &second_till).await.body, receipt);
    assert_eq!(get(&router, &format!("/v1/instant/receipts/{id}"), &operator).await.body, receipt);
    assert_eq!(
        get(&router, &format!("/v1/instant/receipts/{id}"), &other_shop).await.code(),
        "receipt_not_found"
    );
    assert_eq!(
        get(&router, "/v1/instant/receipts/not-a-uuid", &operator).await.status,
        StatusCode::BAD_REQUEST
    );
    // Listed: two for the shop, none for the other; one a page, every receipt once.
    let listed = get(&router, "/v1/instant/claims?limit=1", &shop).await;
    assert_eq!(listed.body["items"][0], receipt);
    let next = listed.body["next"].as_str().unwrap();
    let rest = get(&router, &format!("/v1/instant/claims?limit=1&after={next}"), &shop).await;
    assert_eq!(rest.body["items"][0]["receipt_id"], second.body["receipt_id"], "{}", rest.body);
    assert_eq!(get(&router, "/v1/instant/claims", &other_shop).await.body["items"], json!([]));
    let staff_view = get(&router, "/v1/instant/claims?retailer_id=shop-rc-a", &operator).await;
    assert_eq!(staff_view.body["items"].as_array().unwrap().len(), 2);
    assert_eq!(
        get(&router, "/v1/instant/claims?retailer_id=shop-rc-a", &other_shop).await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        get(&router, "/v1/instant/claims?since=2030-01-01T00:00:00Z&until=2029-01-01T00:00:00Z", &shop)
            .await
            .code(),
        "invalid_window"
    );
    assert_eq!(get(&router, "/v1/instant/claims?after=x_y", &shop).await.code(), "invalid_cursor");

    // Its validations: its own retailer's only (the other shop scanned too).
    let scans = get(&router, "/v1/instant/validations/by-retailer", &shop).await;
    let rows = scans.body.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{}", scans.body);
    assert_eq!(
        (rows[0]["retailer_id"].as_str(), rows[0]["refused"]["already_paid"].as_i64()),
        (Some("shop-rc-a"), Some(1))
    );
    assert_eq!(
        get(&router, "/v1/instant/validations/by-retailer?retailer_id=shop-rc-b", &shop).await.status,
        StatusCode::FORBIDDEN
    );
    // The statement: the settled pack owes its price less 5%; the prizes paid are credited.
    let book = winners[0].book;
    let settled =
        post(&router, &format!("/v1/instant/packs/283/{book}/settle"), &operator, json!(null)).await;
    let owed = settled.body["settlement"]["owed_cents"].as_i64().unwrap();
    let statement = get(&router, "/v1/instant/retailers/shop-rc-a/statement", &shop).await;
    assert_eq!(statement.status, StatusCode::OK, "{}", statement.body);
    assert_eq!(statement.body["owed_cents"].as_i64(), Some(owed));
    assert_eq!(statement.body["settlements"].as_array().unwrap().len(), 1);
    assert_eq!(
        (statement.body["prizes_paid"].as_i64(), statement.body["prizes_paid_cents"].as_i64()),
        (Some(2), Some(200))
    );
    assert_eq!(statement.body["net_owed_cents"].as_i64(), Some(owed - 200));
    let balance = state.ledger.balance(account).await.unwrap();
    assert_eq!(statement.body["balance_owed_cents"].as_i64(), Some(-balance));
    assert_eq!(statement.body["balance_owed_cents"].as_i64(), Some(owed - 200));
    assert_eq!(statement.body["packs"]["settled"].as_i64(), Some(1));
    // Before it all: an empty period.
    let before_it = get(
        &router,
        "/v1/instant/retailers/shop-rc-a/statement?since=2020-01-01T00:00:00Z&until=2020-02-01T00:00:00Z",
        &operator,
    )
    .await;
    assert_eq!(
        (before_it.body["owed_cents"].as_i64(), before_it.body["prizes_paid"].as_i64()),
        (Some(0), Some(0))
    );
    assert_eq!(
        get(&router, "/v1/instant/retailers/shop-rc-a/statement", &other_shop).await.status,
        StatusCode::FORBIDDEN
    );
    // A retailer that never sold owes nothing.
    let nobody = get(&router, "/v1/instant/retailers/shop-never/statement", &operator).await;
    assert_eq!(nobody.body["balance_owed_cents"].as_i64(), Some(0), "{}", nobody.body);
}

#[tokio::test]
async fn a_retailer_validating_far_more_high_tier_winners_than_the_odds_give_is_flagged() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 283, 33).await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let honest = till(&tokens, "till-h", "shop-honest");
    let cherry = till(&tokens, "till-c", "shop-cherry");
    let mut opened = std::collections::HashSet::new();
    let mut open = |book: u32, shop: &'static str| {
        let first = opened.insert(book);
        let (router, operator, till) = (
            router.clone(),
            operator.clone(),
            if shop == "shop-honest" { honest.clone() } else { cherry.clone() },
        );
        async move {
            if first {
                post(
                    &router,
                    &format!("/v1/instant/packs/283/{book}/ship"),
                    &operator,
                    json!({"retailer_id": shop}),
                )
                .await;
                post(&router, &format!("/v1/instant/packs/283/{book}/activate"), &till, json!(null)).await;
            }
        }
    };
    // The honest shop scans every ticket of three books, as sold.
    let books: Vec<u32> = {
        let mut b: Vec<u32> = tickets.iter().map(|t| t.book).collect();
        b.dedup();
        b.into_iter().take(3).collect()
    };
    for &book in &books {
        open(book, "shop-honest").await;
    }
    for t in tickets.iter().filter(|t| books.contains(&t.book)) {
        post(&router, "/v1/instant/validations", &honest, scan(t)).await;
    }
    // The other scans fifteen winners of $25 and more, and nothing else.
    let high: Vec<_> = tickets
        .iter()
        .filter(|t| {
            !books.contains(&t.book)
                && t.prize_row.is_some_and(|r| common::game(&state, 283).prizes[r].value_cents >= 2_500)
        })
        .take(15)
        .collect();
    assert_eq!(high.len(), 15);
    for t in &high {
        open(t.book, "shop-cherry").await;
        let seen = post(&router, "/v1/instant/validations", &cherry, scan(t)).await;
        assert_eq!(seen.body["winner"], true, "{}", seen.body);
    }
    // And guesses a VIRN twice.
    post(
        &router,
        "/v1/instant/validations",
        &cherry,
        json!({"barcode": tickets[0].barcode, "virn": "000000000001"}),
    )
    .await;

    let report =
        get(&router, "/v1/instant/reports/unusual-validations?high_tier_cents=2500", &operator).await;
    assert_eq!(report.status, StatusCode::OK, "{}", report.body);
    let rows = report.body["retailers"].as_array().unwrap();
    assert_eq!(rows[0]["retailer_id"], "shop-cherry", "flagged first: {}", report.body);
    let cherry_row = &rows[0];
    assert_eq!(cherry_row["high_tier"]["observed"], 15);
    assert!(cherry_row["high_tier"]["expected"].as_f64().unwrap() < 1.0, "{cherry_row}");
    assert!(cherry_row["high_tier"]["p_value"].as_f64().unwrap() < 1e-12, "{cherry_row}");
    assert_eq!(cherry_row["high_tier"]["flagged"], true);
    assert_eq!(cherry_row["wrong_virns"], 1);
    assert!(cherry_row["flags"][0].as_str().unwrap().contains("15 high-tier winners"), "{cherry_row}");
    let honest_row = rows.iter().find(|r| r["retailer_id"] == "shop-honest").unwrap();
    // Its winners are those printed in its books, so what it sees is what the odds give.
    let printed_winners = tickets.iter().filter(|t| books.contains(&t.book) && t.prize_row.is_some()).count();
    assert_eq!(honest_row["winners"].as_u64(), Some(printed_winners as u64));
    assert_eq!(honest_row["flags"], json!([]), "{honest_row}");
    assert!(honest_row["high_tier"]["p_value"].as_f64().unwrap() > 0.001, "{honest_row}");
    // Bad thresholds are refused, clearly.
    for (bad, code) in [
        ("alpha=2", "invalid_query"),
        ("high_tier_cents=0", "invalid_query"),
        ("near_limit_from_cents=0", "invalid_query"),
        ("since=2030-01-01T00:00:00Z", "invalid_window"),
    ] {
        let refused =
            get(&router, &format!("/v1/instant/reports/unusual-validations?{bad}"), &operator).await;
        assert_eq!(refused.code(), code, "{bad}: {}", refused.body);
    }
    assert_eq!(
        get(&router, "/v1/instant/reports/unusual-validations", &cherry).await.status,
        StatusCode::FORBIDDEN
    );
}
