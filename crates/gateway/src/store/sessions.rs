//! Logins, sessions and refresh tokens as stored (`players` and `staff` credentials,
//! `terminals`, `sessions`, `refresh_tokens`): every statement of [`crate::saga::sessions`] and
//! [`crate::auth`], checked against the schema at build time.

use chrono::{DateTime, Utc};
use platform::AppError;
use platform::auth::{Place, Role};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Whose password a login checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credentials {
    /// Players, by email.
    Players,
    /// Operators and auditors, by username.
    Staff,
}

/// What a password login reads.
#[derive(Debug, Clone)]
pub struct CredentialRow {
    pub id: Uuid,
    pub password_hash: String,
    pub locked_until: Option<DateTime<Utc>>,
    pub last_login_at: Option<DateTime<Utc>>,
    /// A player, an operator or an auditor.
    pub role: Role,
}

/// The credentials of the player with `login` as email, or the staff member with it as username.
pub async fn credentials(
    pool: &PgPool,
    whose: Credentials,
    login: &str,
) -> Result<Option<CredentialRow>, AppError> {
    let row = match whose {
        Credentials::Players => sqlx::query!(
            "SELECT id, password_hash, locked_until, last_login_at FROM players WHERE email = lower($1)",
            login
        )
        .fetch_optional(pool)
        .await?
        .map(|r| (r.id, r.password_hash, r.locked_until, r.last_login_at, "player".to_owned())),
        Credentials::Staff => sqlx::query!(
            "SELECT id, password_hash, locked_until, last_login_at, role FROM staff WHERE username = lower($1)",
            login
        )
        .fetch_optional(pool)
        .await?
        .map(|r| (r.id, r.password_hash, r.locked_until, r.last_login_at, r.role)),
    };
    row.map(|(id, password_hash, locked_until, last_login_at, role)| {
        Ok(CredentialRow {
            id,
            password_hash,
            locked_until,
            last_login_at,
            role: Role::parse(&role).ok_or_else(|| AppError::internal(format!("a stored role {role:?}")))?,
        })
    })
    .transpose()
}

/// Counts a failed login of `id`, locking it for `minutes` from the `after`th in a row; answers
/// until when it is locked, if it is.
pub async fn failed_login(
    conn: &mut PgConnection,
    whose: Credentials,
    id: Uuid,
    after: i32,
    minutes: i32,
) -> Result<Option<DateTime<Utc>>, AppError> {
    Ok(match whose {
        Credentials::Players => {
            sqlx::query_scalar!(
                "UPDATE players SET failed_logins = failed_logins + 1,
                        locked_until = CASE WHEN failed_logins + 1 >= $2 THEN now() + make_interval(mins => $3) END
                  WHERE id = $1 RETURNING locked_until",
                id,
                after,
                minutes
            )
            .fetch_one(&mut *conn)
            .await?
        }
        Credentials::Staff => {
            sqlx::query_scalar!(
                "UPDATE staff SET failed_logins = failed_logins + 1,
                        locked_until = CASE WHEN failed_logins + 1 >= $2 THEN now() + make_interval(mins => $3) END
                  WHERE id = $1 RETURNING locked_until",
                id,
                after,
                minutes
            )
            .fetch_one(&mut *conn)
            .await?
        }
    })
}

/// A login of `id` that passed: its failures forgotten, its time kept, a player's account no
/// longer dormant. A player's address
/// comes back when they are told of every login by mail.
pub async fn logged_in(
    conn: &mut PgConnection,
    whose: Credentials,
    id: Uuid,
) -> Result<Option<String>, AppError> {
    Ok(match whose {
        Credentials::Players => {
            sqlx::query_scalar!(
            "UPDATE players SET failed_logins = 0, locked_until = NULL, last_login_at = now(), dormant_at = NULL
              WHERE id = $1
             RETURNING CASE WHEN login_notices THEN email END",
            id
        )
            .fetch_one(conn)
            .await?
        }
        Credentials::Staff => {
            sqlx::query!(
                "UPDATE staff SET failed_logins = 0, locked_until = NULL, last_login_at = now() WHERE id = $1",
                id
            )
            .execute(conn)
            .await?;
            None
        }
    })
}

