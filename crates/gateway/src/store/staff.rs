//! The operator's records as stored (`staff`, `retailers`, `terminals`): every statement of
//! [`crate::admin`], and the check that a pack is shipped to a retailer that exists.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::{PgPool, Row};
use uuid::Uuid;

/// Records staff member `username` (lower-cased) in `role`; false when the username is taken.
pub async fn insert_staff(
    pool: &PgPool,
    id: Uuid,
    username: &str,
    password_hash: &str,
    role: &str,
    created_by: Option<Uuid>,
) -> Result<bool, AppError> {
    Ok(sqlx::query(
        "INSERT INTO staff (id, username, password_hash, role, created_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (username) DO NOTHING",
    )
    .bind(id)
    .bind(username)
    .bind(password_hash)
    .bind(role)
    .bind(created_by)
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
    pub role: String,
    pub last_login_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// Every staff member, by username.
pub async fn list_staff(pool: &PgPool) -> Result<Vec<StaffRow>, AppError> {
    sqlx::query("SELECT id, username, role, last_login_at, created_at FROM staff ORDER BY username")
        .fetch_all(pool)
        .await?
        .iter()
        .map(|r| {
            Ok(StaffRow {
                id: r.try_get("id")?,
                username: r.try_get("username")?,
                role: r.try_get("role")?,
                last_login_at: r.try_get("last_login_at")?,
                created_at: r.try_get("created_at")?,
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

fn retailer_of(row: &sqlx::postgres::PgRow) -> Result<RetailerRow, AppError> {
    Ok(RetailerRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        address: row.try_get("address")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Records a retailer.
pub async fn insert_retailer(
    pool: &PgPool,
    id: Uuid,
    name: &str,
    address: Option<&str>,
) -> Result<RetailerRow, AppError> {
    let row = sqlx::query(
        "INSERT INTO retailers (id, name, address) VALUES ($1, $2, $3) RETURNING id, name, address, created_at",
    )
    .bind(id)
    .bind(name)
    .bind(address)
    .fetch_one(pool)
    .await?;
    retailer_of(&row)
}

/// Renames retailer `id` and/or gives it a new address (`Some(None)` takes the address away);
/// none when it does not exist.
pub async fn change_retailer(
    pool: &PgPool,
    id: Uuid,
    name: Option<&str>,
    address: Option<Option<&str>>,
) -> Result<Option<RetailerRow>, AppError> {
    sqlx::query(
        "UPDATE retailers SET name = coalesce($2, name), address = CASE WHEN $3 THEN $4 ELSE address END
          WHERE id = $1 RETURNING id, name, address, created_at",
    )
    .bind(id)
    .bind(name)
    .bind(address.is_some())
    .bind(address.flatten())
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(retailer_of)
    .transpose()
}

/// Every retailer, oldest first.
pub async fn list_retailers(pool: &PgPool) -> Result<Vec<RetailerRow>, AppError> {
    sqlx::query("SELECT id, name, address, created_at FROM retailers ORDER BY created_at")
        .fetch_all(pool)
        .await?
        .iter()
        .map(retailer_of)
        .collect()
}

/// Whether retailer `id` exists.
pub async fn retailer_exists(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM retailers WHERE id = $1)")
        .bind(id)
        .fetch_one(pool)
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
    sqlx::query(
        "INSERT INTO terminals (id, retailer_id, label, key_prefix, key_hash) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(retailer)
    .bind(label)
    .bind(prefix)
    .bind(digest)
    .execute(pool)
    .await?;
    Ok(())
}

/// Revokes terminal `id`'s key (the first revocation's time kept); false when it does not exist.
pub async fn revoke_terminal(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query("UPDATE terminals SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1")
        .bind(id)
        .execute(pool)
        .await?
        .rows_affected()
        == 1)
}
