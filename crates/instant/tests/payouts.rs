//! Money leaving the instant games: prizes paid at the lottery office with their tax records,
//! packs settled with retailers (on request and after a time), and the operators' reads of
//! liability and validations, all against a real Postgres and the real ledger.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use rand::SeedableRng;

use axum::http::StatusCode;
use common::{game, get, ledger_get, post, printed, scan, service, staff, till};
use domain::instant::print_run::PrintedTicket;
use platform::auth::{Role, TokenKeys};
use serde_json::{Value, json};

/// Assigns `book` of `number` to `shop` and activates it from its till.
async fn open_pack(router: &axum::Router, operator: &str, till: &str, shop: &str, number: u32, book: u32) {
    let assigned = post(
        router,
        &format!("/v1/instant/packs/{number}/{book}/ship"),
        operator,
        json!({"retailer_id": shop}),
    )
    .await;
    assert_eq!(assigned.status, StatusCode::OK, "{}", assigned.body);
    let active =
        post(router, &format!("/v1/instant/packs/{number}/{book}/activate"), till, json!(null)).await;
    assert_eq!(active.status, StatusCode::OK, "{}", active.body);
}

/// An account's balance; one not opened yet holds nothing.
async fn balance(state: &instant::InstantState, account: uuid::Uuid) -> i64 {
    match state.ledger.balance(account).await {
        Err(e) if e.code() == "account_not_found" => 0,
        other => other.unwrap(),
    }
}

