//! Keeping ten years (ADR 0019): a month of the log sealed once it is over, archived to a file
//! the operator keeps, dropped from the database, and restored from the file when it is needed
//! again, the chain never rewritten.
//!
//! Months are UTC months of `recorded_at`, each its own partition. Because `recorded_at` never
//! goes backwards and the chainer never records into a sealed month, a month's events are one
//! run of `seq`, and once the month is over nothing can join it: its seal (first and last event,
//! the hash before and the last hash) is final.

use std::io::Write;

use chrono::{NaiveDate, Utc};
use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use super::chain::{GENESIS, month_start, next_month};
use super::export::{self, FileCheck, Format, Header};
use super::{Event, Kind};
use crate::AppError;
use crate::codes;

/// A month's seal, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Seal {
    pub month: NaiveDate,
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub events: i64,
    pub prev_hash: String,
    pub last_hash: String,
    pub archive_sha256: Option<String>,
    pub dropped: bool,
}

/// The seals, oldest month first.
pub async fn seals(pool: &PgPool) -> Result<Vec<Seal>, AppError> {
    let rows = sqlx::query!(
        "SELECT month, first_seq, last_seq, events, prev_hash, last_hash, archive_sha256, dropped_at
           FROM events.seals ORDER BY month"
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Seal {
            month: r.month,
            first_seq: r.first_seq,
            last_seq: r.last_seq,
            events: r.events,
            prev_hash: hex::encode(r.prev_hash),
            last_hash: hex::encode(r.last_hash),
            archive_sha256: r.archive_sha256.map(hex::encode),
            dropped: r.dropped_at.is_some(),
        })
        .collect())
}

/// Seals `month` (its first day): refused before the month is over (at the database's time, or
/// at `at`, a test's), when the month before it holds events and is not sealed, and when it is
/// sealed already.
pub async fn seal(
    pool: &PgPool,
    service: &str,
    month: NaiveDate,
    at: Option<chrono::DateTime<Utc>>,
) -> Result<Seal, AppError> {
    let mut tx = pool.begin().await?;
    // The chainer's lock: nothing is recorded while the seal is taken.
    sqlx::query!("SELECT pg_advisory_xact_lock(hashtext('events.chain'))").execute(&mut *tx).await?;
    let now = match at {
        Some(at) => at,
        None => sqlx::query_scalar!(r#"SELECT now() AS "now!""#).fetch_one(&mut *tx).await?,
    };
    let (start, end) = (month_start(month), month_start(next_month(month)));
    refuse_unless_sealable(&mut tx, month, now).await?;
    let ends = sqlx::query!(
        r#"SELECT min(seq) AS first, max(seq) AS last, count(*) AS "events!"
             FROM events.log WHERE recorded_at >= $1 AND recorded_at < $2"#,
        start,
        end
    )
    .fetch_one(&mut *tx)
    .await?;
    let (prev_hash, last_hash) = match (ends.first, ends.last) {
        (Some(first), Some(last)) => (
            sqlx::query_scalar!("SELECT prev_hash FROM events.log WHERE seq = $1", first)
                .fetch_one(&mut *tx)
                .await?,
            sqlx::query_scalar!("SELECT hash FROM events.log WHERE seq = $1", last)
                .fetch_one(&mut *tx)
                .await?,
        ),
        _ => {
            let head = super::chain::head(&mut tx).await?;
            let hash = if head.seq == 0 { GENESIS.to_vec() } else { head.hash };
            (hash.clone(), hash)
        }
    };
    sqlx::query!(
        "INSERT INTO events.seals (month, first_seq, last_seq, events, prev_hash, last_hash)
         VALUES ($1, $2, $3, $4, $5, $6)",
        month,
        ends.first,
        ends.last,
        ends.events,
        prev_hash,
        last_hash
    )
    .execute(&mut *tx)
    .await?;
    let seal = Seal {
        month,
        first_seq: ends.first,
        last_seq: ends.last,
        events: ends.events,
        prev_hash: hex::encode(&prev_hash),
        last_hash: hex::encode(&last_hash),
        archive_sha256: None,
        dropped: false,
    };
    super::record(
        &mut tx,
        service,
        &Event::new(Kind::LogArchive, &Action { action: "sealed", seal: &seal })?,
    )
    .await?;
    tx.commit().await?;
    Ok(seal)
}

/// Refuses to seal `month` at `now` before it is over, when it or a later month is sealed, and
/// when an earlier month holds events and is not sealed.
async fn refuse_unless_sealable(
    tx: &mut sqlx::PgConnection,
    month: NaiveDate,
    now: chrono::DateTime<Utc>,
) -> Result<(), AppError> {
    let (start, end) = (month_start(month), month_start(next_month(month)));
    if now < end {
        return Err(AppError::conflict(
            codes::MONTH_NOT_OVER,
            format!(
                "{} is not over: a month is sealed once nothing more can be recorded in it",
                month.format("%Y-%m")
            ),
        ));
    }
    let sealed = sqlx::query_scalar!("SELECT month FROM events.seals WHERE month >= $1 LIMIT 1", month)
        .fetch_optional(&mut *tx)
        .await?;
    if let Some(sealed) = sealed {
        return Err(AppError::conflict(
            codes::MONTH_SEALED,
            format!("{} is sealed already (months are sealed in order)", sealed.format("%Y-%m")),
        ));
    }
    let earlier = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM events.log WHERE recorded_at < $1
                           AND recorded_at >= coalesce((SELECT max(month) + interval '1 month' FROM events.seals),
                                                       '-infinity')) AS "earlier!""#,
        start
    )
    .fetch_one(&mut *tx)
    .await?;
    if earlier {
        return Err(AppError::conflict(
            codes::MONTH_SEALED,
            "a month before this one holds events and is not sealed: months are sealed in order",
        ));
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct Action<'a> {
    action: &'a str,
    seal: &'a Seal,
}

