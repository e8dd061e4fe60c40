//! Every SQL statement of blackjack: tables (their rules and shoe) and rounds through their
//! states. Nothing else in the crate writes SQL.

use chrono::{DateTime, Utc};
use domain::blackjack::round::{Phase, Round, SpotBet, TableRules};
use domain::cards::Shoe;
use platform::codes;
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
    AppError::not_found(codes::TABLE_NOT_FOUND, format!("table {id} does not exist"))
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
/// [`DEALT`], [`DECIDED`]): so the shoe read here is the one such a write may
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

/// The player's rounds not yet settled (open, playing or settling), oldest first: what a player
/// coming back finds in play.
pub async fn rounds_in_play(pool: &PgPool, player: &str) -> Result<Vec<StoredRound>, AppError> {
    sqlx::query(&format!(
        "SELECT {ROUND_COLUMNS} FROM bj_rounds WHERE player_id = $1 AND state IN ('open', 'playing', 'settling')
          ORDER BY created_at"
    ))
    .bind(player)
    .fetch_all(pool)
    .await?
    .iter()
    .map(StoredRound::from_row)
    .collect()
}

/// The round in play at `table` (at most one: `bj_rounds_one_in_play`).
pub async fn round_in_play_at(pool: &PgPool, table: Uuid) -> Result<Option<StoredRound>, AppError> {
    sqlx::query(&format!(
        "SELECT {ROUND_COLUMNS} FROM bj_rounds WHERE table_id = $1 AND state IN ('open', 'playing', 'settling')"
    ))
    .bind(table)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(StoredRound::from_row)
    .transpose()
}

/// A table's shoe as read, with the count of its writes then (see [`DEALT`]).
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
            Err(AppError::conflict(codes::ROUND_IN_PLAY, "finish the round in play at this table first"))
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

/// A round dealt from `shoe` (shuffled first when `shuffled`), to be written by [`write_dealt_all`].
#[derive(Debug, Clone)]
pub struct Dealt {
    pub id: Uuid,
    pub round: Round,
    pub at_deal: AtDeal,
    pub staked: i64,
    pub shoe: Shoe,
    pub shuffled: bool,
    /// The count of the shoe's writes when it was read.
    pub read_version: i64,
}

impl RoundState {
    /// Where a step that left the cards as `round` leaves the round: `settling` when it ended
    /// the round, else `playing`.
    fn after_step(round: &Round) -> RoundState {
        if round.phase == Phase::Settled { RoundState::Settling } else { RoundState::Playing }
    }
}

impl Dealt {
    /// Where the deal leaves the round.
    pub fn state(&self) -> RoundState {
        RoundState::after_step(&self.round)
    }

    /// `open` as read, once this deal is written.
    pub fn applied_to(&self, open: &StoredRound) -> StoredRound {
        StoredRound {
            state: self.state(),
            round: Some(self.round.clone()),
            pot_at_deal_cents: Some(self.at_deal.pot),
            staked_cents: Some(self.staked),
            balance_before_cents: Some(self.at_deal.balance_before),
            ..open.clone()
        }
    }
}

/// The statement of [`write_dealt_all`] (checked for its plan by a test): each round and its
/// table's shoe, if the round is still `open` and the shoe was last written as it was read. The
/// round was recorded before this statement, so no other round of its table writes the shoe
/// after this statement's snapshot (one open or in play per table): the version it reads is the
/// one it replaces, and no table is named twice in a batch.
pub const DEALT: &str = "WITH u AS (
        SELECT * FROM UNNEST($1::uuid[], $2::jsonb[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[],
                             $7::jsonb[], $8::int[], $9::bigint[])
               AS u(id, round, state, pot, staked, before, shoe, shuffled, read_version)),
     r AS (
        UPDATE bj_rounds r SET state = u.state, round = u.round, pot_at_deal_cents = u.pot,
               staked_cents = u.staked, balance_before_cents = u.before, updated_at = now()
          FROM u
         WHERE r.id = u.id AND (r.state = 'open') IS TRUE
           AND (SELECT t.shoe_version FROM bj_tables t WHERE t.id = r.table_id) = u.read_version
        RETURNING r.id, r.table_id),
     t AS (
        UPDATE bj_tables t SET shoe = u.shoe, shuffles = t.shuffles + u.shuffled, shoe_version = t.shoe_version + 1
          FROM r JOIN u ON u.id = r.id
         WHERE t.id = r.table_id)
    SELECT id FROM r";