#[tokio::test]
async fn the_office_pays_after_tax_once_and_records_w2g_as_the_rules_say() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 286, 7).await;
    let crossword = game(&state, 286);
    let operator = staff(&tokens, "olga", Role::Operator);
    let shop = till(&tokens, "till-1", "shop-a");
    let prize_of = |cents: i64| {
        let row = crossword.prizes.iter().position(|p| p.value_cents == cents).unwrap();
        tickets.iter().find(|t| t.prize_row == Some(row)).unwrap()
    };
    // $50,000 on a $5 ticket: a W-2G and 24% withheld; $5,000: a W-2G, nothing withheld (not
    // above $5,000); $1,000: over $600 but under 300 times $5, so no W-2G.
    let (top, five_thousand, thousand) = (prize_of(5_000_000), prize_of(500_000), prize_of(100_000));
    for t in [top, five_thousand, thousand] {
        open_pack(&router, &operator, &shop, "shop-a", 286, t.book).await;
    }
    assert_eq!(post(&router, "/v1/instant/claims", &shop, scan(top)).await.code(), "claim_at_office");

    let liability = instant::liability_account(286);
    let before = balance(&state, liability).await;
    let claim = |t: &PrintedTicket, claimant: Value| {
        let mut body = scan(t);
        body["claimant"] = claimant;
        body
    };
    let no_tin =
        post(&router, "/v1/instant/office-claims", &operator, claim(top, json!({"name": "Pat Doe"}))).await;
    assert_eq!(no_tin.code(), "claimant_tin_required", "{}", no_tin.body);
    let bad_tin = claim(top, json!({"name": "Pat Doe", "tin_last4": "12a4"}));
    assert_eq!(
        post(&router, "/v1/instant/office-claims", &operator, bad_tin).await.code(),
        "invalid_claimant"
    );
    let anonymous = claim(top, json!({"name": "  ", "tin_last4": "1234"}));
    assert_eq!(
        post(&router, "/v1/instant/office-claims", &operator, anonymous).await.code(),
        "invalid_claimant"
    );
    assert_eq!(balance(&state, liability).await, before, "refusals move nothing");

    let paid = post(
        &router,
        "/v1/instant/office-claims",
        &operator,
        claim(top, json!({"name": "Pat Doe", "address": "1 Main St, Topeka KS", "tin_last4": "1234"})),
    )
    .await;
    assert_eq!(paid.status, StatusCode::CREATED, "{}", paid.body);
    assert_eq!(
        (&paid.body["prize_cents"], &paid.body["withheld_cents"], &paid.body["net_cents"], &paid.body["w2g"]),
        (&json!(5_000_000), &json!(1_200_000), &json!(3_800_000), &json!(true))
    );
    let again = claim(top, json!({"name": "Pat Doe", "tin_last4": "1234"}));
    assert_eq!(post(&router, "/v1/instant/office-claims", &operator, again).await.code(), "already_paid");
    assert_eq!(post(&router, "/v1/instant/claims", &shop, scan(top)).await.code(), "already_paid");

    let five = post(
        &router,
        "/v1/instant/office-claims",
        &operator,
        claim(five_thousand, json!({"name": "Lee Roe", "tin_last4": "9876"})),
    )
    .await;
    assert_eq!((&five.body["withheld_cents"], &five.body["w2g"]), (&json!(0), &json!(true)), "{}", five.body);
    let one =
        post(&router, "/v1/instant/office-claims", &operator, claim(thousand, json!({"name": "Kim Poe"})))
            .await;
    assert_eq!((&one.body["net_cents"], &one.body["w2g"]), (&json!(100_000), &json!(false)), "{}", one.body);

    // The ledger: the liability lost the three prizes; the office owes the nets, the tax
    // authority what was withheld.
    let link = &state.accounts;
    assert_eq!(balance(&state, liability).await, before - 5_000_000 - 500_000 - 100_000);
    assert_eq!(balance(&state, link.office_payouts).await, 3_800_000 + 500_000 + 100_000);
    assert_eq!(balance(&state, link.withholding).await, 1_200_000);
    assert_eq!(ledger_get(&state, "/v1/reports/trial-balance").await["balanced"], true);

    // The W-2G list, for operators and auditors.
    let auditor = staff(&tokens, "audrey", Role::Auditor);
    let w2g = get(&router, "/v1/instant/office-claims?w2g=true", &auditor).await;
    let listed: Vec<&Value> = w2g.body.as_array().unwrap().iter().collect();
    assert_eq!(listed.len(), 2, "{}", w2g.body);
    assert!(listed.iter().all(|c| c["w2g"] == true && c["tin_last4"].is_string()));
    assert_eq!(get(&router, "/v1/instant/office-claims?limit=0", &auditor).await.code(), "invalid_limit");
    assert_eq!(get(&router, "/v1/instant/office-claims", &shop).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_pack_settles_for_its_price_less_commission_on_request_or_after_its_time() {
    let (router, mut state, tokens) = service().await;
    let tickets = printed(&state, 283, 3).await;
    let hit10 = game(&state, 283);
    let operator = staff(&tokens, "olga", Role::Operator);
    let (shop_a, shop_b) = (till(&tokens, "till-a", "shop-a"), till(&tokens, "till-b", "shop-b"));
    for book in [0, 1, 2] {
        open_pack(&router, &operator, &shop_a, "shop-a", 283, book).await;
    }
    // A pack printed but not active is not settled.
    assert_eq!(
        post(&router, "/v1/instant/packs/283/5/settle", &operator, json!(null)).await.code(),
        "pack_not_active"
    );
    // Another shop's till does not see shop A's pack.
    assert_eq!(
        post(&router, "/v1/instant/packs/283/0/settle", &shop_b, json!(null)).await.code(),
        "pack_not_found"
    );

    // 300 tickets at $1 with the default 5% commission: $300 sold, $15 kept, $285 owed.
    let settled = post(&router, "/v1/instant/packs/283/0/settle", &shop_a, json!(null)).await;
    assert_eq!(settled.status, StatusCode::OK, "{}", settled.body);
    let per_book = i64::try_from(hit10.ticket_numbers.tickets_per_book()).unwrap();
    let sales = per_book * hit10.price_cents;
    assert_eq!(settled.body["state"], "settled");
    assert_eq!(settled.body["settlement"]["sales_cents"], json!(sales));
    assert_eq!(settled.body["settlement"]["commission_cents"], json!(sales * 5 / 100));
    assert_eq!(settled.body["settlement"]["owed_cents"], json!(sales * 95 / 100));
    let shop_account = ledger_api::retailer_account("shop-a");
    assert_eq!(balance(&state, shop_account).await, -(sales * 95 / 100), "the shop owes the lottery");
    // Asking again answers the same settlement and posts nothing more.
    let again = post(&router, "/v1/instant/packs/283/0/settle", &operator, json!(null)).await;
    assert_eq!(again.body["settlement"], settled.body["settlement"]);
    assert_eq!(balance(&state, shop_account).await, -(sales * 95 / 100));

    // A settled pack's tickets were sold: their winners are still paid at the counter.
    let winner = tickets.iter().find(|t| t.book == 0 && t.prize_row == Some(0)).unwrap();
    let paid = post(&router, "/v1/instant/claims", &shop_a, scan(winner)).await;
    assert_eq!(paid.status, StatusCode::CREATED, "{}", paid.body);
    let prize = paid.body["paid_cents"].as_i64().unwrap();
    assert_eq!(balance(&state, shop_account).await, prize - sales * 95 / 100);

    // Past their time, the other active packs settle by themselves; printed ones do not.
    assert_eq!(instant::saga::packs::settle_due_packs(&state).await.unwrap(), 0, "not due for 30 days");
    state.settings.settle_after = Duration::ZERO;
    assert_eq!(instant::saga::packs::settle_due_packs(&state).await.unwrap(), 2);
    assert_eq!(instant::saga::packs::settle_due_packs(&state).await.unwrap(), 0, "each once");
    assert_eq!(balance(&state, shop_account).await, prize - 3 * (sales * 95 / 100));
    assert_eq!(ledger_get(&state, "/v1/reports/trial-balance").await["balanced"], true);
}

#[tokio::test]
async fn a_pack_settled_while_the_ledger_is_away_is_posted_once_when_it_is_back() {
    let (router, state, tokens) = service().await;
    printed(&state, 283, 2).await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let shop = till(&tokens, "till-a", "shop-a");
    for book in [0, 1] {
        open_pack(&router, &operator, &shop, "shop-a", 283, book).await;
    }
    // The same service with its ledger gone: nothing answers on the discard port.
    let gone =
        platform::upstream::Upstream::remote("ledger", "http://127.0.0.1:9", Duration::from_secs(2)).unwrap();
    let away = instant::InstantState {
        ledger: ledger_api::LedgerClient::new(gone, tokens.clone(), "instant"),
        ..state.clone()
    };
    let away = instant::router(away, platform::http::Limits::default());
    for book in [0, 1] {
        let refused =
            post(&away, &format!("/v1/instant/packs/283/{book}/settle"), &operator, json!(null)).await;
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE, "{}", refused.body);
    }
    let shop_account = ledger_api::retailer_account("shop-a");
    assert_eq!(balance(&state, shop_account).await, 0, "no money has moved");

    // Asked again with the ledger back, pack 0's money moves, once.
    let settled = post(&router, "/v1/instant/packs/283/0/settle", &shop, json!(null)).await;
    assert_eq!(settled.status, StatusCode::OK, "{}", settled.body);
    let owed = settled.body["settlement"]["owed_cents"].as_i64().unwrap();
    assert!(owed > 0);
    assert_eq!(balance(&state, shop_account).await, -owed);
    post(&router, "/v1/instant/packs/283/0/settle", &shop, json!(null)).await;
    assert_eq!(balance(&state, shop_account).await, -owed);
    // Pack 1 nobody asks for again: the settlement pass moves it (it is not yet due by its
    // age, but its settlement is recorded), once.
    assert_eq!(instant::saga::packs::settle_due_packs(&state).await.unwrap(), 1);
    assert_eq!(instant::saga::packs::settle_due_packs(&state).await.unwrap(), 0);
    assert_eq!(balance(&state, shop_account).await, -2 * owed);
    assert_eq!(ledger_get(&state, "/v1/reports/trial-balance").await["balanced"], true);
}

