//! Every SQL statement of blackjack: tables (their rules and shoe) and rounds through their
//! states. Nothing else in the crate writes SQL.

use chrono::{DateTime, Utc};
use domain::blackjack::round::{Round, SpotBet, TableRules};
use domain::cards::Shoe;
use platform::codes;
use platform::{AppError, stored_state};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

stored_state!(
    /// Where a round is (see the saga): wagers being taken, cards in play, settlement being paid,
    /// and how it ended.
    pub RoundState {
        Open => "open",
        Playing => "playing",
        Settling => "settling",
        Settled => "settled",
        Refused => "refused",
        Voided => "voided",
    }
);

/// A decision that adds a wager, recorded before the wager is taken (see the saga).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingDecision {
    pub step: i32,
    /// The decision as the round's actions record it.
    pub record: Value,
    /// The round and the shoe once it applies.
    pub next: Round,
    pub shoe: Shoe,
    pub added_cents: i64,
}

/// A round as stored.
#[derive(Debug, Clone)]
pub struct StoredRound {
    pub id: Uuid,
    pub table_id: Uuid,
    pub player_id: String,
    pub wallet: Uuid,
    pub bets: Value,
    pub state: RoundState,
    pub step: i32,
    pub round: Option<Round>,
    pub actions: Value,
    pub pending: Option<PendingDecision>,
    pub pot_at_deal_cents: Option<i64>,
    pub staked_cents: Option<i64>,
    pub returned_cents: Option<i64>,
    pub pot_prize_cents: Option<i64>,
    pub balance_before_cents: Option<i64>,
    pub balance_after_cents: Option<i64>,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl StoredRound {
    /// The bets as placed.
    pub fn spot_bets(&self) -> Result<Vec<SpotBet>, AppError> {
        from_json(self.bets.clone())
    }
}

/// A round's row as the statements read it, its cards and pending decision decoded from JSON.
struct RoundRow {
    id: Uuid,
    table_id: Uuid,
    player_id: String,
    wallet: Uuid,
    bets: Value,
    state: RoundState,
    step: i32,
    round: Option<Json<Round>>,
    actions: Value,
    pending: Option<Json<PendingDecision>>,
    pot_at_deal_cents: Option<i64>,
    staked_cents: Option<i64>,
    returned_cents: Option<i64>,
    pot_prize_cents: Option<i64>,
    balance_before_cents: Option<i64>,
    balance_after_cents: Option<i64>,
    refusal: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<RoundRow> for StoredRound {
    fn from(row: RoundRow) -> Self {
        StoredRound {
            id: row.id,
            table_id: row.table_id,
            player_id: row.player_id,
            wallet: row.wallet,
            bets: row.bets,
            state: row.state,
            step: row.step,
            round: row.round.map(|r| r.0),
            actions: row.actions,
            pending: row.pending.map(|p| p.0),
            pot_at_deal_cents: row.pot_at_deal_cents,
            staked_cents: row.staked_cents,
            returned_cents: row.returned_cents,
            pot_prize_cents: row.pot_prize_cents,
            balance_before_cents: row.balance_before_cents,
            balance_after_cents: row.balance_after_cents,
            refusal: row.refusal,
            created_at: row.created_at,
        }
    }
}

pub use crate::{from_json, json_of};

mod grouped;
pub use grouped::{
    AtDeal, DEALT, DECIDED, Dealt, Decision, NewRound, SETTLED, Settled, insert_rounds, write_dealt_all,
    write_decisions, write_settled_all,
};

/// Table `id`, recorded with its player, rules and first shoe.
pub async fn insert_table(
    pool: &PgPool,
    id: Uuid,
    player: &str,
    rules: &TableRules,
    shoe: &Shoe,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO bj_tables (id, player_id, rules, shoe) VALUES ($1, $2, $3, $4)",
        id,
        player,
        Json(rules) as _,
        Json(shoe) as _
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// A table's player and rules (neither ever changes).
pub async fn table_owner_and_rules(pool: &PgPool, id: Uuid) -> Result<(String, TableRules), AppError> {
    let row = sqlx::query!(
        r#"SELECT player_id, rules AS "rules: Json<TableRules>" FROM bj_tables WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| AppError::not_found(codes::TABLE_NOT_FOUND, format!("table {id} does not exist")))?;
    Ok((row.player_id, row.rules.0))
}

/// Round `id`.
pub async fn load_round(pool: &PgPool, id: Uuid) -> Result<Option<StoredRound>, AppError> {
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, table_id, player_id, wallet_account_id AS wallet, bets, state AS "state: RoundState", step,
                  round AS "round: Json<Round>", actions, pending AS "pending: Json<PendingDecision>",
                  pot_at_deal_cents, staked_cents, returned_cents, pot_prize_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM bj_rounds WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .map(StoredRound::from))
}

/// Round `id` and its table's shoe, read together. A round in play is the only one that deals
/// from its table's shoe (one round open or in play per table, `bj_rounds_one_in_play`), and
/// every write of the shoe is conditioned on that round's state and step (see
/// [`DEALT`], [`DECIDED`]): so the shoe read here is the one such a write may
/// replace.
pub async fn load_round_and_shoe(
    pool: &PgPool,
    id: Uuid,
) -> Result<Option<(StoredRound, ReadShoe)>, AppError> {
    let row = sqlx::query!(
        r#"SELECT r.id, r.table_id, r.player_id, r.wallet_account_id AS wallet, r.bets, r.state AS "state: RoundState",
                  r.step, r.round AS "round: Json<Round>", r.actions, r.pending AS "pending: Json<PendingDecision>",
                  r.pot_at_deal_cents, r.staked_cents, r.returned_cents, r.pot_prize_cents, r.balance_before_cents,
                  r.balance_after_cents, r.refusal, r.created_at, t.shoe AS "shoe: Json<Shoe>", t.shoe_version
             FROM bj_rounds r JOIN bj_tables t ON t.id = r.table_id WHERE r.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| {
        let round = RoundRow {
            id: r.id,
            table_id: r.table_id,
            player_id: r.player_id,
            wallet: r.wallet,
            bets: r.bets,
            state: r.state,
            step: r.step,
            round: r.round,
            actions: r.actions,
            pending: r.pending,
            pot_at_deal_cents: r.pot_at_deal_cents,
            staked_cents: r.staked_cents,
            returned_cents: r.returned_cents,
            pot_prize_cents: r.pot_prize_cents,
            balance_before_cents: r.balance_before_cents,
            balance_after_cents: r.balance_after_cents,
            refusal: r.refusal,
            created_at: r.created_at,
        };
        (round.into(), ReadShoe { shoe: r.shoe.0, version: r.shoe_version })
    }))
}

/// The player's last `limit` rounds, newest first.
pub async fn recent_rounds(pool: &PgPool, player: &str, limit: i64) -> Result<Vec<StoredRound>, AppError> {
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, table_id, player_id, wallet_account_id AS wallet, bets, state AS "state: RoundState", step,
                  round AS "round: Json<Round>", actions, pending AS "pending: Json<PendingDecision>",
                  pot_at_deal_cents, staked_cents, returned_cents, pot_prize_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM bj_rounds WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"#,
        player,
        limit
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(StoredRound::from)
    .collect())
}

/// The player's rounds not yet settled (open, playing or settling), oldest first: what a player
/// coming back finds in play.
pub async fn rounds_in_play(pool: &PgPool, player: &str) -> Result<Vec<StoredRound>, AppError> {
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, table_id, player_id, wallet_account_id AS wallet, bets, state AS "state: RoundState", step,
                  round AS "round: Json<Round>", actions, pending AS "pending: Json<PendingDecision>",
                  pot_at_deal_cents, staked_cents, returned_cents, pot_prize_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM bj_rounds WHERE player_id = $1 AND state IN ('open', 'playing', 'settling') ORDER BY created_at"#,
        player
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(StoredRound::from)
    .collect())
}

