//! Every SQL statement of craps: sessions (the domain's session as stored, a roll pending) and
//! the rolls. Nothing else in the game writes SQL. Each is checked against the schema at build
//! time (sqlx's macros) but the two written for many sessions at once through the repository's
//! writers (their arrays built per batch, their plans checked by `tests/grouped_plans.rs`).

use chrono::{DateTime, Utc};
use domain::craps::session::{Change, RollReport, Session};
use platform::AppError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::json_of;

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
    /// How its money is split into ledger transfers, fixed when it is claimed: a request a crash
    /// left pending across an upgrade is finished with the transfers (and ids) it started with,
    /// so the ledger replays them instead of moving the money again. Recorded before this field
    /// existed: [`Legs::EachMovement`].
    #[serde(default)]
    pub legs: Legs,
}

/// How a request's [`Money`] becomes ledger transfers (ADR 0010, "Fewer transfers a roll").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Legs {
    /// One transfer per movement (staked, commission, taken down, returned, lost, won) between
    /// the wallet, the escrow and the house: up to seven.
    #[default]
    EachMovement,
    /// At most three: everything the request stakes (with commission) from the wallet to the
    /// house, everything it pays back (taken down, returned, won, commission back) from the house
    /// to the wallet, and the escrow moved by the net of the bets left standing. The wallet and
    /// the house end where [`Legs::EachMovement`] leaves them, the escrow still holds exactly the
    /// bets on the layouts, and the stake still goes first, so a wallet that cannot cover it
    /// refuses the request with nothing moved.
    Netted,
    /// At most two: the wallet's net with the house (what the request pays back less what it
    /// stakes) as one transfer, applied only if the wallet held the stake (with commission) just
    /// before it (the ledger's funds check, so a wallet that cannot cover the stake still
    /// refuses the request with nothing moved), and the escrow moved as [`Legs::Netted`] moves
    /// it. When the net is nothing although the request stakes, there is no transfer to carry
    /// the check, and the wallet's legs are [`Legs::Netted`]'s two.
    WalletNet,
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

/// A session's row as the statements read it, its JSON decoded.
struct SessionRow {
    id: Uuid,
    player_id: String,
    wallet: Uuid,
    session: Json<Session>,
    rolls: i32,
    requests: i32,
    pending: Option<Json<Pending>>,
    created_at: DateTime<Utc>,
}

impl From<SessionRow> for StoredSession {
    fn from(row: SessionRow) -> Self {
        StoredSession {
            id: row.id,
            player_id: row.player_id,
            wallet: row.wallet,
            session: row.session.0,
            rolls: row.rolls,
            requests: row.requests,
            pending: row.pending.map(|p| p.0),
            created_at: row.created_at,
        }
    }
}

/// A request's row as the statements read it, its JSON decoded.
struct RollRow {
    session_id: Uuid,
    seq: i32,
    changes: Json<Vec<Change>>,
    report: Option<Json<RollReport>>,
    money: Json<Money>,
    balance_before_cents: i64,
    balance_after_cents: i64,
    created_at: DateTime<Utc>,
}

impl From<RollRow> for StoredRoll {
    fn from(row: RollRow) -> Self {
        StoredRoll {
            session_id: row.session_id,
            seq: row.seq,
            changes: row.changes.0,
            report: row.report.map(|r| r.0),
            money: row.money.0,
            balance_before_cents: row.balance_before_cents,
            balance_after_cents: row.balance_after_cents,
            created_at: row.created_at,
        }
    }
}