/// Writes sealed `month` to `file` as a JSON-lines export, reads the file back and checks it
/// against the seal, then drops the month's partition; answers the file's SHA-256. The file is
/// the only copy after: the operator keeps it (ADR 0019 says where).
pub async fn archive(
    pool: &PgPool,
    service: &str,
    month: NaiveDate,
    file: &std::path::Path,
) -> Result<String, AppError> {
    let seal = seals(pool).await?.into_iter().find(|s| s.month == month).ok_or_else(|| {
        AppError::conflict(codes::MONTH_NOT_SEALED, format!("{} is not sealed", month.format("%Y-%m")))
    })?;
    if seal.dropped {
        return Err(AppError::conflict(
            codes::MONTH_SEALED,
            format!("{} is archived already", month.format("%Y-%m")),
        ));
    }
    let header = export::plan(pool, month_start(month), month_start(next_month(month))).await?;
    if header.first_seq != seal.first_seq
        || header.last_seq != seal.last_seq
        || header.last_hash != seal.last_hash
    {
        return Err(AppError::internal(format!("{} no longer matches its seal", month.format("%Y-%m"))));
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(file).map_err(AppError::internal)?);
    let mut digest = Sha256::new();
    let mut chunks = std::pin::pin!(export::stream(pool.clone(), &header, Format::Jsonl));
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(AppError::internal)?;
        digest.update(&chunk);
        out.write_all(&chunk).map_err(AppError::internal)?;
    }
    out.into_inner().map_err(AppError::internal)?.sync_all().map_err(AppError::internal)?;
    let sha256 = hex::encode(digest.finalize());
    let check = check_file(file)?;
    if !matches_seal(&check, &seal) {
        return Err(AppError::internal(format!(
            "the file written does not check against the seal: {check:?}"
        )));
    }
    let mut tx = pool.begin().await?;
    sqlx::query!("SELECT pg_advisory_xact_lock(hashtext('events.chain'))").execute(&mut *tx).await?;
    let name = format!("log_{}", month.format("%Y_%m"));
    // From a date: a name, never SQL.
    sqlx::query(&format!("DROP TABLE IF EXISTS events.{name}")).execute(&mut *tx).await?;
    sqlx::query!(
        "UPDATE events.seals SET archive_sha256 = $2, dropped_at = now() WHERE month = $1",
        month,
        hex::decode(&sha256).map_err(AppError::internal)?
    )
    .execute(&mut *tx)
    .await?;
    #[derive(serde::Serialize)]
    struct Archived<'a> {
        action: &'a str,
        month: String,
        events: i64,
        sha256: &'a str,
    }
    let archived = Archived {
        action: "archived",
        month: month.format("%Y-%m").to_string(),
        events: seal.events,
        sha256: &sha256,
    };
    super::record(&mut tx, service, &Event::new(Kind::LogArchive, &archived)?).await?;
    tx.commit().await?;
    Ok(sha256)
}

/// Checks the JSON-lines export at `file`.
pub fn check_file(file: &std::path::Path) -> Result<FileCheck, AppError> {
    let reader =
        std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(file).map_err(AppError::internal)?);
    export::check_jsonl(reader).map_err(AppError::internal)
}

fn matches_seal(check: &FileCheck, seal: &Seal) -> bool {
    check.intact
        && check.events == seal.events
        && check.first_seq == seal.first_seq
        && check.last_seq == seal.last_seq
        && check.prev_hash.as_deref() == Some(seal.prev_hash.as_str())
        && check.last_hash.as_deref() == Some(seal.last_hash.as_str())
}

