//! A Powerball drawing's settlement as stored: its winners found by one set-based statement,
//! the grand prize shared among them, the prize table kept, and the certification (or dispute)
//! that ends it; checked against the schema at build time, but for the statements that find
//! the winners (said beside them).

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::Tier;
use domain::powerball::drawing::{Results, Tally, TierResult};
use platform::AppError;
use sqlx::{PgConnection, PgPool};

use super::drawings::lock;
use crate::store::PowerballDrawState;

/// `drawn` → `settled`, in the caller's transaction: every winning play found by one set-based statement
/// (a play's matches counted in SQL and joined to the tier table `domain` gives), the grand
/// prize shared among its winners, and the prize table stored. Returns the prize table, or none
/// when the drawing was not `drawn` (settled already).
pub async fn settle(
    tx: &mut PgConnection,
    date: NaiveDate,
    at: DateTime<Utc>,
) -> Result<Option<Vec<TierResult>>, AppError> {
    let Some(drawing) = lock(tx, date).await?.filter(|d| d.state == PowerballDrawState::Drawn) else {
        return Ok(None);
    };
    let results = drawing.results.ok_or_else(|| AppError::internal("a drawn drawing without results"))?;
    let pool_cents = drawing.advertised_cents.unwrap_or(0);
    insert_winners(tx, date, &results, pool_cents).await?;
    let mut tally = Tally::default();
    for row in sqlx::query!(
        r#"SELECT tier, power_play, count(*) AS "winners!" FROM pb_winners WHERE draw_date = $1 GROUP BY 1, 2"#,
        date
    )
    .fetch_all(&mut *tx)
    .await?
    {
        let winners = u64::try_from(row.winners).unwrap_or(0);
        tally.add_winners(tier_named(&row.tier)?, row.power_play, winners);
    }
    let table = tally.prize_table(&results, pool_cents);
    if let Some(grand) = table.iter().find(|l| l.tier == Tier::GrandPrize && l.winners > 0) {
        sqlx::query!(
            "UPDATE pb_winners SET prize_cents = $2 WHERE draw_date = $1 AND tier = 'grand_prize'",
            date,
            grand.prize_cents.max(1)
        )
        .execute(&mut *tx)
        .await?;
    }
    for line in &table {
        sqlx::query!(
            "INSERT INTO pb_prize_tables (draw_date, tier, power_play, winners, prize_cents, total_cents)
             VALUES ($1, $2, $3, $4, $5, $6)",
            date,
            tier_name(line.tier),
            line.power_play,
            i64::try_from(line.winners).unwrap_or(i64::MAX),
            line.prize_cents,
            line.total_cents
        )
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query!(
        "UPDATE pb_draws SET state = 'settled', settled_at = $2, updated_at = now() WHERE draw_date = $1",
        date,
        at
    )
    .execute(&mut *tx)
    .await?;
    Ok(Some(table))
}

/// Every winning play of drawing `date`, found by one statement: a play's matches counted in SQL
/// and joined to the tier table (matches → tier and fixed prize; the grand prize's rows get the
/// whole pool for now, and their share once its winners are counted).
///
/// Found first into a temporary table, then inserted: Postgres reads the plays with all its
/// workers for a `CREATE TABLE AS` but with one for an `INSERT ... SELECT` (and a settlement is
/// one transaction, so nothing was inserted before: no `ON CONFLICT`, whose speculative insertion
/// cost more than the plain one). A 10-million-play drawing's 402,198 winners: 7.5 s in one
/// statement, 1.9 s found and 2.7 s inserted this way (issue 52). The found table's text is made
/// from typed values (the date, the drawn numbers, the tier table `domain` gives), as the
/// statement making a partition is: a utility statement takes no parameters.
async fn insert_winners(
    tx: &mut PgConnection,
    date: NaiveDate,
    results: &Results,
    pool_cents: i64,
) -> Result<(), AppError> {
    let mut tiers = Vec::new();
    for tier in Tier::ALL {
        for power_play in [false, true] {
            let (whites, pb) = tier.matches();
            let prize = domain::powerball::drawing::play_prize_cents(tier, power_play, results.multiplier, pool_cents);
            tiers.push(format!("({whites}, {pb}, '{}', {power_play}, {})", tier_name(tier), prize.max(1)));
        }
    }
    let drawn = results.numbers.whites.map(|n| n.to_string()).join(",");
    let any = |column: &str| format!("({column} = ANY('{{{drawn}}}'::smallint[]))::int");
    let find = format!(
        "CREATE TEMP TABLE pb_found ON COMMIT DROP AS
         SELECT p.serial, p.board, t.tier, p.power_play, p.online, t.prize
           FROM (SELECT serial, board, power_play, online, powerball = {pb} AS pb, {} + {} + {} + {} + {} AS whites
                   FROM pb_plays WHERE draw_date = '{date}') p
           JOIN (VALUES {}) AS t(whites, pb, tier, power_play, prize)
             ON t.whites = p.whites AND t.pb = p.pb AND t.power_play = p.power_play
          WHERE p.pb OR p.whites >= 3",
        any("w1"),
        any("w2"),
        any("w3"),
        any("w4"),
        any("w5"),
        tiers.join(", "),
        pb = results.numbers.powerball,
        date = date.format("%Y-%m-%d"),
    );
    sqlx::query(&find).execute(&mut *tx).await?;
    // The temporary table is this transaction's: a string, which the macros cannot check.
    sqlx::query(
        "INSERT INTO pb_winners (draw_date, serial, board, tier, power_play, online, prize_cents)
         SELECT $1, serial, board, tier, power_play, online, prize FROM pb_found",
    )
    .bind(date)
    .execute(&mut *tx)
    .await?;
    // Statistics that count the new winners before the payer reads them a slice at a time: on
    // the figures of before (autovacuum had not come yet), each slice's read and its marking
    // walked every winner of the drawing (140-150 ms each, 35 ms with these; issue 52). Sampled
    // within this transaction, which sees its own rows.
    sqlx::query("ANALYZE pb_winners").execute(&mut *tx).await?;
    Ok(())
}

/// A settled drawing's prize table, in the chart's order.
pub async fn prize_table(pool: &PgPool, date: NaiveDate) -> Result<Vec<TierResult>, AppError> {
    let mut table = sqlx::query!(
        "SELECT tier, power_play, winners, prize_cents, total_cents FROM pb_prize_tables WHERE draw_date = $1",
        date
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|row| {
        Ok(TierResult {
            tier: tier_named(&row.tier)?,
            power_play: row.power_play,
            winners: u64::try_from(row.winners).unwrap_or(0),
            prize_cents: row.prize_cents,
            total_cents: row.total_cents,
        })
    })
    .collect::<Result<Vec<_>, AppError>>()?;
    table.sort_by_key(|l| (Tier::ALL.iter().position(|&t| t == l.tier), l.power_play));
    Ok(table)
}

/// `settled` → `certified` (or `disputed`, with what disagreed), in the caller's transaction;
/// false when the drawing was not `settled`.
pub async fn finish_verification(
    conn: &mut PgConnection,
    date: NaiveDate,
    dispute: Option<&str>,
    at: DateTime<Utc>,
) -> Result<bool, AppError> {
    let state = if dispute.is_some() { PowerballDrawState::Disputed } else { PowerballDrawState::Certified };
    Ok(sqlx::query!(
        "UPDATE pb_draws SET state = $2, dispute = $3, certified_at = CASE WHEN $3::text IS NULL THEN $4::timestamptz END,
                updated_at = now()
          WHERE draw_date = $1 AND state = 'settled'",
        date,
        state as PowerballDrawState,
        dispute,
        at
    )
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1)
}

/// A tier's stored name (its serde name).
pub fn tier_name(tier: Tier) -> String {
    serde_json::to_value(tier).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn tier_named(name: &str) -> Result<Tier, AppError> {
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .map_err(|_| AppError::internal(format!("unknown tier {name} stored")))
}
