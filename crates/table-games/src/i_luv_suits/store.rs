//! Every SQL statement of I Luv Suits: rounds through their states. Nothing else in the game
//! writes SQL. Each is checked against the schema at build time (sqlx's macros) but the four
//! written for many rounds at once through the repository's writers (their arrays built per
//! batch; three checked for their plans by `tests/grouped_plans.rs`).

use chrono::{DateTime, Utc};
use domain::i_luv_suits::round::{Choice, Deal, Returns, Showdown, TableRules, Wagers};
use platform::{AppError, stored_state};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::json_of;

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

/// A round's row as the statements read it, its JSON decoded.
struct RoundRow {
    id: Uuid,
    player_id: String,
    wallet: Uuid,
    wagers: Json<Wagers>,
    rules: Json<TableRules>,
    state: RoundState,
    deal: Option<Json<Deal>>,
    pending: Option<Json<Decided>>,
    decision: Option<Json<Decided>>,
    pot_at_deal_cents: Option<i64>,
    staked_cents: Option<i64>,
    settlement: Option<Json<Settlement>>,
    returned_cents: Option<i64>,
    balance_before_cents: Option<i64>,
    balance_after_cents: Option<i64>,
    refusal: Option<String>,
    created_at: DateTime<Utc>,
}

impl From<RoundRow> for StoredRound {
    fn from(row: RoundRow) -> Self {
        StoredRound {
            id: row.id,
            player_id: row.player_id,
            wallet: row.wallet,
            wagers: row.wagers.0,
            rules: row.rules.0,
            state: row.state,
            deal: row.deal.map(|d| d.0),
            pending: row.pending.map(|p| p.0),
            decision: row.decision.map(|d| d.0),
            pot_at_deal_cents: row.pot_at_deal_cents,
            staked_cents: row.staked_cents,
            settlement: row.settlement.map(|s| s.0),
            returned_cents: row.returned_cents,
            balance_before_cents: row.balance_before_cents,
            balance_after_cents: row.balance_after_cents,
            refusal: row.refusal,
            created_at: row.created_at,
        }
    }
}

/// Round `id` as it stands (its steps claim it by conditional writes, never a row lock).
pub async fn load_round(pool: &PgPool, id: Uuid) -> Result<Option<StoredRound>, AppError> {
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, player_id, wallet_account_id AS wallet, wagers AS "wagers: Json<Wagers>",
                  rules AS "rules: Json<TableRules>", state AS "state: RoundState", deal AS "deal: Json<Deal>",
                  pending AS "pending: Json<Decided>", decision AS "decision: Json<Decided>", pot_at_deal_cents,
                  staked_cents, settlement AS "settlement: Json<Settlement>", returned_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM ils_rounds WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .map(StoredRound::from))
}

/// The player's last `limit` rounds, newest first.
pub async fn recent_rounds(pool: &PgPool, player: &str, limit: i64) -> Result<Vec<StoredRound>, AppError> {
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, player_id, wallet_account_id AS wallet, wagers AS "wagers: Json<Wagers>",
                  rules AS "rules: Json<TableRules>", state AS "state: RoundState", deal AS "deal: Json<Deal>",
                  pending AS "pending: Json<Decided>", decision AS "decision: Json<Decided>", pot_at_deal_cents,
                  staked_cents, settlement AS "settlement: Json<Settlement>", returned_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM ils_rounds WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"#,
        player,
        limit
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(StoredRound::from)
    .collect())
}