#[tokio::test]
async fn a_print_run_stored_while_the_ledger_is_away_is_funded_once_when_it_is_back() {
    let (_, state, tokens) = service().await;
    let gone =
        platform::upstream::Upstream::remote("ledger", "http://127.0.0.1:9", Duration::from_secs(2)).unwrap();
    let away = instant::InstantState {
        ledger: ledger_api::LedgerClient::new(gone, tokens.clone(), "instant"),
        ..state.clone()
    };
    // The run is stored and printed though its funding cannot move: it is bookkeeping of the
    // lottery's own, done after the run commits.
    let game = game(&state, 283);
    let run = instant::saga::print_run::store_print_run_with(
        &away,
        &game,
        "olga",
        rand_chacha::ChaCha20Rng::seed_from_u64(5),
    )
    .await
    .unwrap();
    assert!(run.tickets > 0);
    let liability = instant::liability_account(283);
    assert_eq!(balance(&state, liability).await, 0, "nothing funded while the ledger is away");
    // The funding pass moves it, once.
    assert_eq!(instant::saga::print_run::fund_unfunded(&state).await.unwrap(), 1);
    assert_eq!(instant::saga::print_run::fund_unfunded(&state).await.unwrap(), 0);
    let funded = balance(&state, liability).await;
    assert!(funded > 0);
    let expected: i64 =
        game.prizes.iter().map(|p| game.cost_of_winner_cents(p) * i64::try_from(p.count).unwrap()).sum();
    assert_eq!(funded, expected);
    assert_eq!(ledger_get(&state, "/v1/reports/trial-balance").await["balanced"], true);
}

