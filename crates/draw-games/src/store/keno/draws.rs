//! Castle Keno's scheduled draws as stored: the timetable, each draw's row through its states
//! and its entries; checked against the schema at build time.

use std::time::Duration;

use chrono::{DateTime, Utc};
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::store::DrawState;

/// The name the schedule is kept under.
pub const GAME: &str = "castle_keno";

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
        sqlx::query!(
            "INSERT INTO keno_schedule (game, anchor, interval_seconds) VALUES ($1, 'epoch', $2)
             ON CONFLICT (game) DO NOTHING",
            GAME,
            seconds
        )
        .execute(&mut *conn)
        .await?;
        let row = sqlx::query!("SELECT anchor, interval_seconds FROM keno_schedule WHERE game = $1", GAME)
            .fetch_one(&mut *conn)
            .await?;
        let stored = row.interval_seconds;
        if stored != seconds {
            tracing::warn!(
                stored,
                configured = seconds,
                "keno draw interval differs from the stored schedule; keeping it"
            );
        }
        Ok(Schedule { anchor: row.anchor, interval: chrono::Duration::seconds(i64::from(stored)) })
    }

    /// Makes sure draws `from..=to` exist (as `scheduled`). Two passes racing insert the same
    /// rows, and the one that waits may meet the other's on either unique key (the number or its
    /// close instant, which follows from it): any conflict means the row is there.
    pub async fn ensure_draws(&self, conn: &mut PgConnection, from: i64, to: i64) -> Result<(), AppError> {
        sqlx::query!(
            "INSERT INTO keno_draws (number, sales_close_at, state)
             SELECT n, $3::timestamptz + n * make_interval(secs => $4), 'scheduled' FROM generate_series($1::bigint, $2::bigint) n
             ON CONFLICT DO NOTHING",
            from,
            to,
            self.anchor,
            self.interval.num_seconds() as f64
        )
        .execute(&mut *conn)
        .await?;
        Ok(())
    }
}

/// Creates the draws missed since the last one known up to `next` (none on a first start),
/// opens `next` for sales, and returns every draw not settled whose sales closed by `now`,
/// oldest first.
pub async fn open_and_find_due(
    pool: &PgPool,
    schedule: &Schedule,
    next: i64,
    now: DateTime<Utc>,
) -> Result<Vec<i64>, AppError> {
    let mut conn = pool.acquire().await?;
    let last = sqlx::query_scalar!("SELECT max(number) FROM keno_draws").fetch_one(&mut *conn).await?;
    let from = last.map_or(next, |last| last.saturating_add(1).min(next));
    schedule.ensure_draws(&mut conn, from, next).await?;
    sqlx::query!("UPDATE keno_draws SET state = 'open' WHERE number = $1 AND state = 'scheduled'", next)
        .execute(&mut *conn)
        .await?;
    Ok(sqlx::query_scalar!(
        "SELECT number FROM keno_draws WHERE state <> 'settled' AND sales_close_at <= $1 ORDER BY number",
        now
    )
    .fetch_all(&mut *conn)
    .await?)
}

/// `scheduled`/`open` → `closed`, freezing the wager set (count, total, SHA-256 of the entries);
/// a no-op on any later state. Locking the draw waits for purchases holding it `FOR SHARE`; the
/// freeze (a later snapshot) sees them all. `at` is the service's clock (a shifted clock's time,
/// as every other time of the draw), not the database's.
pub async fn close(pool: &PgPool, number: i64, at: DateTime<Utc>) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let current = sqlx::query_scalar!(
        r#"SELECT state AS "state: DrawState" FROM keno_draws WHERE number = $1 FOR UPDATE"#,
        number
    )
    .fetch_optional(&mut *tx)
    .await?;
    if matches!(current, Some(DrawState::Scheduled | DrawState::Open)) {
        sqlx::query!(
            "UPDATE keno_draws d SET state = 'closed', closed_at = $2, entries = w.n, wagers_cents = w.total,
                    wager_set_hash = w.hash
               FROM (SELECT count(*)::int AS n, coalesce(sum(e.stake_cents), 0)::bigint AS total,
                            sha256(convert_to(coalesce(string_agg(
                                format('%s|%s|%s|%s|%s', e.ticket_id, e.option, e.spots, e.tickets, e.stake_cents),
                                E'\n' ORDER BY e.ticket_id), ''), 'UTF8')) AS hash
                       FROM keno_entries e WHERE e.draw_number = $1) w
              WHERE d.number = $1",
            number,
            at
        )
        .execute(&mut *tx)
        .await?;
        #[derive(serde::Serialize)]
        struct Closed {
            closed_at: DateTime<Utc>,
        }
        let closed = Event::new(Kind::DrawClosed, &Closed { closed_at: at })?.drawing("keno", number);
        events::record(&mut tx, crate::SCHEMA, &closed).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// A closed draw's frozen wager set, as its numbers are stored with it.
#[derive(Debug)]
pub struct Closed {
    pub sales_close_at: DateTime<Utc>,
    pub entries: i32,
    pub wagers_cents: i64,
    pub wager_set_hash: Vec<u8>,
}

/// `closed` → `drawn` with `numbers` at `at`, in the caller's transaction; `None` when the draw
/// was not closed (drawn already, or not yet closed).
pub async fn mark_drawn(
    conn: &mut PgConnection,
    number: i64,
    numbers: &[i16],
    at: DateTime<Utc>,
) -> Result<Option<Closed>, AppError> {
    // A closed draw has its frozen counts (the close sets them with the state).
    Ok(sqlx::query_as!(
        Closed,
        r#"UPDATE keno_draws SET state = 'drawn', numbers = $2, drawn_at = $3 WHERE number = $1 AND state = 'closed'
           RETURNING sales_close_at, entries AS "entries!", wagers_cents AS "wagers_cents!",
                     wager_set_hash AS "wager_set_hash!""#,
        number,
        numbers,
        at
    )
    .fetch_optional(&mut *conn)
    .await?)
}

/// A draw's state, numbers and total staked.
#[derive(Debug)]
pub struct DrawOutcome {
    pub state: DrawState,
    pub numbers: Vec<i16>,
    pub wagers_cents: i64,
}

/// Draw `number`'s state, numbers and total staked.
pub async fn outcome(pool: &PgPool, number: i64) -> Result<Option<DrawOutcome>, AppError> {
    let row = sqlx::query!(
        r#"SELECT state AS "state: DrawState", numbers, wagers_cents FROM keno_draws WHERE number = $1"#,
        number
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| DrawOutcome {
        state: row.state,
        numbers: row.numbers.unwrap_or_default(),
        wagers_cents: row.wagers_cents.unwrap_or(0),
    }))
}

