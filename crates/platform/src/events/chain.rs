//! The chain: how pending events get their place and hash, and how the log is checked.
//!
//! Each event in `events.log` has `hash = sha256(prev_hash || line)`, `line` being its
//! [`RecordedEvent::canonical`] JSON (every field but the two hashes, in declaration order,
//! times in UTC to the microsecond), the first `prev_hash` 32 zero bytes. Changing, removing,
//! reordering or inserting an event breaks every hash after it.

use std::time::Duration;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::AppError;

/// The `prev_hash` of the first event.
pub const GENESIS: [u8; 32] = [0; 32];

/// How often each process's chainer looks for pending events.
pub const CHAIN_EVERY: Duration = Duration::from_millis(250);

/// Events chained per transaction.
pub const BATCH: i64 = 2_000;

/// An event in the chain, as the API answers it and an export writes it (one per line).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecordedEvent {
    /// Its place in the chain, from 1, without gaps.
    pub seq: i64,
    /// When the chainer recorded it (UTC, never earlier than the event before).
    pub recorded_at: String,
    /// When the change it records was made (the transaction's time, UTC).
    pub occurred_at: String,
    /// The service that recorded it.
    pub service: String,
    pub kind: String,
    pub player_id: Option<Uuid>,
    pub retailer_id: Option<Uuid>,
    pub terminal: Option<String>,
    pub drawing: Option<String>,
    pub staff_id: Option<String>,
    /// What happened, as the service described it.
    #[schema(value_type = Object)]
    pub details: Box<RawValue>,
    /// The hash of the event before (hex).
    pub prev_hash: String,
    /// This event's hash (hex).
    pub hash: String,
}

/// The hashed part of an event: every field but the hashes, in the same order.
#[derive(Serialize)]
struct Canonical<'a> {
    seq: i64,
    recorded_at: &'a str,
    occurred_at: &'a str,
    service: &'a str,
    kind: &'a str,
    player_id: Option<Uuid>,
    retailer_id: Option<Uuid>,
    terminal: Option<&'a str>,
    drawing: Option<&'a str>,
    staff_id: Option<&'a str>,
    details: &'a RawValue,
}

impl RecordedEvent {
    /// The line its hash is taken over.
    pub fn canonical(&self) -> String {
        let canonical = Canonical {
            seq: self.seq,
            recorded_at: &self.recorded_at,
            occurred_at: &self.occurred_at,
            service: &self.service,
            kind: &self.kind,
            player_id: self.player_id,
            retailer_id: self.retailer_id,
            terminal: self.terminal.as_deref(),
            drawing: self.drawing.as_deref(),
            staff_id: self.staff_id.as_deref(),
            details: &self.details,
        };
        // Strings, uuids, integers and a raw value: nothing that can fail to serialise.
        serde_json::to_string(&canonical).unwrap_or_default()
    }

    /// The hash it has after `prev` (raw bytes).
    pub fn hash_after(&self, prev: &[u8]) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(prev);
        hasher.update(self.canonical().as_bytes());
        hasher.finalize().into()
    }
}

/// A time as the chain writes it: UTC, to the microsecond (what Postgres keeps).
pub fn stamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// A row of `events.log` as [`RecordedEvent`].
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct LogRow {
    pub seq: i64,
    pub recorded_at: DateTime<Utc>,
    pub occurred_at: DateTime<Utc>,
    pub service: String,
    pub kind: String,
    pub player_id: Option<Uuid>,
    pub retailer_id: Option<Uuid>,
    pub terminal: Option<String>,
    pub drawing: Option<String>,
    pub staff_id: Option<String>,
    pub details: String,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
}

/// The columns of a [`LogRow`], for queries that read them.
pub(crate) const LOG_COLUMNS: &str = "seq, recorded_at, occurred_at, service, kind, player_id, retailer_id, \
     terminal, drawing, staff_id, details, prev_hash, hash";

impl LogRow {
    pub(crate) fn into_event(self) -> Result<RecordedEvent, AppError> {
        let details = RawValue::from_string(self.details).map_err(|e| {
            AppError::internal(format!("event {} has details that are not JSON: {e}", self.seq))
        })?;
        Ok(RecordedEvent {
            seq: self.seq,
            recorded_at: stamp(self.recorded_at),
            occurred_at: stamp(self.occurred_at),
            service: self.service,
            kind: self.kind,
            player_id: self.player_id,
            retailer_id: self.retailer_id,
            terminal: self.terminal,
            drawing: self.drawing,
            staff_id: self.staff_id,
            details,
            prev_hash: hex::encode(self.prev_hash),
            hash: hex::encode(self.hash),
        })
    }
}

