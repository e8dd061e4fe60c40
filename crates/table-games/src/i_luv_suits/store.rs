//! Every SQL statement of I Luv Suits: rounds through their states. Nothing else in the game
//! writes SQL.

use chrono::{DateTime, Utc};
use domain::i_luv_suits::round::{Choice, Deal, Returns, Showdown, TableRules, Wagers};
use platform::{AppError, stored_state};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use crate::{from_json, json_of};

stored_state!(
    /// Where a round is (see the saga): wagers being taken, dealt and waiting for the player,
    /// decided and being paid, and how it ended.
    pub RoundState {
        Open => "open",
        Deciding => "deciding",
        Settling => "settling",
        Settled => "settled",
        Refused => "refused",
    }
);

/// A decision as recorded: what it was and who made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decided {
    #[serde(flatten)]
    pub choice: Choice,
    /// `player`, or `house` for a round its player abandoned (the house folds: it never stakes a
    /// player's money for them).
    pub by: DecidedBy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    Player,
    House,
}

/// How a settled round ended, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    pub showdown: Showdown,
    pub returns: Returns,
}

/// A round as stored.
#[derive(Debug, Clone)]
pub struct StoredRound {
    pub id: Uuid,
    pub player_id: String,
    pub wallet: Uuid,
    pub wagers: Wagers,
    pub rules: TableRules,
    pub state: RoundState,
    pub deal: Option<Deal>,
    pub pending: Option<Decided>,
    pub decision: Option<Decided>,
    pub pot_at_deal_cents: Option<i64>,
    pub staked_cents: Option<i64>,
    pub settlement: Option<Settlement>,
    pub returned_cents: Option<i64>,
    pub balance_before_cents: Option<i64>,
    pub balance_after_cents: Option<i64>,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

fn optional<T: serde::de::DeserializeOwned>(row: &PgRow, column: &str) -> Result<Option<T>, AppError> {
    row.try_get::<Option<Value>, _>(column)?.map(from_json).transpose()
}

impl StoredRound {
    fn from_row(row: &PgRow) -> Result<Self, AppError> {
        Ok(StoredRound {
            id: row.try_get("id")?,
            player_id: row.try_get("player_id")?,
            wallet: row.try_get("wallet_account_id")?,
            wagers: from_json(row.try_get("wagers")?)?,
            rules: from_json(row.try_get("rules")?)?,
            state: RoundState::parse(row.try_get("state")?)?,
            deal: optional(row, "deal")?,
            pending: optional(row, "pending")?,
            decision: optional(row, "decision")?,
            pot_at_deal_cents: row.try_get("pot_at_deal_cents")?,
            staked_cents: row.try_get("staked_cents")?,
            settlement: optional(row, "settlement")?,
            returned_cents: row.try_get("returned_cents")?,
            balance_before_cents: row.try_get("balance_before_cents")?,
            balance_after_cents: row.try_get("balance_after_cents")?,
            refusal: row.try_get("refusal")?,
            created_at: row.try_get("created_at")?,
        })
    }
}

const ROUND_COLUMNS: &str = "id, player_id, wallet_account_id, wagers, rules, state, deal, pending, decision,
    pot_at_deal_cents, staked_cents, settlement, returned_cents, balance_before_cents, balance_after_cents,
    refusal, created_at";

/// Round `id`, locked for the caller's transaction when `lock`.
pub async fn load_round(
    conn: &mut PgConnection,
    id: Uuid,
    lock: bool,
) -> Result<Option<StoredRound>, AppError> {
    let lock = if lock { " FOR UPDATE" } else { "" };
    sqlx::query(&format!("SELECT {ROUND_COLUMNS} FROM ils_rounds WHERE id = $1{lock}"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(StoredRound::from_row)
        .transpose()
}

/// The player's last `limit` rounds, newest first.
pub async fn recent_rounds(pool: &PgPool, player: &str, limit: i64) -> Result<Vec<StoredRound>, AppError> {
    sqlx::query(&format!(
        "SELECT {ROUND_COLUMNS} FROM ils_rounds WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"
    ))
    .bind(player)
    .bind(limit)
    .fetch_all(pool)
    .await?
    .iter()
    .map(StoredRound::from_row)
    .collect()
}

/// A new round with its wagers.
#[derive(Debug, Clone)]
pub struct NewRound {
    pub id: Uuid,
    pub player: String,
    pub wallet: Uuid,
    pub wagers: Wagers,
    pub rules: TableRules,
    /// To the microsecond Postgres keeps, so the round answered now and read later are the same.
    pub created_at: DateTime<Utc>,
}

impl NewRound {
    /// The round as stored once recorded.
    pub fn stored(&self) -> StoredRound {
        StoredRound {
            id: self.id,
            player_id: self.player.clone(),
            wallet: self.wallet,
            wagers: self.wagers,
            rules: self.rules,
            state: RoundState::Open,
            deal: None,
            pending: None,
            decision: None,
            pot_at_deal_cents: None,
            staked_cents: None,
            settlement: None,
            returned_cents: None,
            balance_before_cents: None,
            balance_after_cents: None,
            refusal: None,
            created_at: self.created_at,
        }
    }
}

/// A new round with its wagers (`open`); false when its id is already recorded.
pub async fn insert_round(conn: &mut PgConnection, round: &NewRound) -> Result<bool, AppError> {
    let inserted = sqlx::query(
        "INSERT INTO ils_rounds (id, player_id, wallet_account_id, wagers, rules, state, created_at)
         VALUES ($1, $2, $3, $4, $5, 'open', $6) ON CONFLICT (id) DO NOTHING",
    )
    .bind(round.id)
    .bind(&round.player)
    .bind(round.wallet)
    .bind(json_of(&round.wagers)?)
    .bind(json_of(&round.rules)?)
    .bind(round.created_at)
    .execute(conn)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

/// An open round the ledger refused → `refused`.
pub async fn mark_refused(pool: &PgPool, id: Uuid, code: &str) -> Result<(), AppError> {
    sqlx::query(
        "UPDATE ils_rounds SET state = 'refused', refusal = $2, updated_at = now() WHERE id = $1 AND state = 'open'",
    )
    .bind(id)
    .bind(code)
    .execute(pool)
    .await?;
    Ok(())
}

/// An open round's cards and what its wagers found.
#[derive(Debug, Clone)]
pub struct Dealt {
    pub id: Uuid,
    pub deal: Deal,
    /// The pot's meter once the wagers were in (76(i)(5)).
    pub pot: i64,
    pub staked: i64,
    pub balance_before: i64,
}

/// An open round dealt → `deciding`, with the wallet before its wagers; false when another
/// call dealt it first.
pub async fn mark_dealt(conn: &mut PgConnection, dealt: &Dealt) -> Result<bool, AppError> {
    Ok(sqlx::query(
        "UPDATE ils_rounds SET state = 'deciding', deal = $2, pot_at_deal_cents = $3, staked_cents = $4,
                balance_before_cents = $5, updated_at = now() WHERE id = $1 AND state = 'open'",
    )
    .bind(dealt.id)
    .bind(json_of(&dealt.deal)?)
    .bind(dealt.pot)
    .bind(dealt.staked)
    .bind(dealt.balance_before)
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// A decision claiming a round that waits for one.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    pub id: Uuid,
    pub decided: Decided,
}

/// Claims a `deciding` round with no decision pending: a fold is made at once (→ `settling`),
/// a play is recorded pending until its wager is taken. False when another decision came first.
pub async fn claim_decision(conn: &mut PgConnection, claim: &Claim) -> Result<bool, AppError> {
    let statement = match claim.decided.choice {
        Choice::Fold => {
            "UPDATE ils_rounds SET state = 'settling', decision = $2, updated_at = now()
              WHERE id = $1 AND state = 'deciding' AND pending IS NULL"
        }
        Choice::Play { .. } => {
            "UPDATE ils_rounds SET pending = $2, updated_at = now()
              WHERE id = $1 AND state = 'deciding' AND pending IS NULL"
        }
    };
    Ok(sqlx::query(statement)
        .bind(claim.id)
        .bind(json_of(&claim.decided)?)
        .execute(conn)
        .await?
        .rows_affected()
        == 1)
}

/// Forgets a pending decision (its wager was refused: nothing moved).
pub async fn clear_pending(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    sqlx::query(
        "UPDATE ils_rounds SET pending = NULL, updated_at = now() WHERE id = $1 AND state = 'deciding'",
    )
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// A decided round paid, to be written as settled.
#[derive(Debug, Clone)]
pub struct Settled {
    pub id: Uuid,
    /// The round's decision, or the pending play decision its settlement took the wager of.
    pub decided: Decided,
    /// What the round staked in all, the play wager included.
    pub staked: i64,
    pub settlement: Settlement,
    pub balance_after: i64,
}

/// A `settling` round, or one `deciding` with this decision pending, → `settled` with how it
/// ended; false when another call settled it first.
pub async fn write_settled(conn: &mut PgConnection, settled: &Settled) -> Result<bool, AppError> {
    let decided = json_of(&settled.decided)?;
    Ok(sqlx::query(
        "UPDATE ils_rounds SET state = 'settled', decision = $2, pending = NULL, staked_cents = $3, settlement = $4,
                returned_cents = $5, balance_after_cents = $6, updated_at = now()
          WHERE id = $1 AND (state = 'settling' OR (state = 'deciding' AND pending = $2))",
    )
    .bind(settled.id)
    .bind(decided)
    .bind(settled.staked)
    .bind(json_of(&settled.settlement)?)
    .bind(settled.settlement.returns.total())
    .bind(settled.balance_after)
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// Rounds left `open`, `settling`, or with a decision pending, for longer than `$1` seconds.
pub const STUCK: &str = "SELECT id FROM ils_rounds
  WHERE (state IN ('open', 'settling') OR pending IS NOT NULL) AND updated_at < now() - make_interval(secs => $1)
  ORDER BY updated_at LIMIT 500";

/// Rounds waiting for their player's decision for longer than `$1` seconds.
pub const ABANDONED: &str = "SELECT id FROM ils_rounds WHERE state = 'deciding' AND pending IS NULL
  AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500";