/// The round in play at `table` (at most one: `bj_rounds_one_in_play`).
pub async fn round_in_play_at(pool: &PgPool, table: Uuid) -> Result<Option<StoredRound>, AppError> {
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, table_id, player_id, wallet_account_id AS wallet, bets, state AS "state: RoundState", step,
                  round AS "round: Json<Round>", actions, pending AS "pending: Json<PendingDecision>",
                  pot_at_deal_cents, staked_cents, returned_cents, pot_prize_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM bj_rounds WHERE table_id = $1 AND state IN ('open', 'playing', 'settling')"#,
        table
    )
    .fetch_optional(pool)
    .await?
    .map(StoredRound::from))
}

/// A table's shoe as read, with the count of its writes then (see [`DEALT`]).
#[derive(Debug, Clone)]
pub struct ReadShoe {
    pub shoe: Shoe,
    pub version: i64,
}

/// An open round the ledger refused → `refused`.
pub async fn mark_refused(pool: &PgPool, id: Uuid, code: &str) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE bj_rounds SET state = 'refused', refusal = $2, updated_at = now() WHERE id = $1 AND state = 'open'",
        id,
        code
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Records a decision waiting for its wager: it claims the round's step, if the round is still
/// in play at that step with no decision pending (false: another decision was first).
pub async fn set_pending(pool: &PgPool, id: Uuid, pending: &PendingDecision) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "UPDATE bj_rounds SET pending = $2, updated_at = now()
          WHERE id = $1 AND state = 'playing' AND step = $3 AND pending IS NULL",
        id,
        Json(pending) as _,
        pending.step
    )
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// Forgets the decision pending on `step` (its wager was refused: nothing moved).
pub async fn clear_pending(pool: &PgPool, id: Uuid, step: i32) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE bj_rounds SET pending = NULL, updated_at = now() WHERE id = $1 AND (pending->>'step')::int = $2",
        id,
        step
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Round `id`, locked for the rest of the caller's transaction, and with it, when `table` is
/// given, that table (its shoe is then the caller's to write).
pub async fn lock_round(
    conn: &mut PgConnection,
    id: Uuid,
    table: Option<Uuid>,
) -> Result<Option<StoredRound>, AppError> {
    if let Some(table) = table {
        sqlx::query!("SELECT id FROM bj_tables WHERE id = $1 FOR UPDATE", table)
            .fetch_optional(&mut *conn)
            .await?;
    }
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, table_id, player_id, wallet_account_id AS wallet, bets, state AS "state: RoundState", step,
                  round AS "round: Json<Round>", actions, pending AS "pending: Json<PendingDecision>",
                  pot_at_deal_cents, staked_cents, returned_cents, pot_prize_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM bj_rounds WHERE id = $1 FOR UPDATE"#,
        id
    )
    .fetch_optional(conn)
    .await?
    .map(StoredRound::from))
}