#[tokio::test]
async fn operators_read_liability_that_agrees_with_the_ledger_and_scans_per_retailer() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 283, 9).await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let (shop_a, shop_b) = (till(&tokens, "till-a", "shop-a"), till(&tokens, "till-b", "shop-b"));
    open_pack(&router, &operator, &shop_a, "shop-a", 283, 0).await;
    open_pack(&router, &operator, &shop_b, "shop-b", 283, 1).await;
    let in_book = |book: u32, wins: bool| {
        tickets.iter().filter(move |t| t.book == book && t.prize_row.is_some() == wins)
    };
    let (a_winners, a_losers): (Vec<_>, Vec<_>) =
        (in_book(0, true).take(3).collect(), in_book(0, false).take(4).collect());
    for t in &a_winners {
        assert_eq!(post(&router, "/v1/instant/validations", &shop_a, scan(t)).await.status, StatusCode::OK);
    }
    // Issue 47 §4: the first winner, validated, is then paid: still one winner, its prize once.
    assert_eq!(
        post(&router, "/v1/instant/claims", &shop_a, scan(a_winners[0])).await.status,
        StatusCode::CREATED
    );
    for t in &a_losers {
        assert_eq!(post(&router, "/v1/instant/validations", &shop_a, scan(t)).await.status, StatusCode::OK);
    }
    let wrong = json!({"barcode": a_losers[0].barcode, "virn": "000000000000"});
    assert_eq!(post(&router, "/v1/instant/validations", &shop_a, wrong).await.code(), "wrong_virn");
    let b_winner = in_book(1, true).next().unwrap();
    assert_eq!(
        post(&router, "/v1/instant/claims", &shop_b, scan(b_winner)).await.status,
        StatusCode::CREATED
    );

    let auditor = staff(&tokens, "audrey", Role::Auditor);
    let report = get(&router, "/v1/instant/validations/by-retailer", &auditor).await;
    assert_eq!(report.status, StatusCode::OK, "{}", report.body);
    let rows = report.body.as_array().unwrap();
    let a = rows.iter().find(|r| r["retailer_id"] == "shop-a").unwrap();
    let a_cents: i64 =
        a_winners.iter().map(|t| state.game(283).unwrap().prizes[t.prize_row.unwrap()].value_cents).sum();
    assert_eq!((&a["scans"], &a["winners"], &a["not_winners"]), (&json!(9), &json!(3), &json!(4)), "{a}");
    assert_eq!((&a["refused"]["wrong_virn"], &a["winner_cents"]), (&json!(1), &json!(a_cents)));
    let b = rows.iter().find(|r| r["retailer_id"] == "shop-b").unwrap();
    assert_eq!((&b["scans"], &b["winners"]), (&json!(1), &json!(1)), "the claim's scan counts");
    let only_b = get(&router, "/v1/instant/validations/by-retailer?retailer_id=shop-b", &operator).await;
    assert_eq!(only_b.body.as_array().unwrap().len(), 1);
    let past =
        get(&router, "/v1/instant/validations/by-retailer?until=2020-01-01T00:00:00Z", &operator).await;
    assert_eq!(past.body, json!([]), "nothing was scanned before 2020");
    let bad = get(&router, "/v1/instant/validations/by-retailer?since=2030-01-01T00:00:00Z", &operator).await;
    assert_eq!(bad.code(), "invalid_window");

    // Liability: printed less paid, equal to the ledger's account for every game.
    let liability = get(&router, "/v1/instant/liability", &auditor).await;
    for g in liability.body.as_array().unwrap() {
        assert_eq!(g["outstanding_cents"], g["ledger_balance_cents"], "{g}");
    }
    let hit10 = liability.body.as_array().unwrap().iter().find(|g| g["game"] == 283).unwrap();
    let prize = |t: &&PrintedTicket| state.game(283).unwrap().prizes[t.prize_row.unwrap()].value_cents;
    assert_eq!(hit10["paid_cents"], json!(prize(&b_winner) + prize(&a_winners[0])), "the two paid");
    assert_eq!(get(&router, "/v1/instant/liability", &shop_a).await.status, StatusCode::FORBIDDEN);
    assert_eq!(ledger_get(&state, "/v1/reports/trial-balance").await["balanced"], true);
}

