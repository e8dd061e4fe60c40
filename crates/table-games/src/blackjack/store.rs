//! Every SQL statement of blackjack: tables (their rules and shoe) and rounds through their
//! states. Nothing else in the crate writes SQL.

use chrono::{DateTime, Utc};
use domain::blackjack::round::{Phase, Round, SpotBet, TableRules};
use domain::cards::Shoe;
use platform::{AppError, stored_state};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Row};
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

    fn from_row(row: &PgRow) -> Result<Self, AppError> {
        Ok(StoredRound {
            id: row.try_get("id")?,
            table_id: row.try_get("table_id")?,
            player_id: row.try_get("player_id")?,
            wallet: row.try_get("wallet_account_id")?,
            bets: row.try_get("bets")?,
            state: RoundState::parse(row.try_get("state")?)?,
            step: row.try_get("step")?,
            round: row.try_get::<Option<Value>, _>("round")?.map(from_json).transpose()?,
            actions: row.try_get("actions")?,
            pending: row.try_get::<Option<Value>, _>("pending")?.map(from_json).transpose()?,
            pot_at_deal_cents: row.try_get("pot_at_deal_cents")?,
            staked_cents: row.try_get("staked_cents")?,
            returned_cents: row.try_get("returned_cents")?,
            pot_prize_cents: row.try_get("pot_prize_cents")?,
            balance_before_cents: row.try_get("balance_before_cents")?,
            balance_after_cents: row.try_get("balance_after_cents")?,
            refusal: row.try_get("refusal")?,
            created_at: row.try_get("created_at")?,
        })
    }
}

pub use crate::{from_json, json_of};

const ROUND_COLUMNS: &str = "id, table_id, player_id, wallet_account_id, bets, state, step, round, actions, pending,
    pot_at_deal_cents, staked_cents, returned_cents, pot_prize_cents, balance_before_cents, balance_after_cents,
    refusal, created_at";

fn table_not_found(id: Uuid) -> AppError {
    AppError::not_found("table_not_found", format!("table {id} does not exist"))
}

pub async fn insert_table(
    pool: &PgPool,
    id: Uuid,
    player: &str,
    rules: &TableRules,
    shoe: &Shoe,
) -> Result<(), AppError> {
    sqlx::query("INSERT INTO bj_tables (id, player_id, rules, shoe) VALUES ($1, $2, $3, $4)")
        .bind(id)
        .bind(player)
        .bind(json_of(rules)?)
        .bind(json_of(shoe)?)
        .execute(pool)
        .await?;
    Ok(())
}