/// Saves the table's shoe, counting a shuffle when `shuffled` (under the table's lock).
pub async fn save_shoe(
    conn: &mut PgConnection,
    id: Uuid,
    shoe: &Shoe,
    shuffled: bool,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE bj_tables SET shoe = $2, shuffles = shuffles + $3, shoe_version = shoe_version + 1 WHERE id = $1",
        id,
        Json(shoe) as _,
        i32::from(shuffled)
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// → `voided` with every wager returned (under the round's lock).
pub async fn mark_voided(
    conn: &mut PgConnection,
    id: Uuid,
    staked: i64,
    balance_after: i64,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE bj_rounds SET state = 'voided', refusal = 'shoe_exhausted', staked_cents = $2, returned_cents = $2,
                pot_prize_cents = 0, pending = NULL, balance_after_cents = $3, updated_at = now() WHERE id = $1",
        id,
        staked,
        balance_after
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Rounds left `open` (wagers perhaps taken, cards not dealt) for longer than `older_than`.
pub async fn stuck_open(pool: &PgPool, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM bj_rounds WHERE state = 'open' AND updated_at < now() - make_interval(secs => $1)
          ORDER BY updated_at LIMIT 500",
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// Rounds left `settling`, or with a decision pending, for longer than `older_than`.
pub async fn stuck_in_play(pool: &PgPool, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM bj_rounds WHERE (state = 'settling' OR pending IS NOT NULL)
            AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// Rounds waiting for their player's decision for longer than `idle`.
pub async fn abandoned(pool: &PgPool, idle: Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM bj_rounds WHERE state = 'playing' AND updated_at < now() - make_interval(secs => $1)
          ORDER BY updated_at LIMIT 500",
        idle.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}