/// What a refused claim must leave as it was: the liability, the shop's account, the office's,
/// and every ticket's paid mark.
async fn books(state: &instant::InstantState) -> (i64, i64, i64, i64) {
    let link = &state.accounts;
    let paid: i64 = sqlx::query_scalar("SELECT count(*) FROM tickets WHERE paid_at IS NOT NULL")
        .fetch_one(&state.pool)
        .await
        .unwrap();
    (
        balance(state, instant::liability_account(283)).await,
        balance(state, ledger_api::retailer_account("shop-a")).await,
        balance(state, link.office_payouts).await,
        paid,
    )
}

#[tokio::test]
async fn bad_claims_get_their_own_errors_and_move_nothing() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 283, 11).await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let shop = till(&tokens, "till-a", "shop-a");
    open_pack(&router, &operator, &shop, "shop-a", 283, 0).await;
    // Book 1 is assigned but never activated.
    post(&router, "/v1/instant/packs/283/1/ship", &operator, json!({"retailer_id": "shop-a"})).await;
    let winner = tickets.iter().find(|t| t.book == 0 && t.prize_row.is_some()).unwrap();
    let paid_before = tickets.iter().filter(|t| t.book == 0 && t.prize_row.is_some()).nth(1).unwrap();
    let inactive = tickets.iter().find(|t| t.book == 1 && t.prize_row.is_some()).unwrap();
    assert_eq!(
        post(&router, "/v1/instant/claims", &shop, scan(paid_before)).await.status,
        StatusCode::CREATED
    );

    let mut tampered = winner.barcode.clone();
    tampered.replace_range(5..6, if &winner.barcode[5..6] == "7" { "8" } else { "7" });
    let unknown = domain::instant::print_run::barcode(999, 0, 0);
    let cases = [
        (json!({"barcode": tampered, "virn": winner.virn}), "invalid_barcode"),
        (json!({"barcode": winner.barcode, "virn": "000000000000"}), "wrong_virn"),
        (json!({"barcode": unknown, "virn": winner.virn}), "unknown_game"),
        (scan(inactive), "pack_not_active"),
        (scan(paid_before), "already_paid"),
    ];
    let before = books(&state).await;
    for (body, code) in cases {
        let at_counter = post(&router, "/v1/instant/claims", &shop, body.clone()).await;
        assert_eq!(at_counter.code(), code, "{body}");
        assert_eq!(at_counter.headers.get("content-type").unwrap(), "application/problem+json", "{body}");
        let mut office_body = body.clone();
        office_body["claimant"] = json!({"name": "Pat Doe", "tin_last4": "1234"});
        assert_eq!(post(&router, "/v1/instant/office-claims", &operator, office_body).await.code(), code);
        assert_eq!(books(&state).await, before, "{code} moved nothing");
    }
    // The winner itself is still there to be paid, once.
    assert_eq!(post(&router, "/v1/instant/claims", &shop, scan(winner)).await.status, StatusCode::CREATED);
    assert_eq!(ledger_get(&state, "/v1/reports/trial-balance").await["balanced"], true);
}

