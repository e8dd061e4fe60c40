//! Powerball claims as stored: a ticket's prizes in one drawing reserved for one payee, paid
//! and confirmed once (the rows of `ledger_api::payout`'s saga), and unclaimed prizes expired.

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::grand_prize::Election;
use platform::AppError;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

/// What a claim records.
#[derive(Debug, Clone)]
pub struct Claim {
    pub id: Uuid,
    pub serial: i64,
    pub draw_date: NaiveDate,
    /// The retailer whose terminal pays it, or [`OFFICE`].
    pub payee: String,
    pub prize_cents: i64,
    pub paid_cents: i64,
    pub withheld_cents: i64,
    pub net_cents: i64,
    pub w2g: bool,
    pub election: Option<Election>,
    pub released_cents: i64,
    pub claimant_name: Option<String>,
    pub tin_last4: Option<String>,
    pub paid_by: String,
    /// The request that made it: who sent it and its Idempotency-Key (`<paid_by>/<key>`).
    pub request_key: Option<String>,
    pub state: String,
    pub created_at: DateTime<Utc>,
    /// The grand prize shares among the prizes claimed (read with the claim).
    pub grand_cents: Option<i64>,
}

/// How the office is recorded as a claim's payee.
pub const OFFICE: &str = "office";

const COLUMNS: &str =
    "id, serial, draw_date, payee, prize_cents, paid_cents, withheld_cents, net_cents, w2g, election,
    released_cents, claimant_name, tin_last4, paid_by, request_key, state, created_at,
    (SELECT sum(w.prize_cents)::bigint FROM pb_winners w
      WHERE w.serial = c.serial AND w.draw_date = c.draw_date AND w.tier = 'grand_prize') AS grand_cents";

fn claim_of(row: &PgRow) -> Result<Claim, AppError> {
    let election = match row.try_get::<Option<&str>, _>("election")? {
        Some("cash") => Some(Election::Cash),
        Some(_) => Some(Election::Annuity),
        None => None,
    };
    Ok(Claim {
        id: row.try_get("id")?,
        serial: row.try_get("serial")?,
        draw_date: row.try_get("draw_date")?,
        payee: row.try_get("payee")?,
        prize_cents: row.try_get("prize_cents")?,
        paid_cents: row.try_get("paid_cents")?,
        withheld_cents: row.try_get("withheld_cents")?,
        net_cents: row.try_get("net_cents")?,
        w2g: row.try_get("w2g")?,
        election,
        released_cents: row.try_get("released_cents")?,
        claimant_name: row.try_get("claimant_name")?,
        tin_last4: row.try_get("tin_last4")?,
        paid_by: row.try_get("paid_by")?,
        request_key: row.try_get("request_key")?,
        state: row.try_get("state")?,
        created_at: row.try_get("created_at")?,
        grand_cents: row.try_get("grand_cents")?,
    })
}

/// One winning board of a ticket in a drawing.
#[derive(Debug, Clone)]
pub struct WinningBoard {
    pub board: i16,
    pub tier: String,
    pub power_play: bool,
    pub prize_cents: i64,
    pub paid: bool,
    pub expired: bool,
}

/// Ticket `serial`'s winning boards in drawing `date`.
pub async fn winning_boards(
    pool: &PgPool,
    serial: i64,
    date: NaiveDate,
) -> Result<Vec<WinningBoard>, AppError> {
    sqlx::query(
        "SELECT board, tier, power_play, prize_cents, paid_at IS NOT NULL AS paid, expired FROM pb_winners
          WHERE serial = $1 AND draw_date = $2 ORDER BY board",
    )
    .bind(serial)
    .bind(date)
    .fetch_all(pool)
    .await?
    .iter()
    .map(|row| {
        Ok(WinningBoard {
            board: row.try_get("board")?,
            tier: row.try_get("tier")?,
            power_play: row.try_get("power_play")?,
            prize_cents: row.try_get("prize_cents")?,
            paid: row.try_get("paid")?,
            expired: row.try_get("expired")?,
        })
    })
    .collect()
}

/// The earliest certified drawing in which ticket `serial` has a prize not paid nor expired.
pub async fn earliest_unpaid(pool: &PgPool, serial: i64) -> Result<Option<NaiveDate>, AppError> {
    Ok(sqlx::query_scalar(
        "SELECT min(w.draw_date) FROM pb_winners w JOIN pb_draws d ON d.draw_date = w.draw_date
          WHERE w.serial = $1 AND w.paid_at IS NULL AND NOT w.expired AND d.state = 'certified'",
    )
    .bind(serial)
    .fetch_one(pool)
    .await?)
}

