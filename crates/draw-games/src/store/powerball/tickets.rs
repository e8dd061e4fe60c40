//! Powerball tickets as stored: a sale's row from `open` to `sold` (its plays placed in their
//! drawings' partitions, both written by [`super::sale_writes`]) or `refused`, found by id or by
//! the serial printed on it; checked against the schema at build time.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::Board;
use domain::serial::TicketSerial;
use platform::AppError;
use sqlx::PgPool;
use uuid::Uuid;

use crate::store::{PowerballDrawState, PowerballTicketState};

/// Where a ticket was sold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Terminal,
    Online,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Terminal => "terminal",
            Channel::Online => "online",
        }
    }
}

/// A ticket as stored.
#[derive(Debug, Clone)]
pub struct PowerballTicket {
    pub id: Uuid,
    pub serial: TicketSerial,
    pub channel: Channel,
    /// The retailer whose terminal sold it, or the player who bought it online.
    pub seller: String,
    /// The login that asked.
    pub sold_by: String,
    /// The retailer's settlement account or the player's wallet.
    pub debit_account: Uuid,
    pub boards: Vec<Board>,
    /// How many of the boards (the last ones) the server picked.
    pub quick_picks: i16,
    pub power_play: bool,
    pub draws: i16,
    /// For every drawing together.
    pub cost_cents: i64,
    pub first_draw: Option<NaiveDate>,
    pub state: PowerballTicketState,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A ticket's columns as stored: its boards in two arrays, its serial as the number it is.
struct TicketRow {
    id: Uuid,
    serial: i64,
    channel: String,
    seller: String,
    sold_by: String,
    debit_account: Uuid,
    whites: Vec<i16>,
    powerballs: Vec<i16>,
    quick_picks: i16,
    power_play: bool,
    draws: i16,
    cost_cents: i64,
    first_draw: Option<NaiveDate>,
    state: PowerballTicketState,
    refusal: Option<String>,
    created_at: DateTime<Utc>,
}

impl TryFrom<TicketRow> for PowerballTicket {
    type Error = AppError;

