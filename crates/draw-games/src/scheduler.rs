//! Castle Keno draws on a schedule (DESIGN §6): the timetable, and the leader that closes, draws
//! and settles every draw whose sales have closed, in order and exactly once.
//!
//! Each step is a guarded state change, so running one twice (two processes, a restart halfway)
//! changes nothing the second time:
//!
//! - **close** (`scheduled`/`open` → `closed`) waits for every purchase still holding the draw
//!   (purchases lock it `FOR SHARE`), then freezes the wager set: count, total and a SHA-256 of the
//!   entries; a purchase that comes later finds the draw closed and takes the next one;
//! - **draw** (`closed` → `drawn`), only after the close committed: 20 numbers from a fresh
//!   OS-seeded ChaCha20, stored with their audit record in one transaction;
//! - **settle** (`drawn` → `settled`): the draw's stakes move from escrow to the house in one
//!   transfer, then the prizes, a few thousand entries at a time, each with a key derived from the
//!   draw and the ticket, so a repeated step is a replay in the ledger.
//!
//! One process leads at a time (a session-level advisory lock on a connection of its own); the
//! others wait and take over when the leader's connection goes. After downtime the leader runs
//! every missed draw, oldest first.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::keno::{Draw, Ticket, settle};
use ledger_api::NewTransfer;
use platform::AppError;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;
use serde_json::json;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::rules::option_named;
use crate::{DRAWS_NAMESPACE, DrawsState};

/// The name the schedule is kept under.
pub const GAME: &str = "castle_keno";

/// Entries settled per round trip (and prizes per ledger call, at most).
const SETTLE_CHUNK: i64 = 5_000;

/// When each draw's sales close: draw `n` at `anchor + n * interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    pub anchor: DateTime<Utc>,
    pub interval: chrono::Duration,
}

impl Schedule {
    pub fn sales_close_at(&self, number: i64) -> DateTime<Utc> {
        self.anchor + self.interval * i32::try_from(number).unwrap_or(i32::MAX)
    }

    /// The first draw whose sales close strictly after `at`: a ticket bought at the very instant
    /// a draw closes belongs to the next one.
    pub fn next_after(&self, at: DateTime<Utc>) -> i64 {
        let elapsed = (at - self.anchor).num_microseconds().unwrap_or(i64::MAX);
        let step = self.interval.num_microseconds().unwrap_or(i64::MAX).max(1);
        elapsed.div_euclid(step).saturating_add(1)
    }

    /// The stored schedule, created from `interval` by the first start. A different `interval`
    /// later is ignored with a warning: the numbering of draws already sold must not move.
    pub async fn load_or_create(conn: &mut PgConnection, interval: Duration) -> Result<Schedule, AppError> {
        let seconds = i32::try_from(interval.as_secs().max(1)).map_err(AppError::internal)?;
        sqlx::query(
            "INSERT INTO keno_schedule (game, anchor, interval_seconds) VALUES ($1, 'epoch', $2)
             ON CONFLICT (game) DO NOTHING",
        )
        .bind(GAME)
        .bind(seconds)
        .execute(&mut *conn)
        .await?;
        let row = sqlx::query("SELECT anchor, interval_seconds FROM keno_schedule WHERE game = $1")
            .bind(GAME)
            .fetch_one(&mut *conn)
            .await?;
        let stored: i32 = row.try_get("interval_seconds")?;
        if stored != seconds {
            tracing::warn!(
                stored,
                configured = seconds,
                "keno draw interval differs from the stored schedule; keeping it"
            );
        }
        Ok(Schedule {
            anchor: row.try_get("anchor")?,
            interval: chrono::Duration::seconds(i64::from(stored)),
        })
    }

    /// Makes sure draws `from..=to` exist (as `scheduled`).
    pub async fn ensure_draws(&self, conn: &mut PgConnection, from: i64, to: i64) -> Result<(), AppError> {
        sqlx::query(
            "INSERT INTO keno_draws (number, sales_close_at, state)
             SELECT n, $3::timestamptz + n * make_interval(secs => $4), 'scheduled' FROM generate_series($1::bigint, $2::bigint) n
             ON CONFLICT (number) DO NOTHING",
        )
        .bind(from)
        .bind(to)
        .bind(self.anchor)
        .bind(self.interval.num_seconds() as f64)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }
}