/// Reserves the ticket's prizes in the drawing for `claim.payee` (the claim `pending`, every
/// unpaid winning board marked paid); false when they were paid, reserved or expired already.
/// The claim's id is derived from its serial and drawing, so two tills claiming at once collide
/// on both unique keys: the insert gives way on either (naming only `(serial, draw_date)` let a
/// collision on the primary key surface as a 500, seen with eight tills on a slow machine).
pub async fn reserve(conn: &mut PgConnection, claim: &Claim) -> Result<bool, AppError> {
    let inserted = sqlx::query(
        "INSERT INTO pb_claims (id, serial, draw_date, payee, prize_cents, paid_cents, withheld_cents, net_cents, w2g,
                                election, released_cents, claimant_name, tin_last4, paid_by, request_key, state)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'pending')
         ON CONFLICT DO NOTHING",
    )
    .bind(claim.id)
    .bind(claim.serial)
    .bind(claim.draw_date)
    .bind(&claim.payee)
    .bind(claim.prize_cents)
    .bind(claim.paid_cents)
    .bind(claim.withheld_cents)
    .bind(claim.net_cents)
    .bind(claim.w2g)
    .bind(claim.election.map(|e| match e {
        Election::Annuity => "annuity",
        Election::Cash => "cash",
    }))
    .bind(claim.released_cents)
    .bind(claim.claimant_name.as_deref())
    .bind(claim.tin_last4.as_deref())
    .bind(&claim.paid_by)
    .bind(claim.request_key.as_deref())
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(false);
    }
    // The boards as priced when the claim was made; if any was paid or expired meanwhile, the
    // caller rolls back.
    let marked: Option<i64> = sqlx::query_scalar(
        "WITH paid AS (UPDATE pb_winners SET paid_at = $3 WHERE serial = $1 AND draw_date = $2 AND paid_at IS NULL
                       AND NOT expired RETURNING prize_cents)
         SELECT sum(prize_cents)::bigint FROM paid",
    )
    .bind(claim.serial)
    .bind(claim.draw_date)
    .bind(claim.created_at)
    .fetch_one(&mut *conn)
    .await?;
    Ok(marked == Some(claim.prize_cents))
}

/// The payee of the ticket's claim in the drawing while it is not confirmed.
pub async fn unconfirmed_payee(
    conn: &mut PgConnection,
    serial: i64,
    date: NaiveDate,
) -> Result<Option<String>, AppError> {
    Ok(sqlx::query_scalar(
        "SELECT payee FROM pb_claims WHERE serial = $1 AND draw_date = $2 AND state IN ('pending', 'done')",
    )
    .bind(serial)
    .bind(date)
    .fetch_optional(&mut *conn)
    .await?)
}

pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<Claim>, AppError> {
    sqlx::query(&format!("SELECT {COLUMNS} FROM pb_claims c WHERE id = $1"))
        .bind(id)
        .fetch_optional(pool)
        .await?
        .as_ref()
        .map(claim_of)
        .transpose()
}

/// Claim `id` while its money has not moved.
pub async fn pending(pool: &PgPool, id: Uuid) -> Result<Option<Claim>, AppError> {
    Ok(get(pool, id).await?.filter(|c| c.state == "pending"))
}

/// Pending → done: the ledger moved the money.
pub async fn mark_done(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    sqlx::query("UPDATE pb_claims SET state = 'done' WHERE id = $1 AND state = 'pending'")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Done → confirmed; true for the one request that does it.
pub async fn confirm(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query("UPDATE pb_claims SET state = 'confirmed' WHERE id = $1 AND state = 'done'")
        .bind(id)
        .execute(pool)
        .await?
        .rows_affected()
        == 1)
}

/// Undoes pending claim `id`: its boards unpaid again, the claim gone, in one transaction.
pub async fn release(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let released: Option<(i64, NaiveDate)> = sqlx::query_as(
        "DELETE FROM pb_claims WHERE id = $1 AND state = 'pending' RETURNING serial, draw_date",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((serial, date)) = released {
        sqlx::query("UPDATE pb_winners SET paid_at = NULL WHERE serial = $1 AND draw_date = $2")
            .bind(serial)
            .bind(date)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Claims pending for longer than `$1` seconds, for the recovery pass.
pub const STUCK: &str =
    "SELECT id FROM pb_claims WHERE state = 'pending' AND created_at < now() - make_interval(secs => $1)
    ORDER BY created_at LIMIT 500";

/// Certified drawings held before `before` whose unclaimed prizes have not been expired.
pub async fn expirable(pool: &PgPool, before: DateTime<Utc>) -> Result<Vec<NaiveDate>, AppError> {
    Ok(sqlx::query_scalar(
        "SELECT draw_date FROM pb_draws WHERE state = 'certified' AND online_paid_at IS NOT NULL AND expired_at IS NULL
            AND draw_at < $1 ORDER BY draw_date",
    )
    .bind(before)
    .fetch_all(pool)
    .await?)
}

/// Marks drawing `date`'s unpaid prizes expired (once) and returns their total, as recorded.
pub async fn expire(pool: &PgPool, date: NaiveDate) -> Result<i64, AppError> {
    let mut tx = pool.begin().await?;
    let recorded: Option<i64> =
        sqlx::query_scalar("SELECT expired_cents FROM pb_draws WHERE draw_date = $1 FOR UPDATE")
            .bind(date)
            .fetch_one(&mut *tx)
            .await?;
    if let Some(cents) = recorded {
        return Ok(cents);
    }
    let cents: i64 = sqlx::query_scalar(
        "WITH gone AS (UPDATE pb_winners SET expired = true WHERE draw_date = $1 AND paid_at IS NULL AND NOT expired
                       RETURNING prize_cents)
         SELECT coalesce(sum(prize_cents), 0)::bigint FROM gone",
    )
    .bind(date)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("UPDATE pb_draws SET expired_cents = $2, updated_at = now() WHERE draw_date = $1")
        .bind(date)
        .bind(cents)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(cents)
}

/// Records that drawing `date`'s expired prizes have moved to the unclaimed account, at `at`.
pub async fn mark_expired(pool: &PgPool, date: NaiveDate, at: DateTime<Utc>) -> Result<(), AppError> {
    sqlx::query("UPDATE pb_draws SET expired_at = $2, updated_at = now() WHERE draw_date = $1")
        .bind(date)
        .bind(at)
        .execute(pool)
        .await?;
    Ok(())
}