/// The chain's last event (or, when every month of it is archived, the last sealed one's end).
#[derive(Debug, Clone)]
pub(crate) struct Head {
    pub seq: i64,
    pub hash: Vec<u8>,
    /// No event may be recorded before this.
    pub floor: DateTime<Utc>,
}

/// The head, read on `conn`.
pub(crate) async fn head(conn: &mut PgConnection) -> Result<Head, AppError> {
    let last = sqlx::query!("SELECT seq, hash, recorded_at FROM events.log ORDER BY seq DESC LIMIT 1")
        .fetch_optional(&mut *conn)
        .await?;
    let sealed =
        sqlx::query!("SELECT month, last_seq, last_hash FROM events.seals ORDER BY month DESC LIMIT 1")
            .fetch_optional(&mut *conn)
            .await?;
    let sealed_until = sealed.as_ref().map(|s| month_start(next_month(s.month)));
    let mut head = Head { seq: 0, hash: GENESIS.to_vec(), floor: DateTime::<Utc>::MIN_UTC };
    if let Some(seal) = &sealed {
        head.seq = seal.last_seq.unwrap_or(0);
        head.hash = seal.last_hash.clone();
    }
    if let Some(last) = last {
        if last.seq >= head.seq {
            head.seq = last.seq;
            head.hash = last.hash;
        }
        head.floor = last.recorded_at;
    }
    if let Some(until) = sealed_until {
        head.floor = head.floor.max(until);
    }
    Ok(head)
}

/// The first instant of `month` (its first day), UTC.
pub fn month_start(month: NaiveDate) -> DateTime<Utc> {
    month.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc()
}

/// The first day of the month after `month`'s.
pub fn next_month(month: NaiveDate) -> NaiveDate {
    let (year, number) =
        if month.month() == 12 { (month.year() + 1, 1) } else { (month.year(), month.month() + 1) };
    NaiveDate::from_ymd_opt(year, number, 1).unwrap_or(month)
}

/// The first day of `at`'s month.
pub fn month_of(at: DateTime<Utc>) -> NaiveDate {
    NaiveDate::from_ymd_opt(at.year(), at.month(), 1).unwrap_or_default()
}

/// Makes the partition of `month` when it does not exist (the chainer's lock held).
async fn ensure_partition(conn: &mut PgConnection, month: NaiveDate) -> Result<(), AppError> {
    let name = format!("log_{}", month.format("%Y_%m"));
    let exists: bool = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                           WHERE n.nspname = 'events' AND c.relname = $1) AS "exists!""#,
        name
    )
    .fetch_one(&mut *conn)
    .await?;
    if !exists {
        // Built from a date, so never anything but a name and two timestamps.
        let sql = format!(
            "CREATE TABLE events.{name} PARTITION OF events.log FOR VALUES FROM ('{}') TO ('{}')",
            month.format("%Y-%m-01 00:00:00+00"),
            next_month(month).format("%Y-%m-01 00:00:00+00"),
        );
        sqlx::query(&sql).execute(&mut *conn).await?;
        tracing::info!(partition = %name, "the significant-events log has a new month");
    }
    Ok(())
}

/// An event waiting for its place in the chain.
struct PendingRow {
    id: i64,
    occurred_at: DateTime<Utc>,
    service: String,
    kind: String,
    player_id: Option<Uuid>,
    retailer_id: Option<Uuid>,
    terminal: Option<String>,
    drawing: Option<String>,
    staff_id: Option<String>,
    details: String,
}