/// The player's rounds not yet settled (open, deciding or settling), oldest first.
pub async fn rounds_in_play(pool: &PgPool, player: &str) -> Result<Vec<StoredRound>, AppError> {
    Ok(sqlx::query_as!(
        RoundRow,
        r#"SELECT id, player_id, wallet_account_id AS wallet, wagers AS "wagers: Json<Wagers>",
                  rules AS "rules: Json<TableRules>", state AS "state: RoundState", deal AS "deal: Json<Deal>",
                  pending AS "pending: Json<Decided>", decision AS "decision: Json<Decided>", pot_at_deal_cents,
                  staked_cents, settlement AS "settlement: Json<Settlement>", returned_cents, balance_before_cents,
                  balance_after_cents, refusal, created_at
             FROM ils_rounds WHERE player_id = $1 AND state IN ('open', 'deciding', 'settling') ORDER BY created_at"#,
        player
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(StoredRound::from)
    .collect())
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

/// New rounds with their wagers (`open`), one statement for all (a
/// [`platform::group_commit::OneStatement`] batch); answers, per round, whether it is new (false:
/// its id was recorded before, or by an earlier job of the batch).
pub async fn insert_rounds(conn: &mut PgConnection, rounds: &[NewRound]) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        rounds,
        |r| r.id,
        |rows| {
            Ok(sqlx::query_scalar(
                "INSERT INTO ils_rounds (id, player_id, wallet_account_id, wagers, rules, state, created_at)
             SELECT u.id, u.player, u.wallet, u.wagers, u.rules, 'open', u.created_at
               FROM UNNEST($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[], $5::jsonb[], $6::timestamptz[])
                    AS u(id, player, wallet, wagers, rules, created_at)
             ON CONFLICT (id) DO NOTHING RETURNING id",
            )
            .bind(rows.iter().map(|r| r.id).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.player.as_str()).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| r.wallet).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| json_of(&r.wagers)).collect::<Result<Vec<_>, _>>()?)
            .bind(rows.iter().map(|r| json_of(&r.rules)).collect::<Result<Vec<_>, _>>()?)
            .bind(rows.iter().map(|r| r.created_at).collect::<Vec<_>>()))
        },
    )
    .await
}

/// An open round the ledger refused → `refused`.
pub async fn mark_refused(pool: &PgPool, id: Uuid, code: &str) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE ils_rounds SET state = 'refused', refusal = $2, updated_at = now() WHERE id = $1 AND state = 'open'",
        id,
        code
    )
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

impl Dealt {
    /// `open` as read, once this deal is written.
    pub fn applied_to(&self, open: &StoredRound) -> StoredRound {
        StoredRound {
            state: RoundState::Deciding,
            deal: Some(self.deal),
            pot_at_deal_cents: Some(self.pot),
            staked_cents: Some(self.staked),
            balance_before_cents: Some(self.balance_before),
            ..open.clone()
        }
    }
}

/// The statement of [`mark_dealt_all`] (checked for its plan by a test);
/// `(...) IS TRUE` finds each row by its id, never through a partial index (`platform::group_commit`).
pub const DEALT: &str =
    "UPDATE ils_rounds r SET state = 'deciding', deal = u.deal, pot_at_deal_cents = u.pot,
                    staked_cents = u.staked, balance_before_cents = u.before, updated_at = now()
               FROM UNNEST($1::uuid[], $2::jsonb[], $3::bigint[], $4::bigint[], $5::bigint[])
                    AS u(id, deal, pot, staked, before)
              WHERE r.id = u.id AND (r.state = 'open') IS TRUE RETURNING r.id";

/// Open rounds dealt → `deciding`, with the wallet before their wagers, one statement for all;
/// answers, per round, whether this call dealt it (false: another call did first).
pub async fn mark_dealt_all(conn: &mut PgConnection, dealt: &[Dealt]) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        dealt,
        |d| d.id,
        |rows| {
            Ok(sqlx::query_scalar(DEALT)
                .bind(rows.iter().map(|d| d.id).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| json_of(&d.deal)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|d| d.pot).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.staked).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.balance_before).collect::<Vec<_>>()))
        },
    )
    .await
}

/// A decision claiming a round that waits for one.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    pub id: Uuid,
    pub decided: Decided,
}

/// The statement of [`claim_decisions`] (checked for its plan by a test);
/// `(...) IS TRUE` finds each row by its id, never through a partial index (`platform::group_commit`).
pub const CLAIM_DECISIONS: &str = "UPDATE ils_rounds r
                SET state = CASE WHEN u.fold THEN 'settling' ELSE r.state END,
                    decision = CASE WHEN u.fold THEN u.decided ELSE r.decision END,
                    pending = CASE WHEN u.fold THEN r.pending ELSE u.decided END,
                    updated_at = now()
               FROM UNNEST($1::uuid[], $2::jsonb[], $3::bool[]) AS u(id, decided, fold)
              WHERE r.id = u.id AND (r.state = 'deciding' AND r.pending IS NULL) IS TRUE RETURNING r.id";