/// Each round dealt with its table's shoe, one statement for all (a
/// [`platform::group_commit::OneStatement`] batch); false for one another call dealt first, or
/// whose shoe was written since it was read (read both again).
pub async fn write_dealt_all(conn: &mut PgConnection, dealt: &[Dealt]) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        dealt,
        |d| d.id,
        |rows| {
            Ok(sqlx::query_scalar(DEALT)
                .bind(rows.iter().map(|d| d.id).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| json_of(&d.round)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|d| d.state().as_str()).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.at_deal.pot).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.staked).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.at_deal.balance_before).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| json_of(&d.shoe)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|d| i32::from(d.shuffled)).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.read_version).collect::<Vec<_>>()))
        },
    )
    .await
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

/// A decision to apply (see the saga): the round moved on from `pending.step` with the decision
/// recorded in `actions` (`settling` when it ended the round), and its table's shoe.
#[derive(Debug, Clone)]
pub struct Decision {
    pub id: Uuid,
    pub pending: PendingDecision,
    pub actions: Value,
    /// Applied as the round's pending decision (its wager taken), not as one with none pending.
    pub was_pending: bool,
}

impl Decision {
    fn staked(&self) -> i64 {
        let next = &self.pending.next;
        next.spots.iter().map(|s| s.staked(&next.rules)).sum()
    }

    fn state(&self) -> RoundState {
        RoundState::after_step(&self.pending.next)
    }

    /// `before` as read, once this decision is written.
    pub fn applied_to(&self, before: &StoredRound) -> StoredRound {
        StoredRound {
            state: self.state(),
            step: self.pending.step.saturating_add(1),
            round: Some(self.pending.next.clone()),
            actions: self.actions.clone(),
            pending: None,
            staked_cents: Some(self.staked()),
            ..before.clone()
        }
    }
}

/// The statement of [`write_decisions`] (checked for its plan by a test): each round moved on a
/// step and its table's shoe, if the round is still in play at the decision's step, with no
/// decision pending or, for one applied as pending, with this one.
pub const DECIDED: &str = "WITH u AS (
        SELECT * FROM UNNEST($1::uuid[], $2::jsonb[], $3::jsonb[], $4::bigint[], $5::text[], $6::int[],
                             $7::bool[], $8::jsonb[])
               AS u(id, round, actions, staked, state, step, was_pending, shoe)),
     r AS (
        UPDATE bj_rounds r SET round = u.round, step = r.step + 1, actions = u.actions, staked_cents = u.staked,
               pending = NULL, state = u.state, updated_at = now()
          FROM u
         WHERE r.id = u.id AND (r.state = 'playing' AND r.step = u.step) IS TRUE
           AND CASE WHEN u.was_pending THEN (r.pending->>'step')::int = u.step ELSE r.pending IS NULL END
        RETURNING r.id, r.table_id),
     t AS (
        UPDATE bj_tables t SET shoe = u.shoe, shoe_version = t.shoe_version + 1
          FROM r JOIN u ON u.id = r.id
         WHERE t.id = r.table_id)
    SELECT id FROM r";

/// Each decision applied with its table's shoe, one statement for all (a
/// [`platform::group_commit::OneStatement`] batch); false for one whose round was no longer
/// where it was read (another decision was first, or this one was applied).
pub async fn write_decisions(conn: &mut PgConnection, decisions: &[Decision]) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        decisions,
        |d| d.id,
        |rows| {
            Ok(sqlx::query_scalar(DECIDED)
                .bind(rows.iter().map(|d| d.id).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| json_of(&d.pending.next)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|d| d.actions.clone()).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.staked()).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.state().as_str()).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.pending.step).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.was_pending).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| json_of(&d.pending.shoe)).collect::<Result<Vec<_>, _>>()?))
        },
    )
    .await
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
    crate::kit::store::write_first_of_each(
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
