//! Powerball claims as stored: a ticket's prizes in one drawing reserved for one payee, paid
//! and confirmed once (the rows of `ledger_api::payout`'s saga), and unclaimed prizes expired;
//! checked against the schema at build time.

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::grand_prize::Election;
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::store::ClaimState;

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
    pub state: ClaimState,
    pub created_at: DateTime<Utc>,
    /// The grand prize shares among the prizes claimed (read with the claim).
    pub grand_cents: Option<i64>,
}

pub use super::OFFICE;

/// A claim's columns as stored: the election as text.
struct ClaimRow {
    id: Uuid,
    serial: i64,
    draw_date: NaiveDate,
    payee: String,
    prize_cents: i64,
    paid_cents: i64,
    withheld_cents: i64,
    net_cents: i64,
    w2g: bool,
    election: Option<String>,
    released_cents: i64,
    claimant_name: Option<String>,
    tin_last4: Option<String>,
    paid_by: String,
    request_key: Option<String>,
    state: ClaimState,
    created_at: DateTime<Utc>,
    grand_cents: Option<i64>,
}

impl From<ClaimRow> for Claim {
    fn from(row: ClaimRow) -> Self {
        let election = match row.election.as_deref() {
            Some("cash") => Some(Election::Cash),
            Some(_) => Some(Election::Annuity),
            None => None,
        };
        Claim {
            id: row.id,
            serial: row.serial,
            draw_date: row.draw_date,
            payee: row.payee,
            prize_cents: row.prize_cents,
            paid_cents: row.paid_cents,
            withheld_cents: row.withheld_cents,
            net_cents: row.net_cents,
            w2g: row.w2g,
            election,
            released_cents: row.released_cents,
            claimant_name: row.claimant_name,
            tin_last4: row.tin_last4,
            paid_by: row.paid_by,
            request_key: row.request_key,
            state: row.state,
            created_at: row.created_at,
            grand_cents: row.grand_cents,
        }
    }
}

/// One winning board of a ticket in a drawing.
#[derive(Debug, Clone)]
pub struct WinningBoard {
    pub tier: String,
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
    Ok(sqlx::query_as!(
        WinningBoard,
        r#"SELECT tier, prize_cents, paid_at IS NOT NULL AS "paid!", expired FROM pb_winners
            WHERE serial = $1 AND draw_date = $2 ORDER BY board"#,
        serial,
        date
    )
    .fetch_all(pool)
    .await?)
}

/// The earliest certified drawing in which ticket `serial` has a prize not paid nor expired.
pub async fn earliest_unpaid(pool: &PgPool, serial: i64) -> Result<Option<NaiveDate>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT min(w.draw_date) FROM pb_winners w JOIN pb_draws d ON d.draw_date = w.draw_date
          WHERE w.serial = $1 AND w.paid_at IS NULL AND NOT w.expired AND d.state = 'certified'",
        serial
    )
    .fetch_one(pool)
    .await?)
}

/// Reserves the ticket's prizes in the drawing for `claim.payee` (the claim `pending`, every
/// unpaid winning board marked paid); false when they were paid, reserved or expired already.
/// The claim's id is derived from its serial and drawing, so two tills claiming at once collide
/// on both unique keys: the insert gives way on either (naming only `(serial, draw_date)` let a
/// collision on the primary key surface as a 500, seen with eight tills on a slow machine).
pub async fn reserve(conn: &mut PgConnection, claim: &Claim) -> Result<bool, AppError> {
    let election = claim.election.map(|e| match e {
        Election::Annuity => "annuity",
        Election::Cash => "cash",
    });
    let inserted = sqlx::query!(
        "INSERT INTO pb_claims (id, serial, draw_date, payee, prize_cents, paid_cents, withheld_cents, net_cents, w2g,
                                election, released_cents, claimant_name, tin_last4, paid_by, request_key, state, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'pending', $16)
         ON CONFLICT DO NOTHING",
        claim.id,
        claim.serial,
        claim.draw_date,
        &claim.payee,
        claim.prize_cents,
        claim.paid_cents,
        claim.withheld_cents,
        claim.net_cents,
        claim.w2g,
        election,
        claim.released_cents,
        claim.claimant_name.as_deref(),
        claim.tin_last4.as_deref(),
        &claim.paid_by,
        claim.request_key.as_deref(),
        claim.created_at
    )
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(false);
    }
    // The boards as priced when the claim was made; if any was paid or expired meanwhile, the
    // caller rolls back.
    let marked = sqlx::query_scalar!(
        "WITH paid AS (UPDATE pb_winners SET paid_at = $3 WHERE serial = $1 AND draw_date = $2 AND paid_at IS NULL
                       AND NOT expired RETURNING prize_cents)
         SELECT sum(prize_cents)::bigint FROM paid",
        claim.serial,
        claim.draw_date,
        claim.created_at
    )
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
    Ok(sqlx::query_scalar!(
        "SELECT payee FROM pb_claims WHERE serial = $1 AND draw_date = $2 AND state IN ('pending', 'done')",
        serial,
        date
    )
    .fetch_optional(&mut *conn)
    .await?)
}

