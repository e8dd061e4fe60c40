//! Prizes that expire (issue 50): an operator records a game's end of sales; its prizes are paid
//! until the last day of the claim period after it (180 days, moved past a weekend or a
//! holiday); after it, a scan and a claim at the till answer `prize_expired`, and what the
//! game's prize liability holds moves once to the unclaimed account, never while a payment of
//! the game is in flight. Against a real Postgres and the real ledger.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::{Days, NaiveDate};
use common::{get, ledger_get, post, printed, scan, service, staff, till};
use domain::prizes::ClaimPeriod;
use platform::auth::Role;
use platform::testing::{Reply, send};
use serde_json::{Value, json};

async fn request(
    router: &axum::Router,
    method: &str,
    path: &str,
    token: &str,
    key: Option<&str>,
    body: &Value,
) -> Reply {
    let mut builder = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json");
    if let Some(key) = key {
        builder = builder.header("idempotency-key", key);
    }
    send(router, builder.body(Body::from(body.to_string())).unwrap()).await
}

fn lottery_today() -> NaiveDate {
    chrono::Utc::now().with_timezone(&domain::text::LOTTERY_ZONE).date_naive()
}

async fn balance(state: &instant::InstantState, account: uuid::Uuid) -> i64 {
    ledger_get(state, &format!("/v1/accounts/{account}")).await["balance"]["posted"].as_i64().unwrap()
}

#[tokio::test]
async fn a_games_prizes_pay_to_the_last_claim_day_then_expire_once() {
    let (router, state, tokens) = service().await;
    let tickets = printed(&state, 283, 61).await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let shop = till(&tokens, "till-1", "shop-ex-a");
    let winners: Vec<_> = tickets.iter().filter(|t| t.prize_row == Some(0)).take(3).collect();
    for t in &winners {
        post(
            &router,
            &format!("/v1/instant/packs/283/{}/ship", t.book),
            &operator,
            json!({"retailer_id": "shop-ex-a"}),
        )
        .await;
        post(&router, &format!("/v1/instant/packs/283/{}/activate", t.book), &shop, json!(null)).await;
    }
    let end = "/v1/instant/games/283/sales-end";
    let today = lottery_today();
    let period = ClaimPeriod::default();

    // Sales ended 180 days ago: the last claim day is today (or, today being a weekend, the
    // Monday after): the prize is paid.
    let ended = today.checked_sub_days(Days::new(180)).unwrap();
    let set = request(&router, "PUT", end, &operator, None, &json!({"ends_on": ended})).await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    assert_eq!(set.body["last_claim_day"], json!(period.last_day(ended)));
    assert!(period.last_day(ended) >= today);
    assert_eq!(
        request(&router, "PUT", end, &shop, None, &json!({"ends_on": ended})).await.status,
        StatusCode::FORBIDDEN
    );
    let paid = request(&router, "POST", "/v1/instant/claims", &shop, Some("ex-1"), &scan(winners[0])).await;
    assert_eq!(paid.status, StatusCode::CREATED, "{}", paid.body);

    // A payment reserved with its money not yet moved (a ledger that did not answer): the
    // expiry waits for it.
    let liability = instant::liability_account(283);
    let before = balance(&state, liability).await;

    // The end of sales moved back a month: the claim period is over.
    let long_ago = today.checked_sub_days(Days::new(215)).unwrap();
    let moved = request(&router, "PUT", end, &operator, None, &json!({"ends_on": long_ago})).await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.body);
    let scanned = post(&router, "/v1/instant/validations", &shop, scan(winners[1])).await;
    assert_eq!((scanned.status, scanned.code()), (StatusCode::CONFLICT, "prize_expired"), "{}", scanned.body);
    let claimed =
        request(&router, "POST", "/v1/instant/claims", &shop, Some("ex-2"), &scan(winners[1])).await;
    assert_eq!((claimed.status, claimed.code()), (StatusCode::CONFLICT, "prize_expired"), "{}", claimed.body);
    // The ticket paid before still answers as paid, not expired.
    let again = post(&router, "/v1/instant/validations", &shop, scan(winners[0])).await;
    assert_eq!(again.code(), "already_paid", "{}", again.body);

    // A payment of the game in flight holds the expiry back.
    let place = (i32::try_from(winners[2].book).unwrap(), i32::try_from(winners[2].ticket).unwrap());
    sqlx::query("UPDATE tickets SET payment = 'pending', paid_at = now(), payment_id = gen_random_uuid() WHERE game = 283 AND book = $1 AND ticket = $2")
        .bind(place.0)
        .bind(place.1)
        .execute(&state.pool)
        .await
        .unwrap();
    assert_eq!(instant::saga::sales::expire_due(&state).await.unwrap(), 0);
    assert_eq!(balance(&state, liability).await, before);
    sqlx::query("UPDATE tickets SET payment = NULL, paid_at = NULL, payment_id = NULL WHERE game = 283 AND book = $1 AND ticket = $2")
        .bind(place.0)
        .bind(place.1)
        .execute(&state.pool)
        .await
        .unwrap();

    // Then it moves what the liability holds, once.
    let unclaimed = state.accounts.unclaimed;
    let (one, two) =
        tokio::join!(instant::saga::sales::expire_due(&state), instant::saga::sales::expire_due(&state));
    assert_eq!(one.unwrap() + two.unwrap(), 1, "one expiry");
    assert_eq!(instant::saga::sales::expire_due(&state).await.unwrap(), 0);
    assert_eq!(balance(&state, liability).await, 0);
    assert_eq!(balance(&state, unclaimed).await, before);
    let listed = get(&router, "/v1/instant/sales-ends", &operator).await;
    assert_eq!(listed.body[0]["expired_cents"], json!(before), "{}", listed.body);
    // Its end of sales now stands.
    let late = request(&router, "PUT", end, &operator, None, &json!({"ends_on": today})).await;
    assert_eq!((late.status, late.code()), (StatusCode::CONFLICT, "prize_expired"));
    let trial = ledger_get(&state, "/v1/reports/trial-balance").await;
    assert_eq!(trial["balanced"], json!(true));
}
