//! Finding events: by player, retailer, terminal, drawing, member of staff, kind and period, a
//! page at a time in the chain's order.

use chrono::{DateTime, Utc};
use sqlx::{PgPool, Postgres, QueryBuilder};
use uuid::Uuid;

use super::Kind;
use super::chain::{LOG_COLUMNS, LogRow, RecordedEvent};
use crate::AppError;

/// What to find: every field narrows; none finds every event.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub player: Option<Uuid>,
    pub retailer: Option<Uuid>,
    pub terminal: Option<String>,
    pub drawing: Option<String>,
    pub staff: Option<String>,
    pub kind: Option<Kind>,
    /// Events that happened at or after this...
    pub from: Option<DateTime<Utc>>,
    /// ...and before this.
    pub to: Option<DateTime<Utc>>,
}

/// Up to `limit` events matching `filter` after `after` (a `seq`), in the chain's order.
///
/// Built rather than written out: each subject has its own partial index, and a statement with
/// every filter optional (`$1 IS NULL OR player_id = $1`) would be planned once for all of them
/// and use none. Every value is a bind parameter.
pub async fn find(
    pool: &PgPool,
    filter: &Filter,
    after: i64,
    limit: i64,
) -> Result<Vec<RecordedEvent>, AppError> {
    let mut sql: QueryBuilder<Postgres> =
        QueryBuilder::new(format!("SELECT {LOG_COLUMNS} FROM events.log WHERE seq > "));
    sql.push_bind(after);
    if let Some(player) = filter.player {
        sql.push(" AND player_id = ").push_bind(player);
    }
    if let Some(retailer) = filter.retailer {
        sql.push(" AND retailer_id = ").push_bind(retailer);
    }
    if let Some(terminal) = &filter.terminal {
        sql.push(" AND terminal = ").push_bind(terminal.clone());
    }
    if let Some(drawing) = &filter.drawing {
        sql.push(" AND drawing = ").push_bind(drawing.clone());
    }
    if let Some(staff) = &filter.staff {
        sql.push(" AND staff_id = ").push_bind(staff.clone());
    }
    if let Some(kind) = filter.kind {
        sql.push(" AND kind = ").push_bind(kind.as_str());
    }
    if let Some(from) = filter.from {
        // An event is recorded no sooner than it happened: the bound on `recorded_at` lets
        // Postgres skip the months before.
        sql.push(" AND occurred_at >= ").push_bind(from);
        sql.push(" AND recorded_at >= ").push_bind(from);
    }
    if let Some(to) = filter.to {
        sql.push(" AND occurred_at < ").push_bind(to);
    }
    sql.push(" ORDER BY seq LIMIT ").push_bind(limit);
    let rows: Vec<LogRow> = sql.build_query_as().fetch_all(pool).await?;
    rows.into_iter().map(LogRow::into_event).collect()
}

/// The hash before event `first` and the hash of event `last` (hex), when both are in the log.
pub async fn ends(pool: &PgPool, first: i64, last: i64) -> Result<Option<(String, String)>, AppError> {
    let prev = sqlx::query_scalar!("SELECT prev_hash FROM events.log WHERE seq = $1", first)
        .fetch_optional(pool)
        .await?;
    let hash =
        sqlx::query_scalar!("SELECT hash FROM events.log WHERE seq = $1", last).fetch_optional(pool).await?;
    Ok(prev.zip(hash).map(|(prev, hash)| (hex::encode(prev), hex::encode(hash))))
}