/// One pass of the leader: opens the next draw, and closes, draws and settles every draw whose
/// sales have closed, oldest first. Returns how many draws it settled.
pub async fn run_due_draws(state: &DrawsState) -> Result<usize, AppError> {
    let now = state.clock.now();
    let schedule = state.schedule;
    let next = schedule.next_after(now);
    let mut conn = state.pool.acquire().await?;
    // Missed draws since the last one known are created, so they run too (none on a first start).
    let last: Option<i64> =
        sqlx::query_scalar("SELECT max(number) FROM keno_draws").fetch_one(&mut *conn).await?;
    let from = last.map_or(next, |last| last.saturating_add(1).min(next));
    schedule.ensure_draws(&mut conn, from, next).await?;
    sqlx::query("UPDATE keno_draws SET state = 'open' WHERE number = $1 AND state = 'scheduled'")
        .bind(next)
        .execute(&mut *conn)
        .await?;
    let due: Vec<i64> = sqlx::query_scalar(
        "SELECT number FROM keno_draws WHERE state <> 'settled' AND sales_close_at <= $1 ORDER BY number",
    )
    .bind(now)
    .fetch_all(&mut *conn)
    .await?;
    drop(conn);
    for &number in &due {
        close_draw(state, number).await?;
        draw_numbers(state, number).await?;
        settle_draw(state, number).await?;
    }
    Ok(due.len())
}

