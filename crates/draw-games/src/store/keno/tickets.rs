//! Keno tickets as stored: the play-now kind (`keno_tickets`) and the kind for scheduled draws
//! (`keno_draw_tickets`), read, listed and found stuck through one trait; checked against the
//! schema at build time.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, Utc};
use platform::AppError;
use platform::group_commit::BatchWrite;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::draws::Schedule;
use crate::store::{DrawState, DrawTicketState, PlayNowState};
use crate::views::EntryView;

/// A kind of ticket: how one is loaded, a player's listed, and those a crash left between
/// steps found. [`load`], [`list_for_player`] and the recovery pass serve every kind.
pub trait StoredTicket: Sized + Send {
    /// What the recovery pass calls it in its logs.
    const WHAT: &'static str;
    fn player(&self) -> &str;
    /// Ticket `id`.
    fn load(pool: &PgPool, id: Uuid) -> impl Future<Output = Result<Option<Self>, AppError>> + Send;
    /// `player`'s newest `limit` tickets, after the cursor.
    fn list_for_player(
        pool: &PgPool,
        player: &str,
        after: Option<platform::TimeIdCursor>,
        limit: i64,
    ) -> impl Future<Output = Result<Vec<Self>, AppError>> + Send;
    /// Tickets left between their purchase's steps for longer than `older_than`, oldest first.
    fn stuck(pool: &PgPool, older_than: Duration)
    -> impl Future<Output = Result<Vec<Uuid>, AppError>> + Send;
}

/// Ticket `id`.
pub async fn load<T: StoredTicket>(pool: &PgPool, id: Uuid) -> Result<Option<T>, AppError> {
    T::load(pool, id).await
}

/// `player`'s newest `limit` tickets.
pub async fn list_for_player<T: StoredTicket>(
    pool: &PgPool,
    player: &str,
    after: Option<platform::TimeIdCursor>,
    limit: i64,
) -> Result<Vec<T>, AppError> {
    T::list_for_player(pool, player, after, limit).await
}

/// A play-now ticket as stored.
#[derive(Debug, Clone)]
pub struct PlayNowTicket {
    pub id: Uuid,
    pub player: String,
    pub wallet: Uuid,
    pub option: String,
    pub spots: Vec<i16>,
    pub tickets: i32,
    pub stake_cents: i64,
    pub state: PlayNowState,
    pub numbers: Vec<i16>,
    pub hits: i32,
    pub payout_cents: i64,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A play-now ticket's columns as stored (its outcome absent until drawn).
struct PlayNowRow {
    id: Uuid,
    player_id: String,
    wallet_account_id: Uuid,
    option: String,
    spots: Vec<i16>,
    tickets: i32,
    stake_cents: i64,
    state: PlayNowState,
    draw_numbers: Option<Vec<i16>>,
    hits: Option<i32>,
    payout_cents: Option<i64>,
    refusal: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<PlayNowRow> for PlayNowTicket {
    fn from(row: PlayNowRow) -> Self {
        PlayNowTicket {
            id: row.id,
            player: row.player_id,
            wallet: row.wallet_account_id,
            option: row.option,
            spots: row.spots,
            tickets: row.tickets,
            stake_cents: row.stake_cents,
            state: row.state,
            numbers: row.draw_numbers.unwrap_or_default(),
            hits: row.hits.unwrap_or(0),
            payout_cents: row.payout_cents.unwrap_or(0),
            refusal: row.refusal,
            created_at: row.created_at,
        }
    }
}

impl StoredTicket for PlayNowTicket {
    const WHAT: &'static str = "keno play-now ticket";

    fn player(&self) -> &str {
        &self.player
    }

    async fn load(pool: &PgPool, id: Uuid) -> Result<Option<Self>, AppError> {
        Ok(sqlx::query_as!(
            PlayNowRow,
            r#"SELECT id, player_id, wallet_account_id, option, spots, tickets, stake_cents,
                      state AS "state: PlayNowState", draw_numbers, hits, payout_cents, refusal, created_at
                 FROM keno_tickets WHERE id = $1"#,
            id
        )
        .fetch_optional(pool)
        .await?
        .map(PlayNowTicket::from))
    }