    fn try_from(row: TicketRow) -> Result<Self, AppError> {
        let boards = row
            .whites
            .chunks(5)
            .zip(&row.powerballs)
            .map(|(w, &pb)| {
                let w: Vec<u8> = w.iter().filter_map(|&n| u8::try_from(n).ok()).collect();
                Board::new(&w, u8::try_from(pb).unwrap_or(0)).map_err(|e| AppError::internal(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PowerballTicket {
            id: row.id,
            serial: TicketSerial::from_body(row.serial)
                .ok_or_else(|| AppError::internal("a stored serial out of range"))?,
            channel: if row.channel == "online" { Channel::Online } else { Channel::Terminal },
            seller: row.seller,
            sold_by: row.sold_by,
            debit_account: row.debit_account,
            boards,
            quick_picks: row.quick_picks,
            power_play: row.power_play,
            draws: row.draws,
            cost_cents: row.cost_cents,
            first_draw: row.first_draw,
            state: row.state,
            refusal: row.refusal,
            created_at: row.created_at,
        })
    }
}

/// Ticket `id`.
pub async fn load(pool: &PgPool, id: Uuid) -> Result<Option<PowerballTicket>, AppError> {
    sqlx::query_as!(
        TicketRow,
        r#"SELECT id, serial, channel, seller, sold_by, debit_account, whites, powerballs, quick_picks, power_play,
                  draws, cost_cents, first_draw, state AS "state: PowerballTicketState", refusal, created_at
             FROM pb_tickets WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .map(PowerballTicket::try_from)
    .transpose()
}

/// The ticket printed with `serial`.
pub async fn load_by_serial(
    pool: &PgPool,
    serial: TicketSerial,
) -> Result<Option<PowerballTicket>, AppError> {
    sqlx::query_as!(
        TicketRow,
        r#"SELECT id, serial, channel, seller, sold_by, debit_account, whites, powerballs, quick_picks, power_play,
                  draws, cost_cents, first_draw, state AS "state: PowerballTicketState", refusal, created_at
             FROM pb_tickets WHERE serial = $1"#,
        serial.body()
    )
    .fetch_optional(pool)
    .await?
    .map(PowerballTicket::try_from)
    .transpose()
}

/// `open` → `refused` with the ledger's `code`; nothing was charged. Answers whether this call
/// refused it.
pub async fn refuse_open(pool: &PgPool, id: Uuid, code: &str) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "UPDATE pb_tickets SET state = 'refused', refusal = $2, updated_at = now() WHERE id = $1 AND state = 'open'",
        id,
        code
    )
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// Tickets left `open` for longer than `older_than`, oldest first (for the recovery pass).
pub async fn stuck(pool: &PgPool, older_than: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM pb_tickets WHERE state = 'open' AND updated_at < now() - make_interval(secs => $1)
          ORDER BY updated_at LIMIT 500",
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// A ticket's drawings with each one's state and what the ticket won in it.
#[derive(Debug, Clone)]
pub struct TicketDrawing {
    pub date: NaiveDate,
    pub state: PowerballDrawState,
    pub winning_boards: Vec<WinningBoard>,
}

/// A board that won in a drawing: the board (from 1), its tier, its prize in cents.
pub type WinningBoard = (i16, String, i64);

/// The drawings of each of several tickets (one ticket, or a page of a player's), in two
/// statements whatever their number: for each `(serial, dates)` of `wanted` (its dates distinct, in
/// order), the drawings of those dates that exist, with the ticket's winners in each one settled.
pub async fn drawings_of_each(
    pool: &PgPool,
    wanted: &[(TicketSerial, Vec<NaiveDate>)],
) -> Result<Vec<Vec<TicketDrawing>>, AppError> {
    let mut dates: Vec<NaiveDate> = wanted.iter().flat_map(|(_, d)| d.iter().copied()).collect();
    dates.sort_unstable();
    dates.dedup();
    let serials: Vec<i64> = wanted.iter().map(|(s, _)| s.body()).collect();
    let states: HashMap<NaiveDate, PowerballDrawState> = sqlx::query!(
        r#"SELECT draw_date, state AS "state: PowerballDrawState" FROM pb_draws WHERE draw_date = ANY($1)"#,
        &dates
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|row| (row.draw_date, row.state))
    .collect();
    let mut winners: HashMap<(i64, NaiveDate), Vec<WinningBoard>> = HashMap::new();
    for row in sqlx::query!(
        "SELECT w.serial, w.draw_date, w.board, w.tier, w.prize_cents
           FROM pb_winners w JOIN pb_draws d ON d.draw_date = w.draw_date
          WHERE w.serial = ANY($1) AND d.state IN ('settled', 'certified')
          ORDER BY w.serial, w.draw_date, w.board",
        &serials
    )
    .fetch_all(pool)
    .await?
    {
        winners.entry((row.serial, row.draw_date)).or_default().push((row.board, row.tier, row.prize_cents));
    }
    Ok(wanted
        .iter()
        .map(|(serial, dates)| {
            dates
                .iter()
                .copied()
                .filter_map(|date| {
                    let state = *states.get(&date)?;
                    let winning_boards = winners.remove(&(serial.body(), date)).unwrap_or_default();
                    Some(TicketDrawing { date, state, winning_boards })
                })
                .collect()
        })
        .collect())
}

/// `player`'s online tickets, newest first: at most `limit`, after the cursor.
pub async fn list_online(
    pool: &PgPool,
    player: &str,
    after: Option<platform::TimeIdCursor>,
    limit: i64,
) -> Result<Vec<PowerballTicket>, AppError> {
    sqlx::query_as!(
        TicketRow,
        r#"SELECT id, serial, channel, seller, sold_by, debit_account, whites, powerballs, quick_picks, power_play,
                  draws, cost_cents, first_draw, state AS "state: PowerballTicketState", refusal, created_at
             FROM pb_tickets WHERE channel = 'online' AND seller = $1
              AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
            ORDER BY created_at DESC, id DESC LIMIT $2"#,
        player,
        limit,
        after.map(|c| c.at),
        after.map(|c| c.id)
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(PowerballTicket::try_from)
    .collect()
}
