//! The player file as stored (`player_identities`) and the identity provider's deliveries taken
//! (`identity_events`), checked against the schema at build time ([`crate::saga::identity`]).

use chrono::{DateTime, Utc};
use platform::{AppError, stored_state};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

stored_state!(
    /// Where a player's identity check stands: sent to the provider and waiting, verified,
    /// refused, sent to an operator's review, asked for again, or back to nothing (a session
    /// that expired).
    pub IdentityState {
        Pending => "pending",
        Verified => "verified",
        Refused => "refused",
        Review => "review",
        ResubmissionRequested => "resubmission_requested",
        Unverified => "unverified",
    }
);

/// A player file to keep (the SSN's last four already sealed).
#[derive(Debug)]
pub struct NewFile<'a> {
    pub player: Uuid,
    pub legal_name: &'a str,
    pub address_line1: &'a str,
    pub address_line2: Option<&'a str>,
    pub city: &'a str,
    pub region: &'a str,
    pub postal_code: &'a str,
    pub phone: &'a str,
    pub ssn_last4: Option<Vec<u8>>,
    /// `domain::text::name_match_key` of the legal name, and the keyed digest of the SSN's last
    /// four: what exclusion lists are matched on.
    pub name_key: String,
    pub ssn_digest: Option<Vec<u8>>,
}

/// A player file as kept.
#[derive(Debug, Clone)]
pub struct FileRow {
    pub player_id: Uuid,
    pub legal_name: String,
    pub address_line1: String,
    pub address_line2: Option<String>,
    pub city: String,
    pub region: String,
    pub postal_code: String,
    pub phone: String,
    pub ssn_last4: Option<Vec<u8>>,
    pub state: String,
    pub verification_url: Option<String>,
    pub submitted_at: DateTime<Utc>,
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
    pub reason: Option<String>,
}

/// Player `player`'s file, locked in `conn`'s transaction.
pub async fn lock(conn: &mut PgConnection, player: Uuid) -> Result<Option<FileRow>, AppError> {
    Ok(sqlx::query_as!(
        FileRow,
        "SELECT player_id, legal_name, address_line1, address_line2, city, region, postal_code, phone, ssn_last4,
                state, verification_url, submitted_at, decided_by, decided_at, reason
           FROM player_identities WHERE player_id = $1 FOR UPDATE",
        player
    )
    .fetch_optional(conn)
    .await?)
}

/// Player `player`'s file.
pub async fn get(pool: &PgPool, player: Uuid) -> Result<Option<FileRow>, AppError> {
    Ok(sqlx::query_as!(
        FileRow,
        "SELECT player_id, legal_name, address_line1, address_line2, city, region, postal_code, phone, ssn_last4,
                state, verification_url, submitted_at, decided_by, decided_at, reason
           FROM player_identities WHERE player_id = $1",
        player
    )
    .fetch_optional(pool)
    .await?)
}

/// The state of player `player`'s identity check, if they submitted a file (every stake asks).
pub async fn state_of(pool: &PgPool, player: Uuid) -> Result<Option<IdentityState>, AppError> {
    sqlx::query_scalar!("SELECT state FROM player_identities WHERE player_id = $1", player)
        .fetch_optional(pool)
        .await?
        .map(|s| IdentityState::parse(&s))
        .transpose()
}

/// Keeps `file`, `pending` with the provider's session, replacing a file asked for again.
pub async fn submit(
    conn: &mut PgConnection,
    file: &NewFile<'_>,
    session: &str,
    url: &str,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO player_identities (player_id, legal_name, address_line1, address_line2, city, region,
                                        postal_code, phone, ssn_last4, state, provider_session, verification_url,
                                        name_key, ssn_digest)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $11, $12, $13)
         ON CONFLICT (player_id) DO UPDATE SET
             legal_name = EXCLUDED.legal_name, address_line1 = EXCLUDED.address_line1,
             address_line2 = EXCLUDED.address_line2, city = EXCLUDED.city, region = EXCLUDED.region,
             postal_code = EXCLUDED.postal_code, phone = EXCLUDED.phone, ssn_last4 = EXCLUDED.ssn_last4,
             name_key = EXCLUDED.name_key, ssn_digest = EXCLUDED.ssn_digest,
             state = 'pending', provider_session = EXCLUDED.provider_session,
             verification_url = EXCLUDED.verification_url, submitted_at = now(),
             decided_by = NULL, decided_at = NULL, reason = NULL, updated_at = now()",
        file.player,
        file.legal_name,
        file.address_line1,
        file.address_line2,
        file.city,
        file.region,
        file.postal_code,
        file.phone,
        file.ssn_last4,
        session,
        url,
        file.name_key,
        file.ssn_digest,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The file that waits on the provider's session `session`.
pub async fn by_session(pool: &PgPool, session: &str) -> Result<Option<FileRow>, AppError> {
    Ok(sqlx::query_as!(
        FileRow,
        "SELECT player_id, legal_name, address_line1, address_line2, city, region, postal_code, phone, ssn_last4,
                state, verification_url, submitted_at, decided_by, decided_at, reason
           FROM player_identities WHERE provider_session = $1",
        session
    )
    .fetch_optional(pool)
    .await?)
}

/// The file that waits on the provider's session `session`, locked.
pub async fn lock_by_session(conn: &mut PgConnection, session: &str) -> Result<Option<FileRow>, AppError> {
    Ok(sqlx::query_as!(
        FileRow,
        "SELECT player_id, legal_name, address_line1, address_line2, city, region, postal_code, phone, ssn_last4,
                state, verification_url, submitted_at, decided_by, decided_at, reason
           FROM player_identities WHERE provider_session = $1 FOR UPDATE",
        session
    )
    .fetch_optional(conn)
    .await?)
}

/// A decision on player `player`'s file, by `by` (`provider`, or a member of staff), made at `at`.
pub async fn decide(
    conn: &mut PgConnection,
    player: Uuid,
    state: IdentityState,
    by: &str,
    at: DateTime<Utc>,
    reason: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE player_identities SET state = $2, decided_by = $3, decided_at = $4, reason = $5, updated_at = now()
          WHERE player_id = $1",
        player,
        state.as_str(),
        by,
        at,
        reason,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Files still `pending` `hours` after they were submitted, back to `unverified` (the
/// provider's session lapsed unfinished): how many.
pub async fn expire_pending(pool: &PgPool, hours: i32, reason: &str) -> Result<u64, AppError> {
    Ok(sqlx::query!(
        "UPDATE player_identities
            SET state = 'unverified', decided_by = 'expiry', decided_at = now(), reason = $2, updated_at = now()
          WHERE state = 'pending' AND submitted_at < now() - make_interval(hours => $1)",
        hours,
        reason,
    )
    .execute(pool)
    .await?
    .rows_affected())
}

/// Records a delivery of the provider's; false when it was taken before.
pub async fn take_event(conn: &mut PgConnection, id: &str, session: &str) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "INSERT INTO identity_events (id, session) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
        id,
        session
    )
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// The files waiting for an operator's review, oldest first.
pub async fn in_review(pool: &PgPool, limit: i64) -> Result<Vec<FileRow>, AppError> {
    Ok(sqlx::query_as!(
        FileRow,
        "SELECT player_id, legal_name, address_line1, address_line2, city, region, postal_code, phone, ssn_last4,
                state, verification_url, submitted_at, decided_by, decided_at, reason
           FROM player_identities WHERE state = 'review' ORDER BY submitted_at LIMIT $1",
        limit
    )
    .fetch_all(pool)
    .await?)
}