/// The claim the request `request_key` (a sender and its Idempotency-Key) made, if any: its id,
/// ticket and drawing.
pub async fn by_request_key(pool: &PgPool, request_key: &str) -> Result<Option<(Uuid, i64, NaiveDate)>, AppError> {
    Ok(sqlx::query!("SELECT id, serial, draw_date FROM pb_claims WHERE request_key = $1 LIMIT 1", request_key)
        .fetch_optional(pool)
        .await?
        .map(|r| (r.id, r.serial, r.draw_date)))
}

/// `retailer`'s Powerball in `[since, until)`: tickets its terminals sold and their cost, prizes
/// its terminals paid (confirmed) and their amount.
pub async fn retail_day(
    pool: &PgPool,
    retailer: &str,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<(i64, i64, i64, i64), AppError> {
    let row = sqlx::query!(
        r#"SELECT
             (SELECT count(*) FROM pb_tickets WHERE channel = 'terminal' AND seller = $1 AND state = 'sold'
                 AND created_at >= $2 AND created_at < $3) AS "sold!",
             (SELECT coalesce(sum(cost_cents), 0)::bigint FROM pb_tickets WHERE channel = 'terminal' AND seller = $1
                 AND state = 'sold' AND created_at >= $2 AND created_at < $3) AS "sales!",
             (SELECT count(*) FROM pb_claims WHERE payee = $1 AND state = 'confirmed'
                 AND created_at >= $2 AND created_at < $3) AS "paid!",
             (SELECT coalesce(sum(paid_cents), 0)::bigint FROM pb_claims WHERE payee = $1 AND state = 'confirmed'
                 AND created_at >= $2 AND created_at < $3) AS "paid_cents!""#,
        retailer,
        since,
        until
    )
    .fetch_one(pool)
    .await?;
    Ok((row.sold, row.sales, row.paid, row.paid_cents))
}

/// Claim `id`, with the grand prize shares among its prizes.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<Claim>, AppError> {
    Ok(sqlx::query_as!(
        ClaimRow,
        r#"SELECT id, serial, draw_date, payee, prize_cents, paid_cents, withheld_cents, net_cents, w2g, election,
                  released_cents, claimant_name, tin_last4, paid_by, request_key, state AS "state: ClaimState",
                  created_at,
                  (SELECT sum(w.prize_cents)::bigint FROM pb_winners w
                    WHERE w.serial = c.serial AND w.draw_date = c.draw_date AND w.tier = 'grand_prize') AS grand_cents
             FROM pb_claims c WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .map(Claim::from))
}

/// Prizes paid at the office (their money moved), newest first: at most `limit`, only those with a
/// W-2G record when `w2g` says so, and only those of `buyer`'s online tickets when one is named.
pub async fn paid_at_office(
    pool: &PgPool,
    buyer: Option<&str>,
    w2g: Option<bool>,
    limit: i64,
) -> Result<Vec<Claim>, AppError> {
    Ok(sqlx::query_as!(
        ClaimRow,
        r#"SELECT id, serial, draw_date, payee, prize_cents, paid_cents, withheld_cents, net_cents, w2g, election,
                  released_cents, claimant_name, tin_last4, paid_by, request_key, state AS "state: ClaimState",
                  created_at,
                  (SELECT sum(w.prize_cents)::bigint FROM pb_winners w
                    WHERE w.serial = c.serial AND w.draw_date = c.draw_date AND w.tier = 'grand_prize') AS grand_cents
             FROM pb_claims c
            WHERE payee = 'office' AND state <> 'pending'
              AND ($1::text IS NULL OR EXISTS (SELECT 1 FROM pb_tickets t
                                                WHERE t.serial = c.serial AND t.channel = 'online' AND t.seller = $1))
              AND ($2::boolean IS NULL OR w2g = $2)
            ORDER BY created_at DESC, id DESC LIMIT $3"#,
        buyer,
        w2g,
        limit
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(Claim::from)
    .collect())
}

/// Claim `id` while its money has not moved.
pub async fn pending(pool: &PgPool, id: Uuid) -> Result<Option<Claim>, AppError> {
    Ok(get(pool, id).await?.filter(|c| c.state == ClaimState::Pending))
}

/// Pending → done: the ledger moved the money. With it, an annuity's first payment is paid and
/// the prize paid is recorded in the significant-events log.
pub async fn mark_done(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let done = sqlx::query!(
        "UPDATE pb_claims SET state = 'done' WHERE id = $1 AND state = 'pending'
         RETURNING serial, draw_date, payee, prize_cents, paid_cents, withheld_cents, election",
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(done) = done else { return Ok(()) };
    super::annuities::first_paid(&mut tx, id).await?;
    #[derive(serde::Serialize)]
    struct Paid<'a> {
        claim: Uuid,
        serial: i64,
        prize_cents: i64,
        paid_cents: i64,
        withheld_cents: i64,
        election: Option<&'a str>,
        /// A retailer's id (its counter), or `office`.
        paid_to: &'a str,
    }
    let paid = Paid {
        claim: id,
        serial: done.serial,
        prize_cents: done.prize_cents,
        paid_cents: done.paid_cents,
        withheld_cents: done.withheld_cents,
        election: done.election.as_deref(),
        paid_to: &done.payee,
    };
    let mut event = Event::new(Kind::PrizePaid, &paid)?.drawing("powerball", done.draw_date);
    if let Ok(retailer) = done.payee.parse() {
        event = event.retailer(retailer);
    }
    events::record(&mut tx, crate::SCHEMA, &event).await?;
    tx.commit().await?;
    Ok(())
}

/// Done → confirmed; true for the one request that does it. The claim keeps that request's key
/// (`request_key`, when it has one): the request answered "paid" is the one whose copies are
/// answered its receipt again, never another that began or resumed it.
pub async fn confirm(pool: &PgPool, id: Uuid, request_key: Option<&str>) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "UPDATE pb_claims SET state = 'confirmed', request_key = coalesce($2, request_key)
          WHERE id = $1 AND state = 'done'",
        id,
        request_key
    )
    .execute(pool)
        .await?
        .rows_affected()
        == 1)
}

