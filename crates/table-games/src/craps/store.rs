//! Every SQL statement of craps: sessions (the domain's session as stored, a roll pending) and
//! the rolls. Nothing else in the game writes SQL.

use chrono::{DateTime, Utc};
use domain::craps::session::{Change, RollReport, Session};
use platform::AppError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use crate::{from_json, json_of};

/// The money one request moves, by leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = CrapsMoney)]
pub struct Money {
    /// New bets (and additions) from the wallet into escrow.
    pub staked_cents: i64,
    /// Bets taken down or reduced, back to the wallet.
    pub taken_down_cents: i64,
    /// Buy and lay commissions paid (negative: returned with a bet taken down).
    pub commission_cents: i64,
    /// Stakes of bets the roll won or pushed, back to the wallet.
    pub returned_cents: i64,
    /// Stakes of bets the roll lost, to the house.
    pub lost_cents: i64,
    /// Winnings, from the house.
    pub winnings_cents: i64,
}

/// A request recorded under the session's lock before its money moves.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pending {
    pub key: String,
    pub seq: i32,
    pub changes: Vec<Change>,
    pub report: Option<RollReport>,
    pub next: Session,
    pub money: Money,
}

impl Money {
    /// What the request did to the wallet, in all (negative: it took more than it paid).
    pub fn wallet_change(&self) -> i64 {
        self.taken_down_cents
            .saturating_add(self.returned_cents)
            .saturating_add(self.winnings_cents)
            .saturating_sub(self.staked_cents)
            .saturating_sub(self.commission_cents)
    }
}

#[derive(Debug, Clone)]
pub struct StoredSession {
    pub id: Uuid,
    pub player_id: String,
    pub wallet: Uuid,
    pub session: Session,
    pub rolls: i32,
    /// Requests recorded: the next one's `seq`.
    pub requests: i32,
    pub pending: Option<Pending>,
    pub created_at: DateTime<Utc>,
}

impl StoredSession {
    fn from_row(row: &PgRow) -> Result<Self, AppError> {
        Ok(StoredSession {
            id: row.try_get("id")?,
            player_id: row.try_get("player_id")?,
            wallet: row.try_get("wallet_account_id")?,
            session: from_json(row.try_get("session")?)?,
            rolls: row.try_get("rolls")?,
            requests: row.try_get("requests")?,
            pending: row.try_get::<Option<Value>, _>("pending")?.map(from_json).transpose()?,
            created_at: row.try_get("created_at")?,
        })
    }
}

/// A request as recorded, with its roll if it threw one.
#[derive(Debug, Clone)]
pub struct StoredRoll {
    pub session_id: Uuid,
    pub seq: i32,
    pub changes: Vec<Change>,
    pub report: Option<RollReport>,
    pub money: Money,
    pub balance_before_cents: i64,
    pub balance_after_cents: i64,
    pub created_at: DateTime<Utc>,
}

impl StoredRoll {
    fn from_row(row: &PgRow) -> Result<Self, AppError> {
        Ok(StoredRoll {
            session_id: row.try_get("session_id")?,
            seq: row.try_get("seq")?,
            changes: from_json(row.try_get("changes")?)?,
            report: row.try_get::<Option<Value>, _>("report")?.map(from_json).transpose()?,
            money: from_json(row.try_get("money")?)?,
            balance_before_cents: row.try_get("balance_before_cents")?,
            balance_after_cents: row.try_get("balance_after_cents")?,
            created_at: row.try_get("created_at")?,
        })
    }
}

const SESSION_COLUMNS: &str = "id, player_id, wallet_account_id, session, rolls, requests, pending, created_at";
const ROLL_COLUMNS: &str =
    "session_id, seq, changes, report, money, balance_before_cents, balance_after_cents, created_at";

pub async fn insert_session(
    pool: &PgPool,
    id: Uuid,
    player: &str,
    wallet: Uuid,
    session: &Session,
) -> Result<(), AppError> {
    sqlx::query(
        "INSERT INTO craps_sessions (id, player_id, wallet_account_id, session) VALUES ($1, $2, $3, $4)",
    )
    .bind(id)
    .bind(player)
    .bind(wallet)
    .bind(json_of(session)?)
    .execute(pool)
    .await?;
    Ok(())
}

