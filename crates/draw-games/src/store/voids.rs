//! Tickets for future draws voided when their player's play is suspended (a break or an
//! exclusion; issue 35, ADR 0014 §4), and their refunds' progress.
//!
//! A void takes a ticket's entries out of the draws that have not closed, in one transaction
//! that holds each such draw `FOR SHARE` (as a purchase joining it does), so a draw's close,
//! which locks it `FOR UPDATE`, either froze its wager set with the entry in it (the ticket
//! plays that draw) or freezes it without. The draws already closed play on as sold.

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::PgPool;
use uuid::Uuid;

/// A ticket taken out of its future draws, with the stake owed back to its wallet.
#[derive(Debug, Clone)]
pub struct Voided {
    pub ticket_id: Uuid,
    pub game: String,
    pub wallet_account_id: Uuid,
    /// The draws taken out: Keno draw numbers or Powerball drawing dates.
    pub draws: Vec<String>,
    pub refund_cents: i64,
    pub reason: String,
    pub voided_at: DateTime<Utc>,
    pub refunded_at: Option<DateTime<Utc>>,
}

/// `player`'s purchases still `open` (recorded, their stake perhaps taken, not yet in their
/// draws): Keno draw tickets and online Powerball tickets, to finish before voiding.
pub async fn open_purchases(pool: &PgPool, player: &str) -> Result<(Vec<Uuid>, Vec<Uuid>), AppError> {
    let keno = sqlx::query_scalar!(
        "SELECT id FROM keno_draw_tickets WHERE player_id = $1 AND state = 'open' ORDER BY created_at",
        player
    )
    .fetch_all(pool)
    .await?;
    let powerball = sqlx::query_scalar!(
        "SELECT id FROM pb_tickets WHERE seller = $1 AND channel = 'online' AND state = 'open' ORDER BY created_at",
        player
    )
    .fetch_all(pool)
    .await?;
    Ok((keno, powerball))
}

/// `player`'s Keno draw tickets with an entry in a draw not yet closed.
pub async fn keno_with_future_draws(pool: &PgPool, player: &str) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT DISTINCT t.id AS "id!" FROM keno_draw_tickets t
             JOIN keno_entries e ON e.ticket_id = t.id
             JOIN keno_draws d ON d.number = e.draw_number
            WHERE t.player_id = $1 AND t.state = 'staked' AND d.state IN ('scheduled', 'open')"#,
        player
    )
    .fetch_all(pool)
    .await?)
}

/// `player`'s online Powerball tickets sold for a drawing still on sale, each with its first
/// drawing and how many it is for.
pub async fn powerball_with_future_drawings(
    pool: &PgPool,
    player: &str,
) -> Result<Vec<(Uuid, NaiveDate, i16)>, AppError> {
    Ok(sqlx::query!(
        r#"SELECT t.id, t.first_draw AS "first_draw!", t.draws FROM pb_tickets t
            WHERE t.seller = $1 AND t.channel = 'online' AND t.state = 'sold'
              AND NOT EXISTS (SELECT 1 FROM voided_tickets v WHERE v.ticket_id = t.id)
              AND EXISTS (SELECT 1 FROM pb_draws d WHERE d.draw_date >= t.first_draw AND d.state = 'scheduled')"#,
        player
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.id, r.first_draw, r.draws))
    .collect())
}

