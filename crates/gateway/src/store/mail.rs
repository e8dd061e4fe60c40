//! The mail outbox (`mail_outbox`) and one-time links (`one_time_links`), checked against the
//! schema at build time ([`crate::saga::mail`], [`crate::saga::links`]).

use chrono::{DateTime, Utc};
use platform::{AppError, stored_state};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

stored_state!(
    /// Where a message stands: waiting for the relay (or to be tried again), taken by the
    /// relay, kept here (no relay configured: delivered), or given up.
    pub MailState {
        Queued => "queued",
        Sent => "sent",
        Kept => "kept",
        Failed => "failed",
    }
);

/// A message to write to the outbox.
#[derive(Debug)]
pub struct NewMail<'a> {
    pub id: Uuid,
    pub recipient: &'a str,
    pub player: Option<Uuid>,
    pub kind: &'a str,
    pub subject: &'a str,
    pub body: &'a str,
}

/// A message as the outbox holds it.
#[derive(Debug, Clone)]
pub struct MailRow {
    pub id: Uuid,
    pub recipient: String,
    pub player_id: Option<Uuid>,
    pub kind: String,
    pub subject: String,
    pub body: String,
    pub state: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// Writes `mail` to the outbox on `conn` (the caller's transaction): `queued` for the worker
/// to send, or `kept` when there is no relay (it is delivered where it lies). A message whose id
/// is written already is not written again (an id derived from what it tells: one per event).
pub async fn enqueue(conn: &mut PgConnection, mail: &NewMail<'_>, sends: bool) -> Result<(), AppError> {
    let state = if sends { MailState::Queued } else { MailState::Kept }.as_str();
    sqlx::query!(
        "INSERT INTO mail_outbox (id, recipient, player_id, kind, subject, body, state, sent_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 = 'kept' THEN now() END)
         ON CONFLICT (id) DO NOTHING",
        mail.id,
        mail.recipient,
        mail.player,
        mail.kind,
        mail.subject,
        mail.body,
        state,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Up to `limit` queued messages that are due, claimed for `lease_seconds`: their next attempt
/// moved past the lease and counted, so another worker (or replica) takes none of them unless
/// this one dies before it says how the sending went.
pub async fn claim_due(pool: &PgPool, limit: i64, lease_seconds: i32) -> Result<Vec<MailRow>, AppError> {
    Ok(sqlx::query_as!(
        MailRow,
        "UPDATE mail_outbox m
            SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
          WHERE id IN (SELECT id FROM mail_outbox
                        WHERE state = 'queued' AND next_attempt_at <= now()
                        ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING id, recipient, player_id, kind, subject, body, state, attempts, last_error, sent_at, created_at",
        limit,
        f64::from(lease_seconds),
    )
    .fetch_all(pool)
    .await?)
}

/// Message `id` sent.
pub async fn sent(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE mail_outbox SET state = 'sent', sent_at = now(), last_error = NULL WHERE id = $1",
        id
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Message `id` not sent: tried again after `retry_seconds`, or `None`: failed for good.
pub async fn not_sent(
    pool: &PgPool,
    id: Uuid,
    error: &str,
    retry_seconds: Option<i32>,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE mail_outbox
            SET last_error = $2,
                state = CASE WHEN $3::integer IS NULL THEN 'failed' ELSE 'queued' END,
                next_attempt_at = now() + make_interval(secs => coalesce($3::integer, 0))
          WHERE id = $1",
        id,
        error,
        retry_seconds,
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// A page of the outbox, newest first, before the cursor `before` (a message id), to
/// `recipient` when given.
pub async fn page(
    pool: &PgPool,
    recipient: Option<&str>,
    before: Option<Uuid>,
    limit: i64,
) -> Result<Vec<MailRow>, AppError> {
    Ok(sqlx::query_as!(
        MailRow,
        "SELECT id, recipient, player_id, kind, subject, body, state, attempts, last_error, sent_at, created_at
           FROM mail_outbox
          WHERE ($1::text IS NULL OR recipient = $1) AND ($2::uuid IS NULL OR id < $2)
          ORDER BY id DESC LIMIT $3",
        recipient,
        before,
        limit,
    )
    .fetch_all(pool)
    .await?)
}

/// What a one-time link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkPurpose {
    VerifyEmail,
    ResetPassword,
}

impl LinkPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkPurpose::VerifyEmail => "verify_email",
            LinkPurpose::ResetPassword => "reset_password",
        }
    }
}

/// Records a request for a `purpose` link to the address whose digest is `email_digest`, on
/// `conn` (the request's transaction), and whether the address has an account.
pub async fn record_link_request(
    conn: &mut PgConnection,
    purpose: LinkPurpose,
    email_digest: &[u8],
    known: bool,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO link_requests (id, purpose, email_digest, known) VALUES ($1, $2, $3, $4)",
        Uuid::now_v7(),
        purpose.as_str(),
        email_digest,
        known,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Keeps a new link's hash for `player`, good for `minutes`.
pub async fn keep_link(
    conn: &mut PgConnection,
    hash: &[u8],
    purpose: LinkPurpose,
    player: Uuid,
    minutes: i32,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO one_time_links (token_hash, purpose, player_id, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(mins => $4))",
        hash,
        purpose.as_str(),
        player,
        minutes,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// A link as kept.
#[derive(Debug)]
pub struct LinkRow {
    pub player_id: Uuid,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
}

/// The link of `hash` for `purpose`, locked for its use in `conn`'s transaction.
pub async fn lock_link(
    conn: &mut PgConnection,
    hash: &[u8],
    purpose: LinkPurpose,
) -> Result<Option<LinkRow>, AppError> {
    Ok(sqlx::query_as!(
        LinkRow,
        "SELECT player_id, expires_at, used_at FROM one_time_links
          WHERE token_hash = $1 AND purpose = $2 FOR UPDATE",
        hash,
        purpose.as_str(),
    )
    .fetch_optional(conn)
    .await?)
}

/// Link `hash` used, and every other link of its player for the same purpose with it (a
/// newer link makes the older ones worthless).
pub async fn use_link(
    conn: &mut PgConnection,
    hash: &[u8],
    purpose: LinkPurpose,
    player: Uuid,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE one_time_links SET used_at = now()
          WHERE player_id = $1 AND purpose = $2 AND used_at IS NULL",
        player,
        purpose.as_str(),
    )
    .execute(&mut *conn)
    .await?;
    // The one presented is marked even if already ended by another's use.
    sqlx::query!("UPDATE one_time_links SET used_at = coalesce(used_at, now()) WHERE token_hash = $1", hash)
        .execute(conn)
        .await?;
    Ok(())
}

/// Where reader `name` has read to (none before its first pass).
pub async fn cursor(pool: &PgPool, name: &str) -> Result<Option<i64>, AppError> {
    Ok(sqlx::query_scalar!("SELECT after FROM mail_cursors WHERE name = $1", name)
        .fetch_optional(pool)
        .await?)
}

/// Reader `name` starts at `after` unless it has started already.
pub async fn start_cursor(pool: &PgPool, name: &str, after: i64) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO mail_cursors (name, after) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        name,
        after
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Moves reader `name` on to `after` (never back), on `conn`.
pub async fn advance_cursor(conn: &mut PgConnection, name: &str, after: i64) -> Result<(), AppError> {
    sqlx::query!("UPDATE mail_cursors SET after = greatest(after, $2) WHERE name = $1", name, after)
        .execute(conn)
        .await?;
    Ok(())
}