/// Session `id`, locked for the caller's transaction when `lock`.
pub async fn load_session(
    conn: &mut PgConnection,
    id: Uuid,
    lock: bool,
) -> Result<Option<StoredSession>, AppError> {
    let lock = if lock { " FOR UPDATE" } else { "" };
    sqlx::query(&format!("SELECT {SESSION_COLUMNS} FROM craps_sessions WHERE id = $1{lock}"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(StoredSession::from_row)
        .transpose()
}

/// Claims session `id` for `pending`, if no request is pending and none has been recorded since
/// the session was read (`pending.seq` is the count it read); answers whether it did.
pub async fn claim(conn: &mut PgConnection, id: Uuid, pending: &Pending) -> Result<bool, AppError> {
    Ok(sqlx::query(
        "UPDATE craps_sessions SET pending = $2, updated_at = now()
          WHERE id = $1 AND pending IS NULL AND requests = $3",
    )
    .bind(id)
    .bind(json_of(pending)?)
    .bind(pending.seq)
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// Forgets the request pending under `key` (its money was refused: nothing moved).
pub async fn clear_pending(pool: &PgPool, id: Uuid, key: &str) -> Result<(), AppError> {
    sqlx::query(
        "UPDATE craps_sessions SET pending = NULL, updated_at = now() WHERE id = $1 AND pending->>'key' = $2",
    )
    .bind(id)
    .bind(key)
    .execute(pool)
    .await?;
    Ok(())
}

/// A pending request whose money has moved, to be written as done.
#[derive(Debug, Clone)]
pub struct Finished {
    pub session: Uuid,
    pub pending: Pending,
    /// The wallet just after the request's ledger batch.
    pub balance_after: i64,
    /// When it is recorded (to the microsecond Postgres keeps, so the answer now and a replay's
    /// are the same).
    pub at: DateTime<Utc>,
}

/// The pending request done, if it is still the session's pending one: the session moved on and
/// the request recorded (the wallet before it is the wallet after, less what it moved). Answers
/// whether this call did it.
pub async fn write_finished(conn: &mut PgConnection, finished: &Finished) -> Result<bool, AppError> {
    let pending = &finished.pending;
    let player: Option<String> = sqlx::query_scalar(
        "UPDATE craps_sessions SET session = $2, rolls = rolls + $3, requests = requests + 1, pending = NULL,
                updated_at = now()
          WHERE id = $1 AND pending->>'key' = $4 RETURNING player_id",
    )
    .bind(finished.session)
    .bind(json_of(&pending.next)?)
    .bind(i32::from(pending.report.is_some()))
    .bind(&pending.key)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(player) = player else { return Ok(false) };
    sqlx::query(
        "INSERT INTO craps_rolls (session_id, seq, key, player_id, changes, report, money, balance_before_cents,
                                  balance_after_cents, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(finished.session)
    .bind(pending.seq)
    .bind(&pending.key)
    .bind(&player)
    .bind(json_of(&pending.changes)?)
    .bind(pending.report.as_ref().map(json_of).transpose()?)
    .bind(json_of(&pending.money)?)
    .bind(finished.balance_after.saturating_sub(pending.money.wallet_change()))
    .bind(finished.balance_after)
    .bind(finished.at)
    .execute(conn)
    .await?;
    Ok(true)
}

/// The request a session recorded under `key`.
pub async fn roll_by_key(pool: &PgPool, session: Uuid, key: &str) -> Result<Option<StoredRoll>, AppError> {
    sqlx::query(&format!("SELECT {ROLL_COLUMNS} FROM craps_rolls WHERE session_id = $1 AND key = $2"))
        .bind(session)
        .bind(key)
        .fetch_optional(pool)
        .await?
        .as_ref()
        .map(StoredRoll::from_row)
        .transpose()
}

/// The player's last `limit` rolls (requests that threw the dice), newest first.
pub async fn recent_rolls(pool: &PgPool, player: &str, limit: i64) -> Result<Vec<StoredRoll>, AppError> {
    sqlx::query(&format!(
        "SELECT {ROLL_COLUMNS} FROM craps_rolls WHERE player_id = $1 AND report IS NOT NULL
          ORDER BY created_at DESC, seq DESC LIMIT $2"
    ))
    .bind(player)
    .bind(limit)
    .fetch_all(pool)
    .await?
    .iter()
    .map(StoredRoll::from_row)
    .collect()
}

/// Sessions with a request left pending for longer than `$1` seconds.
pub const STUCK: &str = "SELECT id FROM craps_sessions WHERE pending IS NOT NULL
  AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500";