/// Undoes pending claim `id`: its boards unpaid again, the claim gone, in one transaction.
pub async fn release(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let released = sqlx::query!(
        "DELETE FROM pb_claims WHERE id = $1 AND state = 'pending' RETURNING serial, draw_date",
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(released) = released {
        sqlx::query!(
            "UPDATE pb_winners SET paid_at = NULL WHERE serial = $1 AND draw_date = $2",
            released.serial,
            released.draw_date
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Claims pending since before `before` (the draws' clock), oldest first, for the recovery pass.
pub async fn stuck(pool: &PgPool, before: DateTime<Utc>) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM pb_claims WHERE state = 'pending' AND created_at < $1 ORDER BY created_at LIMIT 500",
        before
    )
    .fetch_all(pool)
    .await?)
}

/// Certified drawings held before `before` whose unclaimed prizes have not been expired.
pub async fn expirable(pool: &PgPool, before: DateTime<Utc>) -> Result<Vec<NaiveDate>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT draw_date FROM pb_draws WHERE state = 'certified' AND online_paid_at IS NOT NULL AND expired_at IS NULL
            AND draw_at < $1 ORDER BY draw_date",
        before
    )
    .fetch_all(pool)
    .await?)
}

/// Marks drawing `date`'s unpaid prizes expired (once) and returns their total, as recorded.
pub async fn expire(pool: &PgPool, date: NaiveDate) -> Result<i64, AppError> {
    let mut tx = pool.begin().await?;
    let recorded =
        sqlx::query_scalar!("SELECT expired_cents FROM pb_draws WHERE draw_date = $1 FOR UPDATE", date)
            .fetch_one(&mut *tx)
            .await?;
    if let Some(cents) = recorded {
        return Ok(cents);
    }
    let cents = sqlx::query_scalar!(
        r#"WITH gone AS (UPDATE pb_winners SET expired = true WHERE draw_date = $1 AND paid_at IS NULL AND NOT expired
                         RETURNING prize_cents)
           SELECT coalesce(sum(prize_cents), 0)::bigint AS "cents!" FROM gone"#,
        date
    )
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE pb_draws SET expired_cents = $2, updated_at = now() WHERE draw_date = $1",
        date,
        cents
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(cents)
}

/// Records that drawing `date`'s expired prizes have moved to the unclaimed account, at `at`.
pub async fn mark_expired(pool: &PgPool, date: NaiveDate, at: DateTime<Utc>) -> Result<(), AppError> {
    sqlx::query!("UPDATE pb_draws SET expired_at = $2, updated_at = now() WHERE draw_date = $1", date, at)
        .execute(pool)
        .await?;
    Ok(())
}
