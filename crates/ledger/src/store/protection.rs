//! Player protection's figures (ADR 0014): a wallet's money limits, set here as rows that each
//! apply from a time and read with what their windows have used, and its activity per day and
//! game. The stored function `create_transfers` counts the activity and enforces the limits in
//! the statement that debits a stake (`20261211000001_money_limits.sql`).

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use platform::codes;
use platform::events::{self, Event, Kind};
use sqlx::PgPool;
use uuid::Uuid;

use crate::model::{
    ActivityLine, ActivityTotals, LimitPeriod, LimitSource, MoneyLimit, MoneyLimitKind, Suspension, ValidLimitChange,
};

/// The `period` column of a limit: a single stake has none (`each`).
fn period_column(period: Option<LimitPeriod>) -> &'static str {
    period.map_or("each", LimitPeriod::as_str)
}

/// Locks wallet `account` for one change of its limits at a time (NO KEY UPDATE: transfers
/// naming the account take KEY SHARE locks, which this does not block); refuses an account that
/// is not a player's wallet. Answers its owner (the player, when the owner is a player's id).
async fn lock_players_wallet(tx: &mut sqlx::PgConnection, account: Uuid) -> Result<Option<Uuid>, AppError> {
    let wallet = sqlx::query!("SELECT kind, owner FROM accounts WHERE id = $1 FOR NO KEY UPDATE", account)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| AppError::not_found(codes::ACCOUNT_NOT_FOUND, format!("account {account} does not exist")))?;
    if wallet.kind != "player_wallet" {
        return Err(AppError::unprocessable(codes::INVALID_MONEY_LIMIT, "money limits are kept on players' wallets"));
    }
    Ok(wallet.owner.parse().ok())
}

/// A limit's change, as the significant-events log records it.
#[derive(Debug, serde::Serialize)]
struct LimitChanged<'a> {
    account: Uuid,
    kind: &'a str,
    period: &'a str,
    /// `player` or `operator`.
    source: &'a str,
    before_cents: Option<i64>,
    after_cents: Option<i64>,
    /// Seconds until it applies: 0 for a lowering or an operator's change.
    applies_in_seconds: i64,
}

impl<'a> LimitChanged<'a> {
    fn of(account: Uuid, change: &'a ValidLimitChange, in_force: Option<i64>, at_once: bool) -> Self {
        LimitChanged {
            account,
            kind: change.kind.as_str(),
            period: period_column(change.period),
            source: change.source.as_str(),
            before_cents: in_force,
            after_cents: change.cents,
            applies_in_seconds: if at_once { 0 } else { change.raise_delay_seconds },
        }
    }

    /// Records the change about `player` on `tx`, the transaction that makes it.
    async fn record(&self, tx: &mut sqlx::PgConnection, player: Option<Uuid>) -> Result<(), AppError> {
        let event = Event::new(Kind::LimitChange, self)?;
        let event = match player {
            Some(player) => event.player(player),
            None => event,
        };
        events::record(tx, crate::SCHEMA, &event).await
    }
}