/// Takes Keno draw ticket `id` out of every draw not yet closed and records what it is owed;
/// `None` when it has no such draw (or was voided before).
pub async fn void_keno(pool: &PgPool, id: Uuid, reason: &str, at: DateTime<Utc>) -> Result<Option<Voided>, AppError> {
    let mut tx = pool.begin().await?;
    let ticket = sqlx::query!(
        "SELECT player_id, wallet_account_id FROM keno_draw_tickets WHERE id = $1 AND state = 'staked' FOR UPDATE",
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(ticket) = ticket else { return Ok(None) };
    let draws = sqlx::query_scalar!(
        "SELECT d.number FROM keno_draws d JOIN keno_entries e ON e.draw_number = d.number AND e.ticket_id = $1
          WHERE d.state IN ('scheduled', 'open') ORDER BY d.number FOR SHARE OF d",
        id
    )
    .fetch_all(&mut *tx)
    .await?;
    if draws.is_empty() {
        return Ok(None);
    }
    let refund = sqlx::query_scalar!(
        r#"WITH gone AS (DELETE FROM keno_entries WHERE ticket_id = $1 AND draw_number = ANY($2) RETURNING stake_cents)
           SELECT coalesce(sum(stake_cents), 0)::bigint AS "refund!" FROM gone"#,
        id,
        &draws
    )
    .fetch_one(&mut *tx)
    .await?;
    let draws: Vec<String> = draws.iter().map(ToString::to_string).collect();
    let voided =
        record(&mut tx, id, "castle_keno", &ticket.player_id, ticket.wallet_account_id, &draws, (refund, reason, at))
            .await?;
    tx.commit().await?;
    Ok(Some(voided))
}

/// Takes online Powerball ticket `id` out of those of its drawings `dates` still on sale and
/// records what it is owed (its cost shared evenly by its drawings); `None` when none is.
pub async fn void_powerball(
    pool: &PgPool,
    id: Uuid,
    dates: &[NaiveDate],
    reason: &str,
    at: DateTime<Utc>,
) -> Result<Option<Voided>, AppError> {
    let mut tx = pool.begin().await?;
    let ticket = sqlx::query!(
        "SELECT seller, debit_account, serial, cost_cents, draws FROM pb_tickets
          WHERE id = $1 AND channel = 'online' AND state = 'sold' FOR UPDATE",
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(ticket) = ticket else { return Ok(None) };
    let on_sale = sqlx::query_scalar!(
        "SELECT draw_date FROM pb_draws WHERE draw_date = ANY($1) AND state = 'scheduled'
          ORDER BY draw_date FOR SHARE",
        dates
    )
    .fetch_all(&mut *tx)
    .await?;
    let taken = sqlx::query_scalar!(
        "WITH gone AS (DELETE FROM pb_plays WHERE serial = $1 AND draw_date = ANY($2) RETURNING draw_date)
         SELECT DISTINCT draw_date FROM gone ORDER BY draw_date",
        ticket.serial,
        &on_sale
    )
    .fetch_all(&mut *tx)
    .await?;
    if taken.is_empty() {
        return Ok(None);
    }
    let count = i64::try_from(taken.len()).map_err(AppError::internal)?;
    let refund = ticket.cost_cents / i64::from(ticket.draws.max(1)) * count;
    let draws: Vec<String> = taken.iter().map(ToString::to_string).collect();
    let voided =
        record(&mut tx, id, "powerball", &ticket.seller, ticket.debit_account, &draws, (refund, reason, at)).await?;
    tx.commit().await?;
    Ok(Some(voided))
}

/// Records a void: the ticket, whose it was, the draws taken out, and the refund, why and when
/// (the draws' clock).
async fn record(
    tx: &mut sqlx::PgConnection,
    id: Uuid,
    game: &str,
    player: &str,
    wallet: Uuid,
    draws: &[String],
    (refund, reason, at): (i64, &str, DateTime<Utc>),
) -> Result<Voided, AppError> {
    #[derive(serde::Serialize)]
    struct Void<'a> {
        ticket: Uuid,
        game: &'a str,
        draws: &'a [String],
        refund_cents: i64,
        reason: &'a str,
    }
    let void = Void { ticket: id, game, draws, refund_cents: refund, reason };
    let mut event = Event::new(Kind::Void, &void)?;
    if let Ok(player) = player.parse() {
        event = event.player(player);
    }
    events::record(&mut *tx, crate::SCHEMA, &event).await?;
    Ok(sqlx::query_as!(
        Voided,
        "INSERT INTO voided_tickets (ticket_id, game, player_id, wallet_account_id, draws, refund_cents, reason, voided_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING ticket_id, game, wallet_account_id, draws, refund_cents, reason, voided_at, refunded_at",
        id,
        game,
        player,
        wallet,
        draws,
        refund,
        reason,
        at
    )
    .fetch_one(tx)
    .await?)
}

/// Voids whose refund is not yet known to be in the journal, voided before `before`.
pub async fn unrefunded(pool: &PgPool, before: DateTime<Utc>) -> Result<Vec<Voided>, AppError> {
    Ok(sqlx::query_as!(
        Voided,
        "SELECT ticket_id, game, wallet_account_id, draws, refund_cents, reason, voided_at, refunded_at
           FROM voided_tickets
          WHERE refunded_at IS NULL AND voided_at < $1
          ORDER BY voided_at LIMIT 500",
        before
    )
    .fetch_all(pool)
    .await?)
}

/// The void of ticket `id`, if it was voided.
pub async fn of_ticket(pool: &PgPool, id: Uuid) -> Result<Option<Voided>, AppError> {
    Ok(sqlx::query_as!(
        Voided,
        "SELECT ticket_id, game, wallet_account_id, draws, refund_cents, reason, voided_at, refunded_at
           FROM voided_tickets WHERE ticket_id = $1",
        id
    )
    .fetch_optional(pool)
    .await?)
}

/// The voids of those of tickets `ids` that were voided, by ticket.
pub async fn of_tickets(pool: &PgPool, ids: &[Uuid]) -> Result<std::collections::HashMap<Uuid, Voided>, AppError> {
    Ok(sqlx::query_as!(
        Voided,
        "SELECT ticket_id, game, wallet_account_id, draws, refund_cents, reason, voided_at, refunded_at
           FROM voided_tickets WHERE ticket_id = ANY($1)",
        ids
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|v| (v.ticket_id, v))
    .collect())
}

/// Ticket `id`'s refund is in the journal, since `at` (the draws' clock) unless it was before.
pub async fn mark_refunded(pool: &PgPool, id: Uuid, at: DateTime<Utc>) -> Result<DateTime<Utc>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE voided_tickets SET refunded_at = coalesce(refunded_at, $2) WHERE ticket_id = $1
           RETURNING refunded_at AS "at!""#,
        id,
        at
    )
    .fetch_one(pool)
    .await?)
}
