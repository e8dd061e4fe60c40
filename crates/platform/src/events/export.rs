//! Exports of the log: every event recorded in a period, as JSON lines or CSV, streamed a page
//! at a time (a ten-year range holds no more memory than a minute's), stating the range and the
//! chain's hashes at both ends, and the check `lotto verify-events` makes of such a file.
//!
//! A JSON-lines export is a header line ([`Header`]) and one [`RecordedEvent`] per line. A CSV
//! export has a header row and one row per event with the same columns, `details` being the JSON
//! text; its first row's `prev_hash` and last row's `hash` are the ends of its range.

use std::io::BufRead;

use axum::body::Bytes;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;

use super::chain::{GENESIS, LOG_COLUMNS, LogRow, RecordedEvent, head, stamp};
use crate::AppError;

/// Events read and written per page.
const PAGE: i64 = 1_000;

/// The first line of a JSON-lines export: what it holds and the chain at both ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Header {
    /// Always `significant-events`.
    pub export: String,
    /// The period asked for: events recorded at or after `from` and before `to` (UTC).
    pub from: String,
    pub to: String,
    /// The first and last event in it (none when it is empty).
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub events: i64,
    /// The hash of the event before the first (hex): where the range joins the chain.
    pub prev_hash: String,
    /// The last event's hash (the same as `prev_hash` when it is empty).
    pub last_hash: String,
    pub made_at: String,
}

/// The two formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = ExportFormat)]
pub enum Format {
    Jsonl,
    Csv,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Jsonl => "application/jsonl",
            Format::Csv => "text/csv; charset=utf-8",
        }
    }
}

/// The CSV header row.
pub const CSV_COLUMNS: &str = "seq,recorded_at,occurred_at,service,kind,player_id,retailer_id,terminal,drawing,staff_id,details,prev_hash,hash";

/// Finds the range of the chain recorded in `[from, to)`: its ends and their hashes.
pub async fn plan(pool: &PgPool, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<Header, AppError> {
    let ends = sqlx::query!(
        r#"SELECT min(seq) AS first, max(seq) AS last, count(*) AS "events!"
             FROM events.log WHERE recorded_at >= $1 AND recorded_at < $2"#,
        from,
        to
    )
    .fetch_one(pool)
    .await?;
    let (prev_hash, last_hash) = match (ends.first, ends.last) {
        (Some(first), Some(last)) => {
            let prev = sqlx::query_scalar!(
                "SELECT prev_hash FROM events.log WHERE seq = $1 AND recorded_at >= $2",
                first,
                from
            )
            .fetch_one(pool)
            .await?;
            let last = sqlx::query_scalar!(
                "SELECT hash FROM events.log WHERE seq = $1 AND recorded_at < $2",
                last,
                to
            )
            .fetch_one(pool)
            .await?;
            (prev, last)
        }
        // An empty range joins the chain where the chain stood at its start.
        _ => {
            let before = sqlx::query_scalar!(
                "SELECT hash FROM events.log WHERE recorded_at < $1 ORDER BY seq DESC LIMIT 1",
                from
            )
            .fetch_optional(pool)
            .await?;
            let hash = match before {
                Some(hash) => hash,
                None => {
                    let mut conn = pool.acquire().await?;
                    let head = head(&mut conn).await?;
                    if head.seq == 0 { GENESIS.to_vec() } else { head.hash }
                }
            };
            (hash.clone(), hash)
        }
    };
    Ok(Header {
        export: "significant-events".to_owned(),
        from: stamp(from),
        to: stamp(to),
        first_seq: ends.first,
        last_seq: ends.last,
        events: ends.events,
        prev_hash: hex::encode(prev_hash),
        last_hash: hex::encode(last_hash),
        made_at: stamp(Utc::now()),
    })
}

/// The export of `header`'s range in `format`, a chunk per page: a stream whose memory is one
/// page, whatever the range. A failure mid-way ends the stream with an error, so the client sees
/// a broken download rather than a short file.
pub fn stream(
    pool: PgPool,
    header: &Header,
    format: Format,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let first = match format {
        Format::Jsonl => format!("{}\n", serde_json::to_string(header).unwrap_or_default()),
        Format::Csv => format!("{CSV_COLUMNS}\n"),
    };
    let start = Some((header.first_seq.unwrap_or(1), header.last_seq.unwrap_or(0)));
    let opening = futures_util::stream::once(async move { Ok(Bytes::from(first)) });
    let pages = futures_util::stream::unfold(start, move |state| {
        let pool = pool.clone();
        async move {
            let (next, last) = state?;
            if next > last {
                return None;
            }
            match page(&pool, next, last, format).await {
                Ok((chunk, after)) => Some((Ok(Bytes::from(chunk)), Some((after + 1, last)))),
                Err(e) => Some((Err(std::io::Error::other(e.to_string())), None)),
            }
        }
    });
    futures_util::StreamExt::chain(opening, pages)
}

/// The events `next..=last`, up to a page of them, written out; and the last one's seq.
async fn page(pool: &PgPool, next: i64, last: i64, format: Format) -> Result<(String, i64), AppError> {
    let sql =
        format!("SELECT {LOG_COLUMNS} FROM events.log WHERE seq >= $1 AND seq <= $2 ORDER BY seq LIMIT $3");
    let rows: Vec<LogRow> = sqlx::query_as(&sql).bind(next).bind(last).bind(PAGE).fetch_all(pool).await?;
    let Some(end) = rows.last().map(|r| r.seq) else {
        return Err(AppError::internal(format!("events {next} to {last} were in the range and are gone")));
    };
    let mut out = String::with_capacity(rows.len() * 400);
    for row in rows {
        let event = row.into_event()?;
        match format {
            Format::Jsonl => out.push_str(&serde_json::to_string(&event).map_err(AppError::internal)?),
            Format::Csv => csv_row(&mut out, &event),
        }
        out.push('\n');
    }
    Ok((out, end))
}

/// `event` as a CSV row (RFC 4180: a field with a comma, a quote or a line break is quoted, its
/// quotes doubled).
fn csv_row(out: &mut String, event: &RecordedEvent) {
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    let id = |value: Option<uuid::Uuid>| value.map(|v| v.to_string()).unwrap_or_default();
    let fields = [
        event.seq.to_string(),
        event.recorded_at.clone(),
        event.occurred_at.clone(),
        event.service.clone(),
        event.kind.clone(),
        id(event.player_id),
        id(event.retailer_id),
        text(&event.terminal),
        text(&event.drawing),
        text(&event.staff_id),
        event.details.get().to_owned(),
        event.prev_hash.clone(),
        event.hash.clone(),
    ];
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if field.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(field);
        }
    }
}