    async fn list_for_player(
        pool: &PgPool,
        player: &str,
        after: Option<platform::TimeIdCursor>,
        limit: i64,
    ) -> Result<Vec<Self>, AppError> {
        Ok(sqlx::query_as!(
            PlayNowRow,
            r#"SELECT id, player_id, wallet_account_id, option, spots, tickets, stake_cents,
                      state AS "state: PlayNowState", draw_numbers, hits, payout_cents, refusal, created_at
                 FROM keno_tickets WHERE player_id = $1
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
        .map(PlayNowTicket::from)
        .collect())
    }

    async fn stuck(pool: &PgPool, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
        Ok(sqlx::query_scalar!(
            "SELECT id FROM keno_tickets WHERE state = 'drawn' AND updated_at < now() - make_interval(secs => $1)
              ORDER BY updated_at LIMIT 500",
            older_than.as_secs_f64()
        )
        .fetch_all(pool)
        .await?)
    }
}

/// A ticket for scheduled draws as stored.
#[derive(Debug, Clone)]
pub struct DrawTicket {
    pub id: Uuid,
    pub player: String,
    pub wallet: Uuid,
    pub option: String,
    pub spots: Vec<i16>,
    pub tickets: i32,
    /// The stake on each draw.
    pub stake_cents: i64,
    pub draws: i32,
    pub state: DrawTicketState,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl StoredTicket for DrawTicket {
    const WHAT: &'static str = "keno draw ticket";

    fn player(&self) -> &str {
        &self.player
    }

    async fn load(pool: &PgPool, id: Uuid) -> Result<Option<Self>, AppError> {
        Ok(sqlx::query_as!(
            DrawTicket,
            r#"SELECT id, player_id AS player, wallet_account_id AS wallet, option, spots, tickets, stake_cents, draws,
                      state AS "state: DrawTicketState", refusal, created_at
                 FROM keno_draw_tickets WHERE id = $1"#,
            id
        )
        .fetch_optional(pool)
        .await?)
    }

    async fn list_for_player(
        pool: &PgPool,
        player: &str,
        after: Option<platform::TimeIdCursor>,
        limit: i64,
    ) -> Result<Vec<Self>, AppError> {
        Ok(sqlx::query_as!(
            DrawTicket,
            r#"SELECT id, player_id AS player, wallet_account_id AS wallet, option, spots, tickets, stake_cents, draws,
                      state AS "state: DrawTicketState", refusal, created_at
                 FROM keno_draw_tickets WHERE player_id = $1
                  AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
                ORDER BY created_at DESC, id DESC LIMIT $2"#,
            player,
            limit,
            after.map(|c| c.at),
            after.map(|c| c.id)
        )
        .fetch_all(pool)
        .await?)
    }

    async fn stuck(pool: &PgPool, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
        Ok(sqlx::query_scalar!(
            "SELECT id FROM keno_draw_tickets WHERE state = 'open' AND updated_at < now() - make_interval(secs => $1)
              ORDER BY updated_at LIMIT 500",
            older_than.as_secs_f64()
        )
        .fetch_all(pool)
        .await?)
    }
}

/// The play-now saga's local writes, group-committed (see [`platform::group_commit`]).
#[derive(Debug)]
pub enum TicketWrite {
    /// Step 1: answers whether the ticket is new (false: this id was already recorded).
    Record(PlayNowTicket),
    /// Step 3: `settled`, and the outcome chained; answers whether this call settled it.
    Settle { id: Uuid, audit: platform::audit::Entry },
    /// The ledger refused the stake; answers whether this call ended it.
    Refuse { id: Uuid, code: String },
}

/// Writes [`TicketWrite`]s in one transaction.
#[derive(Debug)]
pub struct TicketWriter;

impl BatchWrite for TicketWriter {
    type Job = TicketWrite;
    type Output = bool;

