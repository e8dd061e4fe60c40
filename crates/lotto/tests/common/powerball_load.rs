//! Powerball in the failover load: slips sold at a till and online, each with its idempotency
//! key and sent until answered, across a drawing's close (the draw-games replicas run on a clock
//! shifted to meet it, `LOTTO_CLOCK_OFFSET_SECONDS`); then what must hold of the close.

use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::schedule::Timetable;
use platform::auth::{Role, TokenKeys};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::mixed::Client;

/// The drawing whose sales close during the load, and the clock shift that brings it.
#[derive(Debug, Clone, Copy)]
pub struct Close {
    pub date: NaiveDate,
    pub sales_close: DateTime<Utc>,
    /// Seconds the draws' clock runs ahead (`LOTTO_CLOCK_OFFSET_SECONDS`).
    pub offset: i64,
}

impl Close {
    /// A drawing a day or more ahead whose sales close `after` from now on the shifted clock.
    pub fn in_(after: Duration) -> Close {
        let drawing = Timetable::default().next_open(Utc::now() + chrono::Duration::days(1));
        let at = Utc::now() + chrono::Duration::from_std(after).unwrap();
        Close {
            date: drawing.date,
            sales_close: drawing.sales_close,
            offset: (drawing.sales_close - at).num_seconds(),
        }
    }
}

/// What the sales did: tickets sold into the closing drawing, sold into a later one (a sale
/// begun before the close and finished after it), and refused because sales had closed.
pub type Sold = (usize, usize, usize);

/// The operator advertises the drawing's grand prize (a drawing without one does not close),
/// then a till and `player` buy slips in turn until the tally says the load is over.
pub async fn start(client: &Client, keys: &TokenKeys, player: &str, close: Close) -> JoinHandle<Sold> {
    let operator = keys.issue("ops-failover", Role::Operator, None, Duration::from_secs(7200)).unwrap();
    let prize = json!({"advertised_cents": 2_000_000_000i64, "cash_value_cents": 950_000_000i64});
    let path = format!("/v1/powerball/draws/{}/grand-prize", close.date);
    let (status, body) =
        client.until_answered(reqwest::Method::PUT, &path, &operator, None, Some(&prize)).await;
    assert_eq!(status, 200, "{body}");
    let till = keys
        .issue_for("till-chaos", Role::Retailer, None, Some("shop-chaos"), Duration::from_secs(7200))
        .unwrap();
    let (client, player) = (client.clone(), player.to_owned());
    tokio::spawn(async move {
        let (mut before, mut after, mut refused) = (0, 0, 0);
        for n in 0.. {
            if client.tally.done.load(Ordering::Relaxed) {
                break;
            }
            let slip = json!({"quick_picks": 2, "power_play": n % 3 == 0});
            let (path, token) = if n % 2 == 0 {
                ("/v1/powerball/retail/tickets", &till)
            } else {
                ("/v1/powerball/tickets", &player)
            };
            let key = format!("pb-{n}");
            let (status, ticket) =
                client.until_answered(reqwest::Method::POST, path, token, Some(&key), Some(&slip)).await;
            // Sales stop at the close until they resume for the next drawing (K.A.R. 111-5-24(h)).
            if status == 409 && ticket["code"] == "sales_closed" {
                refused += 1;
                tokio::time::sleep(Duration::from_millis(250)).await;
                continue;
            }
            assert!(matches!(status, 200 | 201) && ticket["state"] == "sold", "{path}: {status} {ticket}");
            client.tally.acknowledge("powerball ticket", &ticket["serial"]);
            if ticket["drawings"][0]["draw_date"] == Value::String(close.date.to_string()) {
                before += 1;
            } else {
                after += 1;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        (before, after, refused)
    })
}

/// After the load: the drawing closed once, its wager set frozen and exported; every play in it
/// is of a ticket sold before its close, every ticket sold after it is in a later drawing, every
/// ticket was charged once for its cost. Returns a line of what was checked.
pub async fn checked(url: &str, close: Close, sold: Sold) -> String {
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    let scalar = |sql: &'static str| {
        let pool = pool.clone();
        async move { sqlx::query_scalar::<_, i64>(sql).bind(close.date).fetch_one(&pool).await.unwrap() }
    };
    let mut exported = false;
    for _ in 0..600 {
        exported =
            scalar("SELECT count(*) FROM draws.pb_draws WHERE draw_date = $1 AND export_sha256 IS NOT NULL")
                .await
                == 1;
        if exported {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(exported, "the drawing of {} was never closed and exported", close.date);
    let frozen = scalar(
        "SELECT count(*) FROM draws.pb_draws d WHERE d.draw_date = $1
            AND d.plays = (SELECT count(*) FROM draws.pb_plays p WHERE p.draw_date = $1)
            AND d.tickets = (SELECT count(DISTINCT serial) FROM draws.pb_plays p WHERE p.draw_date = $1)",
    )
    .await;
    assert_eq!(frozen, 1, "the drawing's counts at its close are not its plays");
    let late = scalar(
        "SELECT count(*) FROM draws.pb_tickets t JOIN draws.pb_draws d ON d.draw_date = $1
          WHERE t.created_at >= d.sales_close_at
            AND (t.state = 'sold' AND t.created_at < d.sales_resume_at
                 OR EXISTS (SELECT 1 FROM draws.pb_plays p WHERE p.draw_date = $1 AND p.serial = t.serial))",
    )
    .await;
    assert_eq!(late, 0, "tickets sold while sales were closed, or into the closed drawing");
    let closes = scalar(
        "SELECT count(*) FROM draws.audit_log WHERE kind = 'powerball.close' AND record::jsonb->>'draw_date' = $1::text",
    )
    .await;
    let wrong: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM draws.pb_tickets t
          WHERE ((SELECT count(*) FROM ledger.transfers x
                   WHERE x.metadata->>'game' = 'powerball' AND x.metadata->>'ticket' = t.id::text
                     AND x.amount = t.cost_cents) <> CASE WHEN t.state = 'sold' THEN 1 ELSE 0 END
              OR (t.state = 'sold' AND (SELECT count(*) FROM draws.pb_plays p WHERE p.serial = t.serial)
                   <> cardinality(t.powerballs) * t.draws))",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(wrong, 0, "Powerball tickets charged or placed other than once");
    assert_eq!(closes, 1, "the drawing's close was recorded {closes} times");
    pool.close().await;
    format!(
        "Powerball: {} tickets sold into the drawing of {} before its close, {} begun before it and sold into a \
         later one, {} refused after it as sales had closed; closed and exported once, every ticket charged and \
         placed once",
        sold.0, close.date, sold.1, sold.2
    )
}