/// Session `id`, opened for `player` with `session`.
pub async fn insert_session(
    pool: &PgPool,
    id: Uuid,
    player: &str,
    wallet: Uuid,
    session: &Session,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO craps_sessions (id, player_id, wallet_account_id, session) VALUES ($1, $2, $3, $4)",
        id,
        player,
        wallet,
        Json(session) as _
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Session `id` as it stands (requests claim it by conditional writes, never a row lock).
pub async fn load_session(pool: &PgPool, id: Uuid) -> Result<Option<StoredSession>, AppError> {
    Ok(sqlx::query_as!(
        SessionRow,
        r#"SELECT id, player_id, wallet_account_id AS wallet, session AS "session: Json<Session>", rolls, requests,
                  pending AS "pending: Json<Pending>", created_at
             FROM craps_sessions WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .map(StoredSession::from))
}

/// The player's sessions with bets on the layout (or a request under way), oldest first.
pub async fn sessions_in_play(pool: &PgPool, player: &str) -> Result<Vec<StoredSession>, AppError> {
    Ok(sqlx::query_as!(
        SessionRow,
        r#"SELECT id, player_id, wallet_account_id AS wallet, session AS "session: Json<Session>", rolls, requests,
                  pending AS "pending: Json<Pending>", created_at
             FROM craps_sessions
            WHERE player_id = $1 AND (pending IS NOT NULL OR jsonb_array_length(session->'bets') > 0)
            ORDER BY created_at"#,
        player
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(StoredSession::from)
    .collect())
}

/// The claim of [`claim_all`] (checked for its plan by a test). A request is looked up by
/// `session_id::text || '/' || key`, the one value its unique index holds (migration
/// `20261205000001`), so no plan can walk the session's rolls along the primary key instead.
pub const CLAIM: &str = "UPDATE craps_sessions s SET pending = u.pending, updated_at = now()
               FROM UNNEST($1::uuid[], $2::jsonb[], $3::int[], $4::text[]) AS u(id, pending, seq, key)
              WHERE s.id = u.id AND s.pending IS NULL AND s.requests = u.seq
                AND NOT EXISTS (SELECT 1 FROM craps_rolls r
                                 WHERE r.session_id::text || '/' || r.key = u.id::text || '/' || u.key)
             RETURNING s.id";

/// Claims each session for its pending request, if no request is pending there, none has been
/// recorded since the session was read (`pending.seq` is the count it read) and none under the
/// request's key (a session remembered from an earlier request may be behind); answers, per claim,
/// whether it did. One statement for all, written without a transaction
/// ([`platform::group_commit::OneStatement`]): a session named twice is claimed for the first
/// only (the later request reads the session again, as if it had lost the claim to another).
pub async fn claim_all(conn: &mut PgConnection, claims: &[(Uuid, Pending)]) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        claims,
        |c| c.0,
        |rows| {
            Ok(sqlx::query_scalar(CLAIM)
                .bind(rows.iter().map(|c| c.0).collect::<Vec<_>>())
                .bind(rows.iter().map(|c| json_of(&c.1)).collect::<Result<Vec<_>, _>>()?)
                .bind(rows.iter().map(|c| c.1.seq).collect::<Vec<_>>())
                .bind(rows.iter().map(|c| c.1.key.as_str()).collect::<Vec<_>>()))
        },
    )
    .await
}

/// Forgets the request pending under `key` (its money was refused: nothing moved).
pub async fn clear_pending(pool: &PgPool, id: Uuid, key: &str) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE craps_sessions SET pending = NULL, updated_at = now() WHERE id = $1 AND pending->>'key' = $2",
        id,
        key
    )
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

impl Finished {
    /// The wallet just before the request: after it, less what it moved.
    pub fn balance_before(&self) -> i64 {
        self.balance_after.saturating_sub(self.pending.money.wallet_change())
    }
}

/// [`finish_all`]'s statement (checked for its plan by a test): each session moved on (the
/// session after the request is the one its claim recorded, `pending.next`) if the request is
/// still its pending one, the request recorded for each that moved, and their audit records
/// chained, in their order, by the schema's `audit_append`, all in one statement. `(...) IS
/// TRUE` finds each row by its id, never through a partial index (`platform::group_commit`).
pub const FINISH: &str = "WITH u AS (
        SELECT * FROM UNNEST($1::uuid[], $2::int[], $3::text[], $4::int[], $5::jsonb[], $6::jsonb[],
                             $7::jsonb[], $8::bigint[], $9::bigint[], $10::timestamptz[], $11::text[],
                             $12::uuid[], $13::text[])
               WITH ORDINALITY AS u(id, rolled, key, seq, changes, report, money, before, after, at,
                                    audit_kind, audit_subject, audit_record, n)),
     moved AS (
        UPDATE craps_sessions s SET session = s.pending->'next', rolls = s.rolls + u.rolled,
               requests = s.requests + 1, pending = NULL, updated_at = now()
          FROM u
         WHERE s.id = u.id AND (s.pending->>'key' = u.key) IS TRUE
        RETURNING s.id, s.player_id),
     recorded AS (
        INSERT INTO craps_rolls (session_id, seq, key, player_id, changes, report, money,
                                 balance_before_cents, balance_after_cents, created_at)
        SELECT u.id, u.seq, u.key, m.player_id, u.changes, u.report, u.money, u.before, u.after, u.at
          FROM u JOIN moved m ON m.id = u.id
        RETURNING session_id),
     chained AS (
        SELECT audit_append(array_agg(u.audit_kind ORDER BY u.n), array_agg(u.audit_subject ORDER BY u.n),
                            array_agg(u.audit_record ORDER BY u.n)) AS hashes
          FROM u JOIN recorded r ON r.session_id = u.id)
    SELECT r.session_id FROM recorded r, chained c WHERE c.hashes IS NOT NULL";