/// `scheduled`/`open` → `closed`, with the wager set frozen; a no-op on any later state.
pub async fn close_draw(state: &DrawsState, number: i64) -> Result<(), AppError> {
    let mut tx = state.pool.begin().await?;
    // Waits for purchases holding the draw; the next statement (a later snapshot) sees them all.
    let current: Option<String> =
        sqlx::query_scalar("SELECT state FROM keno_draws WHERE number = $1 FOR UPDATE")
            .bind(number)
            .fetch_optional(&mut *tx)
            .await?;
    if matches!(current.as_deref(), Some("scheduled" | "open")) {
        sqlx::query(
            "UPDATE keno_draws d SET state = 'closed', closed_at = now(), entries = w.n, wagers_cents = w.total,
                    wager_set_hash = w.hash
               FROM (SELECT count(*)::int AS n, coalesce(sum(e.stake_cents), 0)::bigint AS total,
                            sha256(convert_to(coalesce(string_agg(
                                format('%s|%s|%s|%s|%s', e.ticket_id, e.option, e.spots, e.tickets, e.stake_cents),
                                E'\n' ORDER BY e.ticket_id), ''), 'UTF8')) AS hash
                       FROM keno_entries e WHERE e.draw_number = $1) w
              WHERE d.number = $1",
        )
        .bind(number)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// A draw as chained in the audit log.
#[derive(Debug, Serialize)]
struct DrawRecord {
    game: &'static str,
    draw: i64,
    sales_close_at: DateTime<Utc>,
    entries: i32,
    wagers_cents: i64,
    wager_set_hash: String,
    numbers: Vec<i16>,
}

/// `closed` → `drawn`: the only place scheduled numbers are drawn, once per draw.
pub async fn draw_numbers(state: &DrawsState, number: i64) -> Result<(), AppError> {
    // A fresh generator seeded by the operating system; the seed is never kept.
    let draw = Draw::random(&mut ChaCha20Rng::from_os_rng());
    let numbers: Vec<i16> = draw.numbers.iter().map(|&n| i16::from(n)).collect();
    let mut tx = state.pool.begin().await?;
    let row = sqlx::query(
        "UPDATE keno_draws SET state = 'drawn', numbers = $2, drawn_at = now() WHERE number = $1 AND state = 'closed'
         RETURNING sales_close_at, entries, wagers_cents, wager_set_hash",
    )
    .bind(number)
    .bind(&numbers)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(row) = row {
        let record = DrawRecord {
            game: GAME,
            draw: number,
            sales_close_at: row.try_get("sales_close_at")?,
            entries: row.try_get("entries")?,
            wagers_cents: row.try_get("wagers_cents")?,
            wager_set_hash: hex::encode(row.try_get::<Vec<u8>, _>("wager_set_hash")?),
            numbers,
        };
        platform::audit::append(
            &mut tx,
            "keno.draw",
            Uuid::new_v5(&DRAWS_NAMESPACE, &number.to_be_bytes()),
            &record,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

fn draw_step_id(number: i64, step: &str) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-draw/{number}/{step}").as_bytes())
}

/// `drawn` → `settled`: the stakes to the house, every prize paid once. Safe to run again.
pub async fn settle_draw(state: &DrawsState, number: i64) -> Result<(), AppError> {
    let draw = sqlx::query("SELECT state, numbers, wagers_cents FROM keno_draws WHERE number = $1")
        .bind(number)
        .fetch_optional(&state.pool)
        .await?
        .ok_or_else(|| AppError::not_found("draw_not_found", format!("no draw {number}")))?;
    if draw.try_get::<String, _>("state")? != "drawn" {
        return Ok(());
    }
    let numbers: Vec<i16> = draw.try_get("numbers")?;
    let numbers: [u8; 20] = numbers
        .iter()
        .filter_map(|&n| u8::try_from(n).ok())
        .collect::<Vec<_>>()
        .try_into()
        .map_err(|_| AppError::internal("a drawn draw without 20 numbers"))?;
    let drawn = Draw { numbers };
    let wagers: i64 = draw.try_get("wagers_cents")?;
    if wagers > 0 {
        let stakes = NewTransfer::new(
            draw_step_id(number, "stakes"),
            state.escrow_account,
            state.house_account,
            wagers,
            json!({"game": GAME, "draw": number}),
        );
        state.ledger.transfer(&stakes).await?;
    }
    let mut after = Uuid::nil();
    loop {
        let rows = sqlx::query(
            "SELECT ticket_id, wallet_account_id, option, spots, tickets FROM keno_entries
              WHERE draw_number = $1 AND ticket_id > $2 AND NOT paid ORDER BY ticket_id LIMIT $3",
        )
        .bind(number)
        .bind(after)
        .bind(SETTLE_CHUNK)
        .fetch_all(&state.pool)
        .await?;
        let Some(last) = rows.last() else { break };
        after = last.try_get("ticket_id")?;
        let mut outcomes: HashMap<Uuid, (i32, i64)> = HashMap::with_capacity(rows.len());
        let mut prizes = Vec::new();
        for row in &rows {
            let ticket_id: Uuid = row.try_get("ticket_id")?;
            let spots: Vec<i16> = row.try_get("spots")?;
            let spots: Vec<u8> = spots.iter().filter_map(|&n| u8::try_from(n).ok()).collect();
            let tickets = u32::try_from(row.try_get::<i32, _>("tickets")?).map_err(AppError::internal)?;
            let rules =
                Ticket::new(option_named(&row.try_get::<String, _>("option")?)?, &spots, tickets, u32::MAX)
                    .map_err(|e| AppError::internal(e.to_string()))?;
            let outcome = settle(&rules, &drawn);
            if outcome.payout_cents > 0 {
                prizes.push(NewTransfer::new(
                    draw_step_id(number, &format!("prize/{ticket_id}")),
                    state.house_account,
                    row.try_get::<Uuid, _>("wallet_account_id")?,
                    outcome.payout_cents,
                    json!({"game": GAME, "draw": number, "ticket": ticket_id}),
                ));
            }
            outcomes.insert(ticket_id, (i32::try_from(outcome.hits).unwrap_or(0), outcome.payout_cents));
        }
        state.ledger.batch(&prizes).await?;
        let (ids, (hits, payouts)): (Vec<Uuid>, (Vec<i32>, Vec<i64>)) = outcomes.into_iter().unzip();
        sqlx::query(
            "UPDATE keno_entries e SET hits = u.hits, payout_cents = u.payout, paid = true
               FROM UNNEST($2::uuid[], $3::int[], $4::bigint[]) AS u(ticket_id, hits, payout)
              WHERE e.draw_number = $1 AND e.ticket_id = u.ticket_id",
        )
        .bind(number)
        .bind(&ids)
        .bind(&hits)
        .bind(&payouts)
        .execute(&state.pool)
        .await?;
    }
    sqlx::query(
        "UPDATE keno_draws SET state = 'settled', settled_at = now() WHERE number = $1 AND state = 'drawn'",
    )
    .bind(number)
    .execute(&state.pool)
    .await?;
    Ok(())
}

/// Runs [`run_due_draws`] every `tick` while this process holds the scheduler's lock; waits and
/// tries again otherwise.
pub fn spawn_scheduler(state: DrawsState, tick: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut leadership = Leadership::default();
        let mut ticker = tokio::time::interval(tick);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            match leadership.hold(&state).await {
                Ok(true) => match run_due_draws(&state).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(draws = n, "keno draws run"),
                    Err(e) => tracing::warn!(error = %e, "keno draws: will retry"),
                },
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "keno scheduler lost its connection; will retry");
                    leadership = Leadership::default();
                }
            }
        }
    })
}

/// The scheduler's lock: a session-level advisory lock, held as long as its connection lives.
/// The connection is taken out of the pool, so the lock never travels with a pooled connection,
/// and closing it (or the process dying) hands leadership to another process.
#[derive(Debug, Default)]
struct Leadership {
    conn: Option<PgConnection>,
    held: bool,
}

impl Leadership {
    /// True while this process leads (taking the lock when it is free).
    async fn hold(&mut self, state: &DrawsState) -> Result<bool, AppError> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self.conn.insert(state.pool.acquire().await?.detach()),
        };
        if self.held {
            // Still connected, so still holding it.
            sqlx::query("SELECT 1").execute(&mut *conn).await?;
        } else {
            self.held = sqlx::query_scalar(
                "SELECT pg_try_advisory_lock(hashtext(current_schema() || '.keno_scheduler'))",
            )
            .fetch_one(&mut *conn)
            .await?;
        }
        Ok(self.held)
    }
}