/// An entry of a draw, not yet paid.
#[derive(Debug)]
pub struct Entry {
    pub ticket_id: Uuid,
    pub wallet: Uuid,
    pub option: String,
    pub spots: Vec<i16>,
    pub tickets: i32,
}

/// Up to `limit` unpaid entries of draw `number` after ticket `after`, in ticket order.
pub async fn unpaid_entries(
    pool: &PgPool,
    number: i64,
    after: Uuid,
    limit: i64,
) -> Result<Vec<Entry>, AppError> {
    Ok(sqlx::query_as!(
        Entry,
        r#"SELECT ticket_id, wallet_account_id AS wallet, option, spots, tickets FROM keno_entries
            WHERE draw_number = $1 AND ticket_id > $2 AND NOT paid ORDER BY ticket_id LIMIT $3"#,
        number,
        after,
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// Marks entries of draw `number` paid, each with its (ticket, hits, payout).
pub async fn mark_paid(pool: &PgPool, number: i64, paid: &[(Uuid, i32, i64)]) -> Result<(), AppError> {
    let ids: Vec<Uuid> = paid.iter().map(|p| p.0).collect();
    let hits: Vec<i32> = paid.iter().map(|p| p.1).collect();
    let payouts: Vec<i64> = paid.iter().map(|p| p.2).collect();
    sqlx::query!(
        "UPDATE keno_entries e SET hits = u.hits, payout_cents = u.payout, paid = true
           FROM UNNEST($2::uuid[], $3::int[], $4::bigint[]) AS u(ticket_id, hits, payout)
          WHERE e.draw_number = $1 AND e.ticket_id = u.ticket_id",
        number,
        &ids,
        &hits,
        &payouts
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// `drawn` → `settled` at `at`.
pub async fn mark_settled(pool: &PgPool, number: i64, at: DateTime<Utc>) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE keno_draws SET state = 'settled', settled_at = $2 WHERE number = $1 AND state = 'drawn'",
        number,
        at
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// A draw's row.
#[derive(Debug, Clone)]
pub struct DrawRow {
    pub number: i64,
    pub sales_close_at: DateTime<Utc>,
    pub state: DrawState,
    pub entries: Option<i32>,
    pub wagers_cents: Option<i64>,
    pub wager_set_hash: Option<Vec<u8>>,
    pub numbers: Option<Vec<i16>>,
    pub drawn_at: Option<DateTime<Utc>>,
}

/// The newest `limit` draws up to number `up_to`.
pub async fn list(pool: &PgPool, up_to: i64, limit: i64) -> Result<Vec<DrawRow>, AppError> {
    Ok(sqlx::query_as!(
        DrawRow,
        r#"SELECT number, sales_close_at, state AS "state: DrawState", entries, wagers_cents, wager_set_hash, numbers,
                  drawn_at
             FROM keno_draws WHERE number <= $1 ORDER BY number DESC LIMIT $2"#,
        up_to,
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// Draw `number`.
pub async fn get(pool: &PgPool, number: i64) -> Result<Option<DrawRow>, AppError> {
    Ok(sqlx::query_as!(
        DrawRow,
        r#"SELECT number, sales_close_at, state AS "state: DrawState", entries, wagers_cents, wager_set_hash, numbers,
                  drawn_at
             FROM keno_draws WHERE number = $1"#,
        number
    )
    .fetch_optional(pool)
    .await?)
}