/// Each pending event's place after `head`, recorded at `recorded`: their ids, seqs, the
/// hashes before them and their own.
#[allow(clippy::type_complexity)]
fn links(
    pending: &[PendingRow],
    head: Head,
    recorded: &str,
) -> Result<(Vec<i64>, Vec<i64>, Vec<Vec<u8>>, Vec<Vec<u8>>), AppError> {
    let mut prev = head.hash;
    let (mut ids, mut seqs, mut prevs, mut hashes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (seq, row) in (head.seq + 1..).zip(pending.iter()) {
        let event = RecordedEvent {
            seq,
            recorded_at: recorded.to_owned(),
            occurred_at: stamp(row.occurred_at),
            service: row.service.clone(),
            kind: row.kind.clone(),
            player_id: row.player_id,
            retailer_id: row.retailer_id,
            terminal: row.terminal.clone(),
            drawing: row.drawing.clone(),
            staff_id: row.staff_id.clone(),
            details: RawValue::from_string(row.details.clone())
                .map_err(|e| AppError::internal(format!("pending event {} is not JSON: {e}", row.id)))?,
            prev_hash: String::new(),
            hash: String::new(),
        };
        let hash = event.hash_after(&prev).to_vec();
        ids.push(row.id);
        seqs.push(seq);
        prevs.push(std::mem::replace(&mut prev, hash.clone()));
        hashes.push(hash);
    }
    Ok((ids, seqs, prevs, hashes))
}

/// Chains up to [`BATCH`] pending events, oldest first, under the chain's lock; answers how
/// many (none when another process holds the lock: it is chaining them). They are recorded at
/// the database's time, or at `at` (a test's), never before the event before them.
pub async fn chain_pending(pool: &PgPool, at: Option<DateTime<Utc>>) -> Result<usize, AppError> {
    let mut tx = pool.begin().await?;
    let locked =
        sqlx::query_scalar!(r#"SELECT pg_try_advisory_xact_lock(hashtext('events.chain')) AS "locked!""#)
            .fetch_one(&mut *tx)
            .await?;
    if !locked {
        return Ok(0);
    }
    let pending = sqlx::query_as!(
        PendingRow,
        "SELECT id, occurred_at, service, kind, player_id, retailer_id, terminal, drawing, staff_id, details
           FROM events.pending ORDER BY id LIMIT $1",
        BATCH
    )
    .fetch_all(&mut *tx)
    .await?;
    if pending.is_empty() {
        return Ok(0);
    }
    let head = head(&mut tx).await?;
    let now = match at {
        Some(at) => at,
        None => sqlx::query_scalar!(r#"SELECT now() AS "now!""#).fetch_one(&mut *tx).await?,
    };
    // Never before the event before it, nor inside a sealed month: a clock moved backwards
    // (or a new primary's slower one) cannot put an event into history already closed.
    let recorded_at = now.max(head.floor);
    ensure_partition(&mut tx, month_of(recorded_at)).await?;
    let (ids, seqs, prevs, hashes) = links(&pending, head, &stamp(recorded_at))?;
    sqlx::query!(
        "WITH moved AS (DELETE FROM events.pending p USING UNNEST($1::bigint[], $2::bigint[], $3::bytea[], $4::bytea[])
                                AS c (id, seq, prev_hash, hash)
                          WHERE p.id = c.id
                      RETURNING c.seq, p.occurred_at, p.service, p.kind, p.player_id, p.retailer_id, p.terminal,
                                p.drawing, p.staff_id, p.details, c.prev_hash, c.hash)
         INSERT INTO events.log (seq, recorded_at, occurred_at, service, kind, player_id, retailer_id, terminal,
                                 drawing, staff_id, details, prev_hash, hash)
         SELECT seq, $5, occurred_at, service, kind, player_id, retailer_id, terminal, drawing, staff_id, details,
                prev_hash, hash
           FROM moved",
        &ids,
        &seqs,
        &prevs,
        &hashes,
        recorded_at,
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(pending.len())
}

/// Chains every pending event, batch after batch, until none is left (or another process holds
/// the lock); answers how many this call chained.
pub async fn chain_all(pool: &PgPool, at: Option<DateTime<Utc>>) -> Result<usize, AppError> {
    let mut total = 0;
    loop {
        let chained = chain_pending(pool, at).await?;
        total += chained;
        if i64::try_from(chained).is_ok_and(|n| n < BATCH) {
            return Ok(total);
        }
    }
}

/// Runs the chainer every `every` for as long as the process runs. Every process runs one; the
/// chain's lock lets one chain at a time, and a replica killed mid-batch leaves its batch pending
/// for the next.
pub fn spawn_chainer(pool: PgPool, every: Duration) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if let Err(e) = chain_all(&pool, None).await {
                tracing::warn!(error = %e, "chaining significant events failed; retrying");
            }
        }
    });
}

/// What a walk of the log found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LogCheck {
    /// Events checked (those in the database; archived months are checked from their files).
    pub events: i64,
    /// True when every event links to the one before, hashes to what is stored, and the first
    /// one kept follows the last archived month's seal.
    pub intact: bool,
    /// The first event that does not, if any.
    pub first_broken_seq: Option<i64>,
    /// The first and last events in the database.
    pub first_seq: Option<i64>,
    pub head_seq: Option<i64>,
    /// The last event's hash (hex): publish it, and the history before it cannot change.
    pub head_hash: Option<String>,
    /// Months sealed, and of them archived and dropped from the database.
    pub sealed_months: i64,
    pub archived_months: i64,
    /// Events recorded but not chained yet, and when the oldest of them happened.
    pub pending: i64,
    pub oldest_pending_at: Option<DateTime<Utc>>,
    /// True when the walk reached the chain's head; false when it stopped at its limit, to go
    /// on after `head_seq`.
    pub complete: bool,
}