/// A terminal's key as stored, found by its prefix.
#[derive(Debug, Clone)]
pub struct TerminalKey {
    pub id: Uuid,
    pub retailer_id: Uuid,
    pub key_hash: Vec<u8>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// The terminal whose key begins with `prefix`.
pub async fn terminal_key(pool: &PgPool, prefix: &str) -> Result<Option<TerminalKey>, AppError> {
    Ok(sqlx::query_as!(
        TerminalKey,
        "SELECT id, retailer_id, key_hash, revoked_at FROM terminals WHERE key_prefix = $1",
        prefix
    )
    .fetch_optional(pool)
    .await?)
}

/// A terminal's shop (name and address) and label, by the terminal's id.
pub async fn terminal_place(pool: &PgPool, terminal: Uuid) -> Result<Option<Place>, AppError> {
    Ok(sqlx::query_as!(
        Place,
        r#"SELECT r.name AS shop, r.address, t.label AS terminal
             FROM terminals t JOIN retailers r ON r.id = t.retailer_id WHERE t.id = $1"#,
        terminal
    )
    .fetch_optional(pool)
    .await?)
}

/// When `subject` last opened a session.
pub async fn last_session_of(pool: &PgPool, subject: &str) -> Result<Option<DateTime<Utc>>, AppError> {
    Ok(sqlx::query_scalar!("SELECT max(created_at) FROM sessions WHERE subject = $1", subject)
        .fetch_one(pool)
        .await?)
}

/// The sessions ended before their end (each replica refuses their tokens).
pub async fn ended_ids(pool: &PgPool) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar!("SELECT id FROM sessions WHERE ended_at IS NOT NULL AND expires_at > now()")
        .fetch_all(pool)
        .await
}

/// Ends `subject`'s sessions (only session `only`, when given) for `reason`; answers those ended.
pub async fn end(
    pool: &PgPool,
    subject: &str,
    only: Option<Uuid>,
    reason: &str,
) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "UPDATE sessions SET ended_at = now(), end_reason = $3
          WHERE subject = $1 AND ended_at IS NULL AND ($2::uuid IS NULL OR id = $2) RETURNING id",
        subject,
        only,
        reason
    )
    .fetch_all(pool)
    .await?)
}

/// Ends session `sid` for having been idle, in the caller's transaction.
pub async fn end_idle(conn: &mut PgConnection, sid: Uuid) -> Result<(), AppError> {
    sqlx::query!("UPDATE sessions SET ended_at = now(), end_reason = 'idle' WHERE id = $1", sid)
        .execute(conn)
        .await?;
    Ok(())
}

/// Writes the sessions' last requests (`ids[i]` seen at `at[i]`), never moving one back.
pub async fn note_last_seen(pool: &PgPool, ids: &[Uuid], at: &[DateTime<Utc>]) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "UPDATE sessions SET last_seen_at = greatest(last_seen_at, v.at)
           FROM unnest($1::uuid[], $2::timestamptz[]) AS v(id, at) WHERE sessions.id = v.id",
        ids,
        at
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// A new session of `subject` in `role` (for `org`), ending `lifetime` from now; answers when it
/// ends and its first last-seen time.
pub async fn open(
    conn: &mut PgConnection,
    sid: Uuid,
    subject: &str,
    role: Role,
    org: Option<&str>,
    lifetime: std::time::Duration,
) -> Result<(DateTime<Utc>, DateTime<Utc>), AppError> {
    let row = sqlx::query!(
        "INSERT INTO sessions (id, subject, role, org, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
         RETURNING expires_at, last_seen_at",
        sid,
        subject,
        role.as_str(),
        org,
        lifetime.as_secs_f64()
    )
    .fetch_one(conn)
    .await?;
    Ok((row.expires_at, row.last_seen_at))
}

/// A session as a renewal reads it.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub subject: String,
    pub role: Role,
    pub org: Option<String>,
    pub expires_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub last_seen_at: DateTime<Utc>,
}

/// Session `sid`, locked until the caller's transaction ends.
pub async fn lock(conn: &mut PgConnection, sid: Uuid) -> Result<SessionRow, AppError> {
    let row = sqlx::query!(
        "SELECT subject, role, org, expires_at, ended_at, last_seen_at FROM sessions WHERE id = $1 FOR UPDATE",
        sid
    )
    .fetch_one(conn)
    .await?;
    Ok(SessionRow {
        role: Role::parse(&row.role)
            .ok_or_else(|| AppError::internal(format!("a session of role {}", row.role)))?,
        subject: row.subject,
        org: row.org,
        expires_at: row.expires_at,
        ended_at: row.ended_at,
        last_seen_at: row.last_seen_at,
    })
}

/// Keeps a refresh token of `session` by its hash.
pub async fn keep_refresh_token(conn: &mut PgConnection, hash: &[u8], session: Uuid) -> Result<(), AppError> {
    sqlx::query!("INSERT INTO refresh_tokens (token_hash, session_id) VALUES ($1, $2)", hash, session)
        .execute(conn)
        .await?;
    Ok(())
}

/// Uses the refresh token with `hash` up, if it was unused; answers its session.
pub async fn use_refresh_token(conn: &mut PgConnection, hash: &[u8]) -> Result<Option<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "UPDATE refresh_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL RETURNING session_id",
        hash
    )
    .fetch_optional(conn)
    .await?)
}

/// The session (id and subject) of the refresh token with `hash`, used or not.
pub async fn refresh_token_session(
    conn: &mut PgConnection,
    hash: &[u8],
) -> Result<Option<(Uuid, String)>, AppError> {
    Ok(sqlx::query!(
        "SELECT s.id, s.subject FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE t.token_hash = $1",
        hash
    )
    .fetch_optional(conn)
    .await?
    .map(|r| (r.id, r.subject)))
}
