//! The statements that write many rounds at once (each a
//! [`platform::group_commit::OneStatement`] batch, through the game's repository): rounds
//! recorded, dealt with their tables' shoes, decisions applied with them, rounds settled and
//! chained. They stay strings: their arrays are built per batch, and the three that read rows
//! are checked for their plans by `tests/grouped_plans.rs`.

use chrono::{DateTime, Utc};
use domain::blackjack::round::{Phase, Round};
use domain::cards::Shoe;
use platform::AppError;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use super::{PendingDecision, RoundState, StoredRound, json_of};

/// A new round with its bets, to be recorded `open` by [`insert_rounds`].
#[derive(Debug, Clone)]
pub struct NewRound {
    pub id: Uuid,
    pub table: Uuid,
    pub player: String,
    pub wallet: Uuid,
    pub bets: Value,
    /// To the microsecond Postgres keeps, so the round answered now and read later are the same.
    pub created_at: DateTime<Utc>,
}

impl NewRound {
    /// The round as stored once recorded.
    pub fn stored(&self) -> StoredRound {
        StoredRound {
            id: self.id,
            table_id: self.table,
            player_id: self.player.clone(),
            wallet: self.wallet,
            bets: self.bets.clone(),
            state: RoundState::Open,
            step: 0,
            round: None,
            actions: Value::Array(Vec::new()),
            pending: None,
            pot_at_deal_cents: None,
            staked_cents: None,
            returned_cents: None,
            pot_prize_cents: None,
            balance_before_cents: None,
            balance_after_cents: None,
            refusal: None,
            created_at: self.created_at,
        }
    }
}

/// New rounds (`open`), one statement for all; answers, per round, whether it was recorded.
/// Not recorded: its id was recorded before (or by an earlier job of the batch), or its table
/// has a round open or in play (`bj_rounds_one_in_play`: `ON CONFLICT DO NOTHING` names no
/// constraint, so a table's second round gives way instead of failing the batch).
pub async fn insert_rounds(conn: &mut PgConnection, rounds: &[NewRound]) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        rounds,
        |r| r.id,
        |rows| {
            Ok(sqlx::query_scalar(
                "INSERT INTO bj_rounds (id, table_id, player_id, wallet_account_id, bets, state, created_at)
                 SELECT u.id, u.table_id, u.player, u.wallet, u.bets, 'open', u.created_at
                   FROM UNNEST($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::jsonb[], $6::timestamptz[])
                        AS u(id, table_id, player, wallet, bets, created_at)
                 ON CONFLICT DO NOTHING RETURNING id",
            )
            .bind(rows.iter().map(|r| r.id).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.table).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.player.as_str()).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.wallet).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.bets.clone()).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.created_at).collect::<Vec<_>>()))
        },
    )
    .await
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