/// What checking an export found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FileCheck {
    /// True when every event follows the one before, hashes to what the file says, and the
    /// events, their count and the hashes at both ends are those the header states.
    pub intact: bool,
    /// Why not, the first thing found.
    pub problem: Option<String>,
    pub events: i64,
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    /// The hashes at both ends (hex), to compare with the chain's (the console does).
    pub prev_hash: Option<String>,
    pub last_hash: Option<String>,
}

/// Checks a JSON-lines export read from `reader`, a line at a time.
pub fn check_jsonl(reader: impl BufRead) -> Result<FileCheck, std::io::Error> {
    let mut lines = reader.lines();
    let mut check = FileCheck {
        intact: false,
        problem: None,
        events: 0,
        first_seq: None,
        last_seq: None,
        prev_hash: None,
        last_hash: None,
    };
    let header: Header = match lines.next().transpose()?.map(|l| serde_json::from_str(&l)) {
        Some(Ok(header)) => header,
        Some(Err(e)) => return Ok(check.broken(format!("line 1 is not an export's header: {e}"))),
        None => return Ok(check.broken("the file is empty".to_owned())),
    };
    let Ok(mut prev) = hex::decode(&header.prev_hash) else {
        return Ok(check.broken("the header's prev_hash is not hex".to_owned()));
    };
    check.prev_hash = Some(header.prev_hash.clone());
    let mut expected_seq = header.first_seq;
    for (number, line) in lines.enumerate() {
        let line = line?;
        let at = number + 2;
        let event: RecordedEvent = match serde_json::from_str(&line) {
            Ok(event) => event,
            Err(e) => return Ok(check.broken(format!("line {at} is not an event: {e}"))),
        };
        if expected_seq != Some(event.seq) {
            return Ok(
                check.broken(format!("line {at} is event {}, where {expected_seq:?} should be", event.seq))
            );
        }
        let hash = event.hash_after(&prev);
        if hex::encode(&prev) != event.prev_hash || hex::encode(hash) != event.hash {
            return Ok(
                check.broken(format!("event {} (line {at}) does not hash to what the file says", event.seq))
            );
        }
        check.events += 1;
        check.first_seq.get_or_insert(event.seq);
        check.last_seq = Some(event.seq);
        prev = hash.to_vec();
        expected_seq = Some(event.seq + 1);
    }
    check.last_hash = Some(hex::encode(&prev));
    let problem = if check.events != header.events {
        Some(format!("the header states {} events and the file has {}", header.events, check.events))
    } else if check.last_seq != header.last_seq {
        Some(format!("the header's last event is {:?} and the file's {:?}", header.last_seq, check.last_seq))
    } else if check.last_hash.as_deref() != Some(header.last_hash.as_str()) {
        Some("the last event's hash is not the header's".to_owned())
    } else {
        None
    };
    check.intact = problem.is_none();
    check.problem = problem;
    Ok(check)
}

impl FileCheck {
    fn broken(mut self, problem: String) -> FileCheck {
        self.intact = false;
        self.problem = Some(problem);
        self
    }
}