    /// Three statements whatever the batch's size: the inserts, the settlements (and their audit
    /// records), the refusals. A ticket named twice in one batch changes once: the first job
    /// naming it answers true, the others false.
    async fn write_batch(
        &self,
        conn: &mut PgConnection,
        jobs: &[TicketWrite],
    ) -> Result<Vec<bool>, AppError> {
        let records: Vec<&PlayNowTicket> =
            jobs.iter().filter_map(|j| if let TicketWrite::Record(t) = j { Some(t) } else { None }).collect();
        let settles: Vec<Uuid> = jobs
            .iter()
            .filter_map(|j| if let TicketWrite::Settle { id, .. } = j { Some(*id) } else { None })
            .collect();
        let (refused, codes): (Vec<Uuid>, Vec<&str>) = jobs
            .iter()
            .filter_map(|j| {
                if let TicketWrite::Refuse { id, code } = j { Some((*id, code.as_str())) } else { None }
            })
            .unzip();
        let mut inserted = insert_drawn(conn, &records).await?;
        let mut settled = finish_drawn(conn, &settles, None).await?;
        let mut ended = finish_drawn(conn, &refused, Some(&codes)).await?;
        let mut chained = Vec::new();
        let outputs = jobs
            .iter()
            .map(|job| match job {
                TicketWrite::Record(t) => inserted.remove(&t.id),
                TicketWrite::Settle { id, audit } => {
                    let first = settled.remove(id);
                    if first {
                        chained.push(audit.clone());
                    }
                    first
                }
                TicketWrite::Refuse { id, .. } => ended.remove(id),
            })
            .collect();
        platform::audit::append_all(conn, &chained).await?;
        Ok(outputs)
    }
}

/// Records drawn tickets; returns the ids that were new.
async fn insert_drawn(
    conn: &mut PgConnection,
    records: &[&PlayNowTicket],
) -> Result<HashSet<Uuid>, AppError> {
    if records.is_empty() {
        return Ok(HashSet::new());
    }
    let text = |v: &[i16]| format!("{{{}}}", v.iter().map(i16::to_string).collect::<Vec<_>>().join(","));
    let ids = sqlx::query_scalar!(
        "INSERT INTO keno_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents,
            state, draw_numbers, hits, payout_cents, created_at)
         SELECT u.id, u.player, u.wallet, u.option, u.spots::smallint[], u.tickets, u.stake, 'drawn',
                u.numbers::smallint[], u.hits, u.payout, u.created_at
           FROM UNNEST($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::bigint[],
                       $8::text[], $9::int[], $10::bigint[], $11::timestamptz[])
                AS u(id, player, wallet, option, spots, tickets, stake, numbers, hits, payout, created_at)
         ON CONFLICT (id) DO NOTHING RETURNING id",
        &records.iter().map(|t| t.id).collect::<Vec<_>>(),
        &records.iter().map(|t| t.player.as_str()).collect::<Vec<_>>() as &[&str],
        &records.iter().map(|t| t.wallet).collect::<Vec<_>>(),
        &records.iter().map(|t| t.option.as_str()).collect::<Vec<_>>() as &[&str],
        &records.iter().map(|t| text(&t.spots)).collect::<Vec<_>>(),
        &records.iter().map(|t| t.tickets).collect::<Vec<_>>(),
        &records.iter().map(|t| t.stake_cents).collect::<Vec<_>>(),
        &records.iter().map(|t| text(&t.numbers)).collect::<Vec<_>>(),
        &records.iter().map(|t| t.hits).collect::<Vec<_>>(),
        &records.iter().map(|t| t.payout_cents).collect::<Vec<_>>(),
        &records.iter().map(|t| t.created_at).collect::<Vec<_>>()
    )
    .fetch_all(&mut *conn)
    .await?;
    Ok(ids.into_iter().collect())
}

/// Drawn play-now tickets → `settled` (a statement of the group commit, checked for its plan by
/// a test); `(...) IS TRUE` finds each ticket by its id, never through the partial index of
/// unfinished tickets (`platform::group_commit`). A string, not a macro, because the plan test
/// explains this very text; the tests run it against the schema.
pub const SETTLE_DRAWN: &str = "UPDATE keno_tickets t SET state = 'settled', updated_at = now()
   FROM UNNEST($1::uuid[]) AS u(id) WHERE t.id = u.id AND (t.state = 'drawn') IS TRUE RETURNING t.id";

/// Drawn play-now tickets → `refused` with their codes (as [`SETTLE_DRAWN`]).
pub const REFUSE_DRAWN: &str =
    "UPDATE keno_tickets t SET state = 'refused', refusal = u.code, updated_at = now()
   FROM UNNEST($1::uuid[], $2::text[]) AS u(id, code)
  WHERE t.id = u.id AND (t.state = 'drawn') IS TRUE RETURNING t.id";

/// Drawn tickets `ids` → `settled`, or with refusal `codes` → `refused`; returns those changed.
async fn finish_drawn(
    conn: &mut PgConnection,
    ids: &[Uuid],
    codes: Option<&[&str]>,
) -> Result<HashSet<Uuid>, AppError> {
    if ids.is_empty() {
        return Ok(HashSet::new());
    }
    let changed: Vec<Uuid> = match codes {
        None => sqlx::query_scalar(SETTLE_DRAWN).bind(ids).fetch_all(&mut *conn).await?,
        Some(codes) => sqlx::query_scalar(REFUSE_DRAWN).bind(ids).bind(codes).fetch_all(&mut *conn).await?,
    };
    Ok(changed.into_iter().collect())
}

/// Records a ticket for scheduled draws (`open`); false when its id is already recorded.
pub async fn insert_open(pool: &PgPool, ticket: &DrawTicket) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "INSERT INTO keno_draw_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents,
            draws, state, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9) ON CONFLICT (id) DO NOTHING",
        ticket.id,
        &ticket.player,
        ticket.wallet,
        &ticket.option,
        &ticket.spots,
        ticket.tickets,
        ticket.stake_cents,
        ticket.draws,
        ticket.created_at
    )
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// An open ticket the ledger refused → `refused`, with the ledger's code; answers whether this
/// call refused it.
pub async fn refuse_open(pool: &PgPool, id: Uuid, code: &str) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "UPDATE keno_draw_tickets SET state = 'refused', refusal = $2, updated_at = now()
          WHERE id = $1 AND state = 'open'",
        id,
        code
    )
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// Enters a staked open ticket in its `draws` consecutive draws, the first being the first draw
/// whose sales close after `now` and which is still open, in one transaction: each draw is
/// locked `FOR SHARE` and checked still open, so a draw's close (which waits for those locks)
/// freezes a wager set no purchase can join afterwards. A ticket no longer open is left alone.
pub async fn join_draws(
    pool: &PgPool,
    schedule: &Schedule,
    now: DateTime<Utc>,
    id: Uuid,
) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let ticket = sqlx::query!(
        r#"SELECT state AS "state: DrawTicketState", draws FROM keno_draw_tickets WHERE id = $1 FOR UPDATE"#,
        id
    )
    .fetch_one(&mut *tx)
    .await?;
    if ticket.state != DrawTicketState::Open {
        return Ok(());
    }
    let draws = i64::from(ticket.draws);
    let mut first = schedule.next_after(now);
    loop {
        let last = first.saturating_add(draws).saturating_sub(1);
        schedule.ensure_draws(&mut tx, first, last).await?;
        let taken = sqlx::query_scalar!(
            "SELECT max(number) FROM (SELECT number, state FROM keno_draws WHERE number BETWEEN $1 AND $2
                ORDER BY number FOR SHARE) d WHERE d.state NOT IN ('scheduled', 'open')",
            first,
            last
        )
        .fetch_one(&mut *tx)
        .await?;
        match taken {
            // A draw closed meanwhile (a leader whose clock runs ahead): start after it.
            Some(closed) => first = closed.saturating_add(1),
            None => break,
        }
    }
    sqlx::query!(
        "INSERT INTO keno_entries (draw_number, ticket_id, wallet_account_id, option, spots, tickets, stake_cents)
         SELECT n, t.id, t.wallet_account_id, t.option, t.spots, t.tickets, t.stake_cents
           FROM keno_draw_tickets t, generate_series($2::bigint, $2::bigint + t.draws - 1) n WHERE t.id = $1",
        id,
        first
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE keno_draw_tickets SET state = 'staked', first_draw = $2, updated_at = now() WHERE id = $1",
        id,
        first
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The draws ticket `id` is in, with each entry's outcome once paid.
pub async fn entries_of(pool: &PgPool, id: Uuid) -> Result<Vec<EntryView>, AppError> {
    Ok(sqlx::query!(
        r#"SELECT e.draw_number, d.sales_close_at, d.state AS "state: DrawState", d.numbers, e.hits, e.payout_cents,
                  e.paid
             FROM keno_entries e JOIN keno_draws d ON d.number = e.draw_number
            WHERE e.ticket_id = $1 ORDER BY e.draw_number"#,
        id
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|e| EntryView {
        draw_number: e.draw_number,
        sales_close_at: e.sales_close_at,
        draw_state: e.state,
        numbers: e.numbers,
        hits: if e.paid { e.hits } else { None },
        payout_cents: if e.paid { e.payout_cents } else { None },
    })
    .collect())
}