/// The same service with its ledger out of reach (nothing listens on port 9).
fn cut_off(state: &instant::InstantState, tokens: &TokenKeys) -> (axum::Router, instant::InstantState) {
    let dead =
        platform::upstream::Upstream::remote("ledger", "http://127.0.0.1:9", Duration::from_secs(2)).unwrap();
    let mut cut = state.clone();
    cut.ledger = ledger_api::LedgerClient::new(dead, tokens.clone(), "instant");
    (instant::router(cut.clone(), platform::http::Limits::default()), cut)
}

async fn payment_state(state: &instant::InstantState, t: &PrintedTicket) -> Option<String> {
    sqlx::query_scalar("SELECT payment FROM tickets WHERE game = 283 AND book = $1 AND ticket = $2")
        .bind(i32::try_from(t.book).unwrap())
        .bind(i32::try_from(t.ticket).unwrap())
        .fetch_one(&state.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_payment_the_ledger_did_not_answer_is_finished_and_confirmed_exactly_once() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 283, 13).await;
    let hit10 = game(&state, 283);
    let operator = staff(&tokens, "olga", Role::Operator);
    let (shop_a, shop_b) = (till(&tokens, "till-a", "shop-a"), till(&tokens, "till-b", "shop-b"));
    open_pack(&router, &operator, &shop_a, "shop-a", 283, 0).await;
    let winners: Vec<&PrintedTicket> =
        tickets.iter().filter(|t| t.book == 0 && t.prize_row.is_some()).take(4).collect();
    let prize = |t: &PrintedTicket| hit10.prizes[t.prize_row.unwrap()].value_cents;
    let (cut_router, _) = cut_off(&state, &tokens);
    let shop_account = ledger_api::retailer_account("shop-a");
    let before = books(&state).await;

    // The ledger away: 503, nothing moved, and the ticket held for shop A alone.
    let away = post(&cut_router, "/v1/instant/claims", &shop_a, scan(winners[0])).await;
    assert_eq!((away.status, away.code()), (StatusCode::SERVICE_UNAVAILABLE, "unavailable"), "{}", away.body);
    assert_eq!(payment_state(&state, winners[0]).await.as_deref(), Some("pending"));
    assert_eq!(books(&state).await.0, before.0, "the liability has not moved");
    assert_eq!(post(&router, "/v1/instant/claims", &shop_b, scan(winners[0])).await.code(), "already_paid");
    assert_eq!(
        post(&router, "/v1/instant/validations", &shop_a, scan(winners[0])).await.code(),
        "already_paid"
    );
    // Shop A claiming again with the ledger back is told to pay, once.
    let paid = post(&router, "/v1/instant/claims", &shop_a, scan(winners[0])).await;
    assert_eq!(
        (paid.status, paid.body["paid_cents"].as_i64()),
        (StatusCode::CREATED, Some(prize(winners[0])))
    );
    assert_eq!(post(&router, "/v1/instant/claims", &shop_a, scan(winners[0])).await.code(), "already_paid");
    assert_eq!(balance(&state, shop_account).await, prize(winners[0]));

    // Left to the recovery pass: the money moves once, and the till is told to pay when it asks.
    assert_eq!(
        post(&cut_router, "/v1/instant/claims", &shop_a, scan(winners[1])).await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(
        instant::saga::payment::finish_pending_payments(&state, Duration::from_secs(3600)).await.unwrap(),
        0,
        "not stuck yet"
    );
    assert_eq!(instant::saga::payment::finish_pending_payments(&state, Duration::ZERO).await.unwrap(), 1);
    assert_eq!(
        instant::saga::payment::finish_pending_payments(&state, Duration::ZERO).await.unwrap(),
        0,
        "once"
    );
    assert_eq!(payment_state(&state, winners[1]).await.as_deref(), Some("done"));
    let report = get(&router, "/v1/instant/liability", &operator).await;
    let hit10_row = report.body.as_array().unwrap().iter().find(|g| g["game"] == 283).unwrap().clone();
    assert_eq!((&hit10_row["payments_pending"], &hit10_row["payments_unconfirmed"]), (&json!(0), &json!(1)));
    let moved = prize(winners[0]) + prize(winners[1]);
    assert_eq!(balance(&state, shop_account).await, moved);
    assert_eq!(
        post(&router, "/v1/instant/claims", &shop_a, scan(winners[1])).await.status,
        StatusCode::CREATED
    );
    assert_eq!(post(&router, "/v1/instant/claims", &shop_a, scan(winners[1])).await.code(), "already_paid");
    assert_eq!(balance(&state, shop_account).await, moved, "confirming moved nothing more");

    // The office the same way; claiming again answers the claim as first recorded.
    let mut body = scan(winners[2]);
    body["claimant"] = json!({"name": "Pat Doe"});
    assert_eq!(
        post(&cut_router, "/v1/instant/office-claims", &operator, body.clone()).await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(instant::saga::payment::finish_pending_payments(&state, Duration::ZERO).await.unwrap(), 1);
    let link = &state.accounts;
    assert_eq!(balance(&state, link.office_payouts).await, prize(winners[2]));
    body["claimant"] = json!({"name": "Someone Else"});
    let confirmed = post(&router, "/v1/instant/office-claims", &operator, body).await;
    assert_eq!(confirmed.status, StatusCode::CREATED, "{}", confirmed.body);
    assert_eq!(confirmed.body["claimant_name"], "Pat Doe");
    assert_eq!(balance(&state, link.office_payouts).await, prize(winners[2]));

    // A ledger that refuses (here: it does not accept the service's tokens) releases the ticket.
    let mut refused = state.clone();
    refused.tokens = TokenKeys::random();
    refused.ledger = refused.ledger.with_tokens(refused.tokens.clone());
    let refused_router = instant::router(refused.clone(), platform::http::Limits::default());
    let refused_till = till(&refused.tokens, "till-a", "shop-a");
    let paid_before = books(&state).await.3;
    let no = post(&refused_router, "/v1/instant/claims", &refused_till, scan(winners[3])).await;
    assert!(no.status.is_client_error(), "{} {}", no.status, no.body);
    assert_eq!(payment_state(&state, winners[3]).await, None, "released");
    assert_eq!(books(&state).await.3, paid_before);
    assert_eq!(
        post(&router, "/v1/instant/claims", &shop_a, scan(winners[3])).await.status,
        StatusCode::CREATED
    );
    assert_eq!(ledger_get(&state, "/v1/reports/trial-balance").await["balanced"], true);
}