/// Each pending request done, if it is still its session's pending one: the session moved on,
/// the request recorded (the wallet before it is the wallet after, less what it moved) and
/// `audit`'s record chained. Answers, per request, whether this call did it. One statement for
/// all, written without a transaction ([`platform::group_commit::OneStatement`]): a session
/// named twice is done for the first only (the later caller reads what it recorded).
pub async fn finish_all(
    conn: &mut PgConnection,
    done: &[(Finished, platform::audit::Entry)],
) -> Result<Vec<bool>, AppError> {
    crate::kit::store::write_first_of_each(
        conn,
        done,
        |d| d.0.session,
        |rows| {
            let (kinds, subjects, records) = platform::audit::Entry::columns(rows.iter().map(|d| &d.1));
            let column = |f: &dyn Fn(&Finished) -> Result<Value, AppError>| {
                rows.iter().map(|d| f(&d.0)).collect::<Result<Vec<_>, AppError>>()
            };
            Ok(sqlx::query_scalar(FINISH)
                .bind(rows.iter().map(|d| d.0.session).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| i32::from(d.0.pending.report.is_some())).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.0.pending.key.as_str()).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.0.pending.seq).collect::<Vec<_>>())
                .bind(column(&|f| json_of(&f.pending.changes))?)
                .bind(
                    rows.iter()
                        .map(|d| d.0.pending.report.as_ref().map(json_of).transpose())
                        .collect::<Result<Vec<_>, _>>()?,
                )
                .bind(column(&|f| json_of(&f.pending.money))?)
                .bind(rows.iter().map(|d| d.0.balance_before()).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.0.balance_after).collect::<Vec<_>>())
                .bind(rows.iter().map(|d| d.0.at).collect::<Vec<_>>())
                .bind(kinds)
                .bind(subjects)
                .bind(records))
        },
    )
    .await
}

/// Session `id`, with the request it recorded under `key` if there is one: what a request reads
/// first, in one statement.
pub async fn session_with_request(
    pool: &PgPool,
    id: Uuid,
    key: &str,
) -> Result<Option<(StoredSession, Option<StoredRoll>)>, AppError> {
    let row = sqlx::query!(
        r#"SELECT s.id, s.player_id, s.wallet_account_id AS wallet, s.session AS "session: Json<Session>", s.rolls,
                  s.requests, s.pending AS "pending: Json<Pending>", s.created_at,
                  r.session_id AS "r_session_id?", r.seq AS "r_seq?", r.changes AS "r_changes?: Json<Vec<Change>>",
                  r.report AS "r_report?: Json<RollReport>", r.money AS "r_money?: Json<Money>",
                  r.balance_before_cents AS "r_balance_before_cents?", r.balance_after_cents AS "r_balance_after_cents?",
                  r.created_at AS "r_created_at?"
             FROM craps_sessions s
             LEFT JOIN craps_rolls r ON r.session_id::text || '/' || r.key = s.id::text || '/' || $2
            WHERE s.id = $1"#,
        id,
        key
    )
    .fetch_optional(pool)
    .await?;
    let Some(row) = row else { return Ok(None) };
    // (The request's columns are all there, or none is: no request under the key.)
    let request = (row.r_session_id, row.r_seq, row.r_changes, row.r_money);
    let balances = (row.r_balance_before_cents, row.r_balance_after_cents, row.r_created_at);
    let roll = match (request, balances) {
        (
            (Some(session_id), Some(seq), Some(changes), Some(money)),
            (Some(before), Some(after), Some(at)),
        ) => Some(StoredRoll::from(RollRow {
            session_id,
            seq,
            changes,
            report: row.r_report,
            money,
            balance_before_cents: before,
            balance_after_cents: after,
            created_at: at,
        })),
        _ => None,
    };
    let session = SessionRow {
        id: row.id,
        player_id: row.player_id,
        wallet: row.wallet,
        session: row.session,
        rolls: row.rolls,
        requests: row.requests,
        pending: row.pending,
        created_at: row.created_at,
    };
    Ok(Some((session.into(), roll)))
}

/// The request a session recorded under `key`.
pub async fn roll_by_key(pool: &PgPool, session: Uuid, key: &str) -> Result<Option<StoredRoll>, AppError> {
    Ok(sqlx::query_as!(
        RollRow,
        r#"SELECT session_id, seq, changes AS "changes: Json<Vec<Change>>", report AS "report: Json<RollReport>",
                  money AS "money: Json<Money>", balance_before_cents, balance_after_cents, created_at
             FROM craps_rolls WHERE session_id::text || '/' || key = $1::uuid::text || '/' || $2"#,
        session,
        key
    )
    .fetch_optional(pool)
    .await?
    .map(StoredRoll::from))
}

/// The player's last `limit` rolls (requests that threw the dice), newest first.
pub async fn recent_rolls(pool: &PgPool, player: &str, limit: i64) -> Result<Vec<StoredRoll>, AppError> {
    Ok(sqlx::query_as!(
        RollRow,
        r#"SELECT session_id, seq, changes AS "changes: Json<Vec<Change>>", report AS "report: Json<RollReport>",
                  money AS "money: Json<Money>", balance_before_cents, balance_after_cents, created_at
             FROM craps_rolls WHERE player_id = $1 AND report IS NOT NULL
            ORDER BY created_at DESC, seq DESC LIMIT $2"#,
        player,
        limit
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(StoredRoll::from)
    .collect())
}

/// Sessions with a request pending for longer than `older_than`.
pub async fn stuck(pool: &PgPool, older_than: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM craps_sessions WHERE pending IS NOT NULL
            AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// Sessions with bets on their layout, nothing pending, and no request for longer than `idle`.
pub async fn abandoned(pool: &PgPool, idle: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM craps_sessions WHERE pending IS NULL
            AND jsonb_array_length(session->'bets') > 0 AND updated_at < now() - make_interval(secs => $1)
          ORDER BY updated_at LIMIT 500",
        idle.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}