/// Sets one limit of wallet `account`: a lowering (or an operator's change, or one with no
/// delay) applies at once and cancels a raise waiting; a raise or removal applies after the
/// delay, unless the same one already waits (its time is kept).
pub async fn set_limit(pool: &PgPool, account: Uuid, change: &ValidLimitChange) -> Result<(), AppError> {
    let (kind, period, source) =
        (change.kind.as_str(), period_column(change.period), change.source.as_str());
    let mut tx = pool.begin().await?;
    let player = lock_players_wallet(&mut tx, account).await?;
    let in_force = sqlx::query_scalar!(
        r#"SELECT cents AS "cents!" FROM limits_in_force($1) WHERE kind = $2 AND period = $3 AND source = $4"#,
        account,
        kind,
        period,
        source
    )
    .fetch_optional(&mut *tx)
    .await?;
    let lowers = match (in_force, change.cents) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(old), Some(new)) => new <= old,
    };
    let at_once = lowers || change.source == LimitSource::Operator || change.raise_delay_seconds == 0;
    if !at_once {
        let waiting = sqlx::query_scalar!(
            "SELECT cents FROM wallet_limits
              WHERE account_id = $1 AND kind = $2 AND period = $3 AND source = $4 AND effective_at > now()",
            account,
            kind,
            period,
            source
        )
        .fetch_all(&mut *tx)
        .await?;
        if waiting.len() == 1 && waiting[0] == change.cents {
            tx.commit().await?;
            return Ok(());
        }
    }
    sqlx::query!(
        "DELETE FROM wallet_limits
          WHERE account_id = $1 AND kind = $2 AND period = $3 AND source = $4 AND effective_at > now()",
        account,
        kind,
        period,
        source
    )
    .execute(&mut *tx)
    .await?;
    if !(at_once && in_force.is_none() && change.cents.is_none()) {
        let delay = if at_once { 0 } else { change.raise_delay_seconds };
        sqlx::query!(
            "INSERT INTO wallet_limits (account_id, kind, period, source, cents, effective_at)
             VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
             ON CONFLICT (account_id, kind, period, source, effective_at) DO UPDATE SET cents = excluded.cents",
            account,
            kind,
            period,
            source,
            change.cents,
            delay as f64
        )
        .execute(&mut *tx)
        .await?;
    }
    LimitChanged::of(account, change, in_force, at_once).record(&mut tx, player).await?;
    tx.commit().await?;
    Ok(())
}

/// A limit as read: its key, in force and waiting, and what its window holds now.
struct LimitRow {
    kind: String,
    period: String,
    source: String,
    cents: Option<i64>,
    pending_cents: Option<i64>,
    pending_from: Option<DateTime<Utc>>,
    staked: i64,
    won: i64,
    resets_at: Option<DateTime<Utc>>,
}

/// Wallet `account`'s money limits, each kind, period and source ever set, with what its
/// window has used now (as `create_transfers` counts it).
pub async fn limits(pool: &PgPool, account: Uuid) -> Result<Vec<MoneyLimit>, AppError> {
    let rows = sqlx::query_as!(
        LimitRow,
        r#"SELECT k.kind AS "kind!", k.period AS "period!", k.source AS "source!",
                  (SELECT l.cents FROM wallet_limits l
                    WHERE l.account_id = $1 AND l.kind = k.kind AND l.period = k.period AND l.source = k.source
                      AND l.effective_at <= now()
                    ORDER BY l.effective_at DESC LIMIT 1) AS cents,
                  p.cents AS pending_cents, p.effective_at AS "pending_from?",
                  u.staked AS "staked!", u.won AS "won!",
                  u.first_hour + limit_window(k.period) + interval '1 hour' AS resets_at
             FROM (SELECT DISTINCT l.kind, l.period, l.source FROM wallet_limits l WHERE l.account_id = $1) k
             LEFT JOIN LATERAL (SELECT l.cents, l.effective_at FROM wallet_limits l
                                 WHERE l.account_id = $1 AND l.kind = k.kind AND l.period = k.period
                                   AND l.source = k.source AND l.effective_at > now()
                                 ORDER BY l.effective_at DESC LIMIT 1) p ON true
            CROSS JOIN LATERAL (SELECT coalesce(sum(a.staked), 0)::bigint AS staked, coalesce(sum(a.won), 0)::bigint AS won,
                                       min(a.hour) FILTER (WHERE a.staked > 0) AS first_hour
                                  FROM wallet_activity a
                                 WHERE k.period <> 'each' AND a.account_id = $1
                                   AND a.hour >= date_trunc('hour', now()) - limit_window(k.period)) u
            ORDER BY k.kind, k.period, k.source"#,
        account
    )
    .fetch_all(pool)
    .await?;
    rows.iter().map(limit_of).collect()
}

/// A stored limit in the wire's shape.
fn limit_of(row: &LimitRow) -> Result<MoneyLimit, AppError> {
    let stored = || AppError::internal("a stored limit of an unknown kind, period or source");
    let kind = MoneyLimitKind::parse(&row.kind).ok_or_else(stored)?;
    let period = match row.period.as_str() {
        "each" => None,
        p => Some(LimitPeriod::parse(p).ok_or_else(stored)?),
    };
    let source = LimitSource::parse(&row.source).ok_or_else(stored)?;
    let used = match kind {
        MoneyLimitKind::Wager => row.staked,
        MoneyLimitKind::Loss => row.staked.saturating_sub(row.won),
        MoneyLimitKind::SingleStake => 0,
    };
    let pending = row.pending_from.is_some();
    Ok(MoneyLimit {
        kind,
        period,
        source,
        cents: row.cents,
        pending_cents: row.pending_cents,
        pending_removal: pending && row.pending_cents.is_none(),
        pending_from: row.pending_from,
        used,
        left: row.cents.map(|c| c.saturating_sub(used).max(0)),
        resets_at: if used > 0 { row.resets_at } else { None },
    })
}