/// The first and last events kept in the database, if any.
pub async fn kept_range(pool: &PgPool) -> Result<Option<(i64, i64)>, AppError> {
    let range =
        sqlx::query!(r#"SELECT min(seq) AS first, max(seq) AS last FROM events.log"#).fetch_one(pool).await?;
    Ok(range.first.zip(range.last))
}

/// Walks the log from its first event kept to its last, recomputing every hash, and checks each
/// seal against the events it sealed.
pub async fn verify(pool: &PgPool) -> Result<LogCheck, AppError> {
    verify_part(pool, None, i64::MAX).await
}

impl LogCheck {
    /// A walk not yet begun, knowing the seals and what waits to be chained.
    async fn opening(pool: &PgPool, sealed: usize, archived: usize) -> Result<LogCheck, AppError> {
        let pending =
            sqlx::query!(r#"SELECT count(*) AS "count!", min(occurred_at) AS oldest FROM events.pending"#)
                .fetch_one(pool)
                .await?;
        Ok(LogCheck {
            events: 0,
            intact: true,
            first_broken_seq: None,
            first_seq: None,
            head_seq: None,
            head_hash: None,
            sealed_months: i64::try_from(sealed).unwrap_or(i64::MAX),
            archived_months: i64::try_from(archived).unwrap_or(i64::MAX),
            pending: pending.count,
            oldest_pending_at: pending.oldest,
            complete: false,
        })
    }
}

/// The first event a walk checks and the hash it must follow: after `after`, or where the
/// kept events begin (after the last archived month, or at the start).
async fn walk_start(
    pool: &PgPool,
    archived_end: Option<(i64, Vec<u8>)>,
    after: Option<i64>,
) -> Result<(i64, Vec<u8>), AppError> {
    let Some(after) = after else { return Ok(archived_end.unwrap_or((1, GENESIS.to_vec()))) };
    match sqlx::query_scalar!("SELECT hash FROM events.log WHERE seq = $1", after)
        .fetch_optional(pool)
        .await?
    {
        Some(hash) => Ok((after + 1, hash)),
        None => Err(AppError::not_found(
            crate::codes::EVENT_NOT_FOUND,
            format!("event {after} is not in the log (archived, or not recorded yet)"),
        )),
    }
}

/// [`verify`] of at most `most` events, after event `after` (whose stored hash the next must
/// follow) or from the first kept: a walk an API request can make within its time, continued
/// by the next request from where it stopped.
pub async fn verify_part(pool: &PgPool, after: Option<i64>, most: i64) -> Result<LogCheck, AppError> {
    let seals = sqlx::query!(
        "SELECT month, first_seq, last_seq, prev_hash, last_hash, dropped_at FROM events.seals ORDER BY month"
    )
    .fetch_all(pool)
    .await?;
    let mut check =
        LogCheck::opening(pool, seals.len(), seals.iter().filter(|s| s.dropped_at.is_some()).count()).await?;
    // Where the kept events begin: after the last archived month, or at the start.
    let archived_end = seals
        .iter()
        .rfind(|s| s.dropped_at.is_some())
        .map(|s| (s.last_seq.unwrap_or(0) + 1, s.last_hash.clone()));
    let (mut expected_seq, mut expected_prev) = walk_start(pool, archived_end, after).await?;
    let mut seal_ends = seals
        .iter()
        .filter(|s| s.dropped_at.is_none())
        .filter_map(|s| s.last_seq.map(|seq| (seq, s.last_hash.clone())))
        .collect::<std::collections::HashMap<_, _>>();
    let sql = format!("SELECT {LOG_COLUMNS} FROM events.log WHERE seq >= $1 ORDER BY seq LIMIT 10000");
    loop {
        if check.events >= most {
            return Ok(check);
        }
        let rows: Vec<LogRow> = sqlx::query_as(&sql).bind(expected_seq).fetch_all(pool).await?;
        if rows.is_empty() {
            break;
        }
        for row in rows {
            let seq = row.seq;
            check.first_seq.get_or_insert(seq);
            let stored_prev = row.prev_hash.clone();
            let stored_hash = row.hash.clone();
            let event = row.into_event()?;
            let sealed_end_differs = seal_ends.remove(&seq).is_some_and(|sealed| sealed != stored_hash);
            if seq != expected_seq
                || stored_prev != expected_prev
                || event.hash_after(&stored_prev)[..] != stored_hash[..]
                || sealed_end_differs
            {
                check.intact = false;
                check.first_broken_seq = Some(expected_seq.min(seq));
                return Ok(check);
            }
            check.events += 1;
            check.head_seq = Some(seq);
            check.head_hash = Some(event.hash);
            expected_seq = seq + 1;
            expected_prev = stored_hash;
        }
    }
    check.complete = true;
    // A seal whose last event is not in the log (and not archived) sealed something now missing.
    if let Some(missing) = seal_ends.keys().filter(|seq| after.is_none_or(|a| **seq > a)).min() {
        check.intact = false;
        check.first_broken_seq = Some(*missing);
    }
    Ok(check)
}
