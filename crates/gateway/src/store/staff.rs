//! The operator's records as stored (`staff`, `retailers`, `terminals`): every statement of
//! [`crate::saga::staff`], and the check that a pack is shipped to a retailer that exists;
//! checked against the schema at build time.

use chrono::{DateTime, Utc};
use platform::AppError;
use platform::auth::Role;
use platform::events::{self, Event, Kind};
use sqlx::PgPool;
use uuid::Uuid;

/// Records staff member `username` (lower-cased) in `role`; false when the username is taken.
pub async fn insert_staff(
    pool: &PgPool,
    id: Uuid,
    username: &str,
    password_hash: &str,
    role: Role,
    created_by: Option<Uuid>,
) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "INSERT INTO staff (id, username, password_hash, role, created_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (username) DO NOTHING",
        id,
        username,
        password_hash,
        role.as_str(),
        created_by
    )
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// A staff member's row.
#[derive(Debug, Clone)]
pub struct StaffRow {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
    pub last_login_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// A staff member's username, by the id their session names (none for an id not on record).
pub async fn username_of(pool: &PgPool, subject: &str) -> Result<Option<String>, AppError> {
    let Ok(id) = Uuid::parse_str(subject) else { return Ok(None) };
    Ok(sqlx::query_scalar!("SELECT username FROM staff WHERE id = $1", id).fetch_optional(pool).await?)
}

/// Every staff member, by username.
pub async fn list_staff(pool: &PgPool) -> Result<Vec<StaffRow>, AppError> {
    sqlx::query!("SELECT id, username, role, last_login_at, created_at FROM staff ORDER BY username")
        .fetch_all(pool)
        .await?
        .into_iter()
        .map(|r| {
            Ok(StaffRow {
                role: Role::parse(&r.role)
                    .ok_or_else(|| AppError::internal(format!("a stored role {:?}", r.role)))?,
                id: r.id,
                username: r.username,
                last_login_at: r.last_login_at,
                created_at: r.created_at,
            })
        })
        .collect()
}

/// A retailer's row.
#[derive(Debug, Clone)]
pub struct RetailerRow {
    pub id: Uuid,
    pub name: String,
    pub address: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// Records a retailer.
pub async fn insert_retailer(
    pool: &PgPool,
    id: Uuid,
    name: &str,
    address: Option<&str>,
) -> Result<RetailerRow, AppError> {
    Ok(sqlx::query_as!(
        RetailerRow,
        "INSERT INTO retailers (id, name, address) VALUES ($1, $2, $3) RETURNING id, name, address, created_at",
        id,
        name,
        address
    )
    .fetch_one(pool)
    .await?)
}

/// Renames retailer `id` and/or gives it a new address (`Some(None)` takes the address away);
/// none when it does not exist.
pub async fn change_retailer(
    pool: &PgPool,
    id: Uuid,
    name: Option<&str>,
    address: Option<Option<&str>>,
) -> Result<Option<RetailerRow>, AppError> {
    Ok(sqlx::query_as!(
        RetailerRow,
        "UPDATE retailers SET name = coalesce($2, name), address = CASE WHEN $3 THEN $4 ELSE address END
          WHERE id = $1 RETURNING id, name, address, created_at",
        id,
        name,
        address.is_some(),
        address.flatten()
    )
    .fetch_optional(pool)
    .await?)
}

/// Every retailer, oldest first.
pub async fn list_retailers(pool: &PgPool) -> Result<Vec<RetailerRow>, AppError> {
    Ok(sqlx::query_as!(
        RetailerRow,
        "SELECT id, name, address, created_at FROM retailers ORDER BY created_at"
    )
    .fetch_all(pool)
    .await?)
}

/// Whether retailer `id` exists.
pub async fn retailer_exists(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(r#"SELECT EXISTS (SELECT 1 FROM retailers WHERE id = $1) AS "exists!""#, id)
        .fetch_one(pool)
        .await?)
}

/// A terminal's row (its key's digest left out).
#[derive(Debug, Clone)]
pub struct TerminalRow {
    pub id: Uuid,
    pub label: String,
    pub key_prefix: String,
    pub revoked_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// Retailer `retailer`'s terminals, oldest first, revoked ones included.
pub async fn list_terminals(pool: &PgPool, retailer: Uuid) -> Result<Vec<TerminalRow>, AppError> {
    Ok(sqlx::query_as!(
        TerminalRow,
        "SELECT id, label, key_prefix, revoked_at, created_at FROM terminals WHERE retailer_id = $1 ORDER BY created_at, id",
        retailer
    )
    .fetch_all(pool)
    .await?)
}

/// Records a terminal of `retailer` with its key's prefix and digest.
pub async fn insert_terminal(
    pool: &PgPool,
    id: Uuid,
    retailer: Uuid,
    label: &str,
    prefix: &str,
    digest: &[u8],
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO terminals (id, retailer_id, label, key_prefix, key_hash) VALUES ($1, $2, $3, $4, $5)",
        id,
        retailer,
        label,
        prefix,
        digest
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Revokes terminal `id`'s key (the first revocation's time kept); false when it does not exist.
pub async fn revoke_terminal(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query!("UPDATE terminals SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1", id)
        .execute(pool)
        .await?
        .rows_affected()
        == 1)
}

/// What a member of staff did, as it is recorded.
#[derive(Debug)]
pub struct StaffAction<'a> {
    pub staff: &'a str,
    /// `deposit_block.clear`, ...
    pub action: &'a str,
    /// What it was done to (`player:<id>`, ...).
    pub subject: String,
    pub before: serde_json::Value,
    pub after: serde_json::Value,
    pub reason: &'a str,
}

/// Records `action` on `conn` (the transaction of the change it records).
pub async fn record_action(conn: &mut sqlx::PgConnection, action: &StaffAction<'_>) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO staff_actions (id, staff_id, action, subject, before, after, reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        Uuid::now_v7(),
        action.staff,
        action.action,
        action.subject,
        action.before,
        action.after,
        action.reason,
    )
    .execute(&mut *conn)
    .await?;
    // The same action in the significant-events log, about whom it concerns.
    let mut event = Event::new(Kind::StaffAction, &ActionRecord::of(action))?.staff(action.staff);
    match action.subject.split_once(':') {
        Some(("player", id)) => event = event.player(id.parse().map_err(AppError::internal)?),
        Some(("retailer", id)) => event = event.retailer(id.parse().map_err(AppError::internal)?),
        Some(("terminal", id)) => event = event.terminal(id),
        _ => {}
    }
    events::record(conn, crate::SCHEMA, &event).await
}

/// A staff action as the significant-events log records it: what, to whom, before, after, why
/// (68 IAC 25-3-8's exception report).
#[derive(Debug, serde::Serialize)]
struct ActionRecord<'a> {
    action: &'a str,
    subject: &'a str,
    before: &'a serde_json::Value,
    after: &'a serde_json::Value,
    reason: &'a str,
}

impl<'a> ActionRecord<'a> {
    fn of(action: &'a StaffAction<'a>) -> ActionRecord<'a> {
        ActionRecord {
            action: action.action,
            subject: &action.subject,
            before: &action.before,
            after: &action.after,
            reason: action.reason,
        }
    }
}