/// Claims `deciding` rounds with no decision pending, one statement for all: a fold is made at
/// once (→ `settling`), a play is recorded pending until its wager is taken. Answers, per claim,
/// whether it applied (false: another decision came first).
pub async fn claim_decisions(conn: &mut PgConnection, claims: &[Claim]) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        claims,
        |c| c.id,
        |rows| {
            Ok(sqlx::query_scalar(CLAIM_DECISIONS)
                .bind(rows.iter().map(|c| c.id).collect::<Vec<_>>())
                .bind(rows.iter().map(|c| json_of(&c.decided)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|c| c.decided.choice == Choice::Fold).collect::<Vec<_>>()))
        },
    )
    .await
}

/// Forgets a pending decision (its wager was refused: nothing moved).
pub async fn clear_pending(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE ils_rounds SET pending = NULL, updated_at = now() WHERE id = $1 AND state = 'deciding'",
        id
    )
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

/// The statement of [`write_settled_all`] (checked for its plan by a test): the rounds settled,
/// and the records of those it settled chained by `audit_append`, in one statement;
/// `(...) IS TRUE` finds each row by its id, never through a partial index (`platform::group_commit`).
pub const SETTLED: &str = "WITH u AS (
        SELECT * FROM UNNEST($1::uuid[], $2::jsonb[], $3::bigint[], $4::jsonb[], $5::bigint[], $6::bigint[],
                             $7::text[], $8::uuid[], $9::text[])
               WITH ORDINALITY AS u(id, decided, staked, settlement, returned, after,
                                    audit_kind, audit_subject, audit_record, n)),
     settled AS (
        UPDATE ils_rounds r SET state = 'settled', decision = u.decided, pending = NULL, staked_cents = u.staked,
               settlement = u.settlement, returned_cents = u.returned, balance_after_cents = u.after,
               updated_at = now()
          FROM u
         WHERE r.id = u.id AND (r.state = 'settling' OR (r.state = 'deciding' AND r.pending = u.decided)) IS TRUE
        RETURNING r.id),
     chained AS (
        SELECT audit_append(array_agg(u.audit_kind ORDER BY u.n), array_agg(u.audit_subject ORDER BY u.n),
                            array_agg(u.audit_record ORDER BY u.n)) AS hashes
          FROM u JOIN settled s ON s.id = u.id)
    SELECT s.id FROM settled s, chained c WHERE c.hashes IS NOT NULL";

/// Rounds `settling`, or `deciding` with this decision pending, → `settled` with how they ended,
/// each with its audit record chained, one statement for all (a
/// [`platform::group_commit::OneStatement`] batch); answers, per round, whether this call settled
/// it (false: another call did first, or an earlier job of the batch named it).
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
                .bind(rows.iter().map(|s| json_of(&s.0.decided)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|s| s.0.staked).collect::<Vec<_>>())
                .bind(rows.iter().map(|s| json_of(&s.0.settlement)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|s| s.0.settlement.returns.total()).collect::<Vec<_>>())
                .bind(rows.iter().map(|s| s.0.balance_after).collect::<Vec<_>>())
                .bind(kinds)
                .bind(subjects)
                .bind(records))
        },
    )
    .await
}

/// Rounds left `open`, `settling`, or with a decision pending, for longer than `older_than`.
pub async fn stuck(pool: &PgPool, older_than: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM ils_rounds
          WHERE (state IN ('open', 'settling') OR pending IS NOT NULL) AND updated_at < now() - make_interval(secs => $1)
          ORDER BY updated_at LIMIT 500",
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// Rounds waiting for their player's decision for longer than `idle`.
pub async fn abandoned(pool: &PgPool, idle: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM ils_rounds WHERE state = 'deciding' AND pending IS NULL
            AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
        idle.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}