/// A table's player and rules (neither ever changes).
pub async fn table_owner_and_rules(pool: &PgPool, id: Uuid) -> Result<(String, TableRules), AppError> {
    let row = sqlx::query("SELECT player_id, rules FROM bj_tables WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?
        .ok_or_else(|| table_not_found(id))?;
    Ok((row.try_get("player_id")?, from_json(row.try_get("rules")?)?))
}

/// Locks table `id` for the rest of the caller's transaction (its shoe is then the caller's to
/// write).
pub async fn lock_table(conn: &mut PgConnection, id: Uuid) -> Result<(), AppError> {
    sqlx::query("SELECT 1 FROM bj_tables WHERE id = $1 FOR UPDATE")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .map(|_| ())
        .ok_or_else(|| table_not_found(id))
}

/// Saves the table's shoe, counting a shuffle when `shuffled`.
pub async fn save_shoe(
    conn: &mut PgConnection,
    id: Uuid,
    shoe: &Shoe,
    shuffled: bool,
) -> Result<(), AppError> {
    sqlx::query("UPDATE bj_tables SET shoe = $2, shuffles = shuffles + $3, shoe_version = shoe_version + 1 WHERE id = $1")
        .bind(id)
        .bind(json_of(shoe)?)
        .bind(i32::from(shuffled))
        .execute(conn)
        .await?;
    Ok(())
}

/// Round `id`, locked for the caller's transaction when `lock`.
pub async fn load_round(
    conn: &mut PgConnection,
    id: Uuid,
    lock: bool,
) -> Result<Option<StoredRound>, AppError> {
    let lock = if lock { " FOR UPDATE" } else { "" };
    sqlx::query(&format!("SELECT {ROUND_COLUMNS} FROM bj_rounds WHERE id = $1{lock}"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(StoredRound::from_row)
        .transpose()
}

/// Round `id` and its table's shoe, read together. A round in play is the only one that deals
/// from its table's shoe (one round open or in play per table, `bj_rounds_one_in_play`), and
/// every write of the shoe is conditioned on that round's state and step (see
/// [`write_dealt`], [`write_decision`]): so the shoe read here is the one such a write may
/// replace.
pub async fn load_round_and_shoe(
    pool: &PgPool,
    id: Uuid,
) -> Result<Option<(StoredRound, ReadShoe)>, AppError> {
    sqlx::query(
        "SELECT r.*, t.shoe, t.shoe_version FROM bj_rounds r JOIN bj_tables t ON t.id = r.table_id WHERE r.id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?
    .map(|row| Ok((StoredRound::from_row(&row)?, read_shoe(&row)?)))
    .transpose()
}

fn read_shoe(row: &PgRow) -> Result<ReadShoe, AppError> {
    Ok(ReadShoe { shoe: from_json(row.try_get("shoe")?)?, version: row.try_get("shoe_version")? })
}

/// The player's last `limit` rounds, newest first.
pub async fn recent_rounds(pool: &PgPool, player: &str, limit: i64) -> Result<Vec<StoredRound>, AppError> {
    sqlx::query(&format!(
        "SELECT {ROUND_COLUMNS} FROM bj_rounds WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"
    ))
    .bind(player)
    .bind(limit)
    .fetch_all(pool)
    .await?
    .iter()
    .map(StoredRound::from_row)
    .collect()
}

/// A table's shoe as read, with the count of its writes then (see [`write_dealt`]).
#[derive(Debug, Clone)]
pub struct ReadShoe {
    pub shoe: Shoe,
    pub version: i64,
}

/// A new round with its bets (`open`), as recorded, and its table's shoe as read by the same
/// statement; None when its id is already recorded. A table with a round in play answers 409
/// `round_in_play`.
pub async fn insert_round(
    pool: &PgPool,
    id: Uuid,
    table: Uuid,
    player: &str,
    wallet: Uuid,
    bets: &Value,
) -> Result<Option<(StoredRound, ReadShoe)>, AppError> {
    let inserted = sqlx::query(&format!(
        "WITH r AS (
            INSERT INTO bj_rounds (id, table_id, player_id, wallet_account_id, bets, state)
            VALUES ($1, $2, $3, $4, $5, 'open') ON CONFLICT (id) DO NOTHING RETURNING {ROUND_COLUMNS})
         SELECT r.*, t.shoe, t.shoe_version FROM r JOIN bj_tables t ON t.id = r.table_id"
    ))
    .bind(id)
    .bind(table)
    .bind(player)
    .bind(wallet)
    .bind(bets)
    .fetch_optional(pool)
    .await;
    match inserted {
        Ok(row) => row.as_ref().map(|row| Ok((StoredRound::from_row(row)?, read_shoe(row)?))).transpose(),
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("bj_rounds_one_in_play") => {
            Err(AppError::conflict("round_in_play", "finish the round in play at this table first"))
        }
        Err(e) => Err(e.into()),
    }
}

/// An open round the ledger refused → `refused`.
pub async fn mark_refused(pool: &PgPool, id: Uuid, code: &str) -> Result<(), AppError> {
    sqlx::query("UPDATE bj_rounds SET state = 'refused', refusal = $2, updated_at = now() WHERE id = $1 AND state = 'open'")
        .bind(id)
        .bind(code)
        .execute(pool)
        .await?;
    Ok(())
}

/// What a round's wagers found at the deal: the pot's meter and the wallet before them.
#[derive(Debug, Clone, Copy)]
pub struct AtDeal {
    pub pot: i64,
    pub balance_before: i64,
}

/// A round dealt from `shoe` (shuffled first when `shuffled`): `playing`, or `settling` when the
/// deal ended it; the round and its table's shoe in one statement, if the round is still
/// `open` and the shoe was last written as `read_version` (None: another call dealt it first,
/// or the shoe it was dealt from is out of date). The round was recorded before this
/// statement, so no other round of its table writes the shoe after this statement's snapshot
/// (one open or in play per table): the version this statement reads is the one it replaces.
#[allow(clippy::too_many_arguments)]
pub async fn write_dealt(
    pool: &PgPool,
    id: Uuid,
    round: &Round,
    at_deal: AtDeal,
    staked: i64,
    shoe: &Shoe,
    shuffled: bool,
    read_version: i64,
) -> Result<Option<StoredRound>, AppError> {
    sqlx::query(&format!(
        "WITH r AS (
            UPDATE bj_rounds SET state = $5, round = $2, pot_at_deal_cents = $3, staked_cents = $4,
                   balance_before_cents = $6, updated_at = now()
             WHERE id = $1 AND state = 'open'
               AND (SELECT shoe_version FROM bj_tables WHERE bj_tables.id = bj_rounds.table_id) = $9
         RETURNING {ROUND_COLUMNS}),
         t AS (UPDATE bj_tables SET shoe = $7, shuffles = shuffles + $8, shoe_version = shoe_version + 1
                WHERE id = (SELECT table_id FROM r))
         SELECT {ROUND_COLUMNS} FROM r"
    ))
    .bind(id)
    .bind(json_of(round)?)
    .bind(at_deal.pot)
    .bind(staked)
    .bind(if round.phase == Phase::Settled { "settling" } else { "playing" })
    .bind(at_deal.balance_before)
    .bind(json_of(shoe)?)
    .bind(i32::from(shuffled))
    .bind(read_version)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(StoredRound::from_row)
    .transpose()
}

/// Records a decision waiting for its wager: it claims the round's step, if the round is still
/// in play at that step with no decision pending (false: another decision was first).
pub async fn set_pending(pool: &PgPool, id: Uuid, pending: &PendingDecision) -> Result<bool, AppError> {
    Ok(sqlx::query(
        "UPDATE bj_rounds SET pending = $2, updated_at = now()
          WHERE id = $1 AND state = 'playing' AND step = $3 AND pending IS NULL",
    )
    .bind(id)
    .bind(json_of(pending)?)
    .bind(pending.step)
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// Forgets the decision pending on `step` (its wager was refused: nothing moved).
pub async fn clear_pending(pool: &PgPool, id: Uuid, step: i32) -> Result<(), AppError> {
    sqlx::query("UPDATE bj_rounds SET pending = NULL, updated_at = now() WHERE id = $1 AND (pending->>'step')::int = $2")
        .bind(id)
        .bind(step)
        .execute(pool)
        .await?;
    Ok(())
}

/// Applies `pending`'s decision: the round moved on a step with the decision recorded in
/// `actions` (`settling` when it ended the round) and its table's shoe, in one statement, if the
/// round is still in play at the decision's step, with no decision pending or, when
/// `was_pending`, with this one (None: another decision was first, or this one was applied).
pub async fn write_decision(
    pool: &PgPool,
    id: Uuid,
    pending: &PendingDecision,
    actions: &Value,
    was_pending: bool,
) -> Result<Option<StoredRound>, AppError> {
    let next = &pending.next;
    let staked: i64 = next.spots.iter().map(|s| s.staked(&next.rules)).sum();
    sqlx::query(&format!(
        "WITH r AS (
            UPDATE bj_rounds SET round = $2, step = step + 1, actions = $3, staked_cents = $4, pending = NULL,
                   state = $5, updated_at = now()
             WHERE id = $1 AND state = 'playing' AND step = $6
               AND CASE WHEN $7 THEN (pending->>'step')::int = $6 ELSE pending IS NULL END
         RETURNING {ROUND_COLUMNS}),
         t AS (UPDATE bj_tables SET shoe = $8, shoe_version = shoe_version + 1 WHERE id = (SELECT table_id FROM r))
         SELECT {ROUND_COLUMNS} FROM r"
    ))
    .bind(id)
    .bind(json_of(next)?)
    .bind(actions)
    .bind(staked)
    .bind(if next.phase == Phase::Settled { "settling" } else { "playing" })
    .bind(pending.step)
    .bind(was_pending)
    .bind(json_of(&pending.shoe)?)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(StoredRound::from_row)
    .transpose()
}

/// A settling round paid, to be written as settled.
#[derive(Debug, Clone, Copy)]
pub struct Settled {
    pub id: Uuid,
    pub returned: i64,
    pub pot_prize: i64,
    pub balance_after: i64,
}

/// The statement of [`write_settled_all`] (checked for its plan by a test): the rounds settled,
/// and the records of those it settled chained by `audit_append`, in one statement;
/// `(...) IS TRUE` finds each row by its id, never through a partial index (`platform::group_commit`).
pub const SETTLED: &str = "WITH u AS (
        SELECT * FROM UNNEST($1::uuid[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::uuid[],
                             $7::text[])
               WITH ORDINALITY AS u(id, returned, pot_prize, after, audit_kind, audit_subject, audit_record, n)),
     settled AS (
        UPDATE bj_rounds r SET state = 'settled', returned_cents = u.returned, pot_prize_cents = u.pot_prize,
               balance_after_cents = u.after, updated_at = now()
          FROM u
         WHERE r.id = u.id AND (r.state = 'settling') IS TRUE
        RETURNING r.id),
     chained AS (
        SELECT audit_append(array_agg(u.audit_kind ORDER BY u.n), array_agg(u.audit_subject ORDER BY u.n),
                            array_agg(u.audit_record ORDER BY u.n)) AS hashes
          FROM u JOIN settled s ON s.id = u.id)
    SELECT s.id FROM settled s, chained c WHERE c.hashes IS NOT NULL";

/// Each `settling` round → `settled` with its sums and its audit record chained, one statement
/// for all (a [`platform::group_commit::OneStatement`] batch); false for one another call settled
/// first (or an earlier job of the batch named).
pub async fn write_settled_all(
    conn: &mut PgConnection,
    settled: &[(Settled, platform::audit::Entry)],
) -> Result<Vec<bool>, AppError> {
    crate::store::write_first_of_each(
        conn,
        settled,
        |s| s.0.id,
        |rows| {
            let (kinds, subjects, records) = platform::audit::Entry::columns(rows.iter().map(|s| &s.1));
            Ok(sqlx::query_scalar(SETTLED)
                .bind(rows.iter().map(|s| s.0.id).collect::<Vec<_>>())
                .bind(rows.iter().map(|s| s.0.returned).collect::<Vec<_>>())
                .bind(rows.iter().map(|s| s.0.pot_prize).collect::<Vec<_>>())
                .bind(rows.iter().map(|s| s.0.balance_after).collect::<Vec<_>>())
                .bind(kinds)
                .bind(subjects)
                .bind(records))
        },
    )
    .await
}

/// → `voided` with every wager returned.
pub async fn mark_voided(
    conn: &mut PgConnection,
    id: Uuid,
    staked: i64,
    balance_after: i64,
) -> Result<(), AppError> {
    sqlx::query(
        "UPDATE bj_rounds SET state = 'voided', refusal = 'shoe_exhausted', staked_cents = $2, returned_cents = $2,
                pot_prize_cents = 0, pending = NULL, balance_after_cents = $3, updated_at = now() WHERE id = $1",
    )
    .bind(id)
    .bind(staked)
    .bind(balance_after)
    .execute(conn)
    .await?;
    Ok(())
}

/// Rounds left `open` (wagers perhaps taken, cards not dealt) for longer than `$1` seconds.
pub const STUCK_OPEN: &str = "SELECT id FROM bj_rounds WHERE state = 'open' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500";

/// Rounds left `settling`, or with a decision pending, for longer than `$1` seconds.
pub const STUCK_IN_PLAY: &str = "SELECT id FROM bj_rounds WHERE (state = 'settling' OR pending IS NOT NULL)
  AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500";

/// Rounds waiting for their player's decision for longer than `$1` seconds.
pub const ABANDONED: &str = "SELECT id FROM bj_rounds WHERE state = 'playing' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500";