/// Puts an archived month back from its file, after checking the file against the month's seal
/// (and its SHA-256 against the one recorded when it was archived); it can then be queried and
/// verified as before, and archived again.
pub async fn restore(pool: &PgPool, service: &str, file: &std::path::Path) -> Result<Seal, AppError> {
    let check = check_file(file)?;
    let month = month_of_file(file)?;
    let seal = seals(pool).await?.into_iter().find(|s| s.month == month && s.dropped).ok_or_else(|| {
        AppError::conflict(
            codes::MONTH_NOT_SEALED,
            format!("{} is not an archived month", month.format("%Y-%m")),
        )
    })?;
    let sha256 = {
        let mut digest = Sha256::new();
        let mut reader = std::fs::File::open(file).map_err(AppError::internal)?;
        std::io::copy(&mut reader, &mut digest).map_err(AppError::internal)?;
        hex::encode(digest.finalize())
    };
    if !matches_seal(&check, &seal) || seal.archive_sha256.as_deref() != Some(sha256.as_str()) {
        return Err(AppError::unprocessable(
            codes::ARCHIVE_MISMATCH,
            format!("the file is not {}'s archive as sealed: {check:?}", month.format("%Y-%m")),
        ));
    }
    let mut tx = pool.begin().await?;
    sqlx::query!("SELECT pg_advisory_xact_lock(hashtext('events.chain'))").execute(&mut *tx).await?;
    let name = format!("log_{}", month.format("%Y_%m"));
    sqlx::query(&format!(
        "CREATE TABLE events.{name} PARTITION OF events.log FOR VALUES FROM ('{}') TO ('{}')",
        month.format("%Y-%m-01 00:00:00+00"),
        next_month(month).format("%Y-%m-01 00:00:00+00"),
    ))
    .execute(&mut *tx)
    .await?;
    put_back(&mut tx, file).await?;
    sqlx::query!("UPDATE events.seals SET dropped_at = NULL, archive_sha256 = NULL WHERE month = $1", month)
        .execute(&mut *tx)
        .await?;
    #[derive(serde::Serialize)]
    struct Restored {
        action: &'static str,
        month: String,
        events: i64,
        sha256: String,
    }
    let restored = Restored {
        action: "restored",
        month: month.format("%Y-%m").to_string(),
        events: seal.events,
        sha256,
    };
    super::record(&mut tx, service, &Event::new(Kind::LogArchive, &restored)?).await?;
    tx.commit().await?;
    Ok(Seal { dropped: false, archive_sha256: None, ..seal })
}

/// The month an archive's header says it holds.
fn month_of_file(file: &std::path::Path) -> Result<NaiveDate, AppError> {
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(std::fs::File::open(file).map_err(AppError::internal)?),
        &mut first,
    )
    .map_err(AppError::internal)?;
    let header: Header = serde_json::from_str(&first).map_err(|e| {
        AppError::unprocessable(codes::ARCHIVE_MISMATCH, format!("the file is not an export: {e}"))
    })?;
    chrono::DateTime::parse_from_rfc3339(&header.from)
        .map(|from| super::chain::month_of(from.with_timezone(&Utc)))
        .map_err(|e| AppError::unprocessable(codes::ARCHIVE_MISMATCH, format!("the header's from: {e}")))
}

/// Every event of the archive at `file` put back into the log, 5,000 at a time.
async fn put_back(tx: &mut sqlx::PgConnection, file: &std::path::Path) -> Result<(), AppError> {
    let reader =
        std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(file).map_err(AppError::internal)?);
    let mut batch = Vec::new();
    for line in std::io::BufRead::lines(reader).skip(1) {
        let event: super::chain::RecordedEvent =
            serde_json::from_str(&line.map_err(AppError::internal)?).map_err(AppError::internal)?;
        batch.push(event);
        if batch.len() == 5_000 {
            insert(tx, &std::mem::take(&mut batch)).await?;
        }
    }
    insert(tx, &batch).await
}

/// Puts `events` (read from an archive) back into the log as they were.
async fn insert(
    conn: &mut sqlx::PgConnection,
    events: &[super::chain::RecordedEvent],
) -> Result<(), AppError> {
    if events.is_empty() {
        return Ok(());
    }
    let time = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text).map(|t| t.with_timezone(&Utc)).map_err(AppError::internal)
    };
    let hex = |text: &str| hex::decode(text).map_err(AppError::internal);
    let mut columns = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for e in events {
        columns.0.push(e.seq);
        columns.1.push(time(&e.recorded_at)?);
        columns.2.push(time(&e.occurred_at)?);
        columns.3.push(e.service.clone());
        columns.4.push(e.kind.clone());
        columns.5.push(e.player_id);
        columns.6.push(e.retailer_id);
        columns.7.push(e.terminal.clone());
        columns.8.push(e.drawing.clone());
        columns.9.push(e.staff_id.clone());
        columns.10.push(e.details.get().to_owned());
        columns.11.push(hex(&e.prev_hash)?);
        columns.12.push(hex(&e.hash)?);
    }
    sqlx::query!(
        "INSERT INTO events.log (seq, recorded_at, occurred_at, service, kind, player_id, retailer_id, terminal,
                                 drawing, staff_id, details, prev_hash, hash)
         SELECT * FROM UNNEST($1::bigint[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[],
                              $6::uuid[], $7::uuid[], $8::text[], $9::text[], $10::text[], $11::text[],
                              $12::bytea[], $13::bytea[])",
        &columns.0,
        &columns.1,
        &columns.2,
        &columns.3,
        &columns.4,
        &columns.5 as &[Option<uuid::Uuid>],
        &columns.6 as &[Option<uuid::Uuid>],
        &columns.7 as &[Option<String>],
        &columns.8 as &[Option<String>],
        &columns.9 as &[Option<String>],
        &columns.10,
        &columns.11,
        &columns.12,
    )
    .execute(conn)
    .await?;
    Ok(())
}