/// Wallet `account`'s activity per day and game, days `from` to `to` (inclusive) as they are in
/// `time_zone` (an IANA name Postgres knows; the hours are whole hours of UTC, so a zone whose
/// offset is not whole hours puts an hour's activity in the day its first minute falls in).
pub async fn activity(
    pool: &PgPool,
    account: Uuid,
    from: NaiveDate,
    to: NaiveDate,
    time_zone: &str,
) -> Result<Vec<ActivityLine>, AppError> {
    known_time_zone(pool, time_zone).await?;
    Ok(sqlx::query_as!(
        ActivityLine,
        r#"SELECT (a.hour AT TIME ZONE $2)::date AS "date!", a.game,
                  sum(a.staked)::bigint AS "staked!", sum(a.won)::bigint AS "won!",
                  sum(a.deposited)::bigint AS "deposited!", sum(a.withdrawn)::bigint AS "withdrawn!"
             FROM wallet_activity a
            WHERE a.account_id = $1
              AND a.hour >= ($3::date::timestamp AT TIME ZONE $2)
              AND a.hour < (($4::date + 1)::timestamp AT TIME ZONE $2)
            GROUP BY 1, 2 ORDER BY 1, 2"#,
        account,
        time_zone,
        from,
        to
    )
    .fetch_all(pool)
    .await?)
}

/// Refuses a time zone Postgres does not know (`invalid_time_zone`).
pub(super) async fn known_time_zone(pool: &PgPool, time_zone: &str) -> Result<(), AppError> {
    let known = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS "known!""#,
        time_zone
    )
    .fetch_one(pool)
    .await?;
    if !known {
        return Err(AppError::unprocessable(codes::INVALID_TIME_ZONE, format!("no time zone {time_zone:?}")));
    }
    Ok(())
}

/// Suspends play from wallet `account` (replacing any suspension): `create_transfers` takes no
/// stake from it until `until` (none: until replaced).
pub async fn suspend(pool: &PgPool, account: Uuid, suspension: &Suspension) -> Result<(), AppError> {
    let kind = sqlx::query_scalar!("SELECT kind FROM accounts WHERE id = $1", account)
        .fetch_optional(pool)
        .await?
        .ok_or_else(|| AppError::not_found(codes::ACCOUNT_NOT_FOUND, format!("account {account} does not exist")))?;
    if kind != "player_wallet" {
        return Err(AppError::unprocessable(codes::INVALID_MONEY_LIMIT, "play is suspended on players' wallets"));
    }
    sqlx::query!(
        "INSERT INTO wallet_suspensions (account_id, until, reason) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET until = excluded.until, reason = excluded.reason, set_at = now()",
        account,
        suspension.until,
        suspension.reason.as_str()
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Wallet `account`'s activity summed from the hour `since` falls in to now.
pub async fn activity_totals(pool: &PgPool, account: Uuid, since: DateTime<Utc>) -> Result<ActivityTotals, AppError> {
    Ok(sqlx::query_as!(
        ActivityTotals,
        r#"SELECT date_trunc('hour', $2::timestamptz) AS "hour!",
                  coalesce(sum(a.staked), 0)::bigint AS "staked!", coalesce(sum(a.won), 0)::bigint AS "won!",
                  coalesce(sum(a.deposited), 0)::bigint AS "deposited!",
                  coalesce(sum(a.withdrawn), 0)::bigint AS "withdrawn!"
             FROM wallet_activity a
            WHERE a.account_id = $1 AND a.hour >= date_trunc('hour', $2::timestamptz)"#,
        account,
        since
    )
    .fetch_one(pool)
    .await?)
}
