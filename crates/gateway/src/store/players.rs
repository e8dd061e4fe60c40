//! Players as stored (`players`, `player_limits`): registration, the profile, breaks,
//! exclusions and closure, and deposit and time limits ([`crate::saga::players`]), checked against the schema at build time.

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// A player's row.
#[derive(Debug, Clone)]
pub struct PlayerRow {
    pub id: Uuid,
    pub email: String,
    pub date_of_birth: NaiveDate,
    pub wallet_account_id: Uuid,
    pub last_login_at: Option<DateTime<Utc>>,
    pub self_excluded_until: Option<DateTime<Utc>>,
    pub on_break_until: Option<DateTime<Utc>>,
    pub excluded_permanently: bool,
    pub return_requested_at: Option<DateTime<Utc>>,
    pub closed_at: Option<DateTime<Utc>>,
    pub reopen_requested_at: Option<DateTime<Utc>>,
    /// The exclusion-list entry the player matched.
    pub listed_entry: Option<Uuid>,
    /// Since when the player's future tickets wait to be voided.
    pub voids_pending_since: Option<DateTime<Utc>>,
    /// When the player proved the address by its link; `None`: not yet.
    pub email_verified_at: Option<DateTime<Utc>>,
    /// Whether the player is told of every login by mail.
    pub login_notices: bool,
    /// Since when the player's deposits are stopped (five failed within 10 minutes).
    pub deposits_blocked_at: Option<DateTime<Utc>>,
    /// Where the player's identity check stands; `None`: no player file yet.
    pub identity_state: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A new player, before its wallet is opened.
#[derive(Debug)]
pub struct NewPlayer<'a> {
    pub id: Uuid,
    pub email: &'a str,
    /// `domain::text::email_match_key` of the email.
    pub email_key: &'a str,
    pub password_hash: &'a str,
    pub date_of_birth: NaiveDate,
    pub wallet: Uuid,
}

/// The players whose address has `key` (`domain::text::email_match_key`) and who were born on
/// `date_of_birth`: the same person, however the address was written.
pub async fn same_person(
    pool: &PgPool,
    key: &str,
    date_of_birth: NaiveDate,
) -> Result<Vec<PlayerRow>, AppError> {
    Ok(sqlx::query_as!(
        PlayerRow,
        "SELECT id, email, date_of_birth, wallet_account_id, last_login_at, self_excluded_until, on_break_until,
                excluded_permanently, return_requested_at, closed_at, reopen_requested_at, listed_entry,
                voids_pending_since, email_verified_at, login_notices, deposits_blocked_at,
                (SELECT state FROM player_identities i WHERE i.player_id = players.id) AS identity_state, created_at
           FROM players WHERE email_key = $1 AND date_of_birth = $2",
        key,
        date_of_birth
    )
    .fetch_all(pool)
    .await?)
}

/// Records `player` on `conn`; false when another took its email first.
pub async fn insert(conn: &mut PgConnection, player: &NewPlayer<'_>) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "INSERT INTO players (id, email, email_key, password_hash, date_of_birth, wallet_account_id)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING",
        player.id,
        player.email,
        player.email_key,
        player.password_hash,
        player.date_of_birth,
        player.wallet
    )
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// How a player is written to: by the address they registered.
#[derive(Debug)]
pub struct Contact {
    pub id: Uuid,
    pub email: String,
    pub email_verified_at: Option<DateTime<Utc>>,
}

/// The player with `email` (lower-cased by the caller), as mail reaches them.
pub async fn contact(pool: &PgPool, email: &str) -> Result<Option<Contact>, AppError> {
    Ok(sqlx::query_as!(Contact, "SELECT id, email, email_verified_at FROM players WHERE email = $1", email)
        .fetch_optional(pool)
        .await?)
}

/// Player `id`'s address.
pub async fn email_of(conn: &mut PgConnection, id: Uuid) -> Result<String, AppError> {
    Ok(sqlx::query_scalar!("SELECT email FROM players WHERE id = $1", id).fetch_one(conn).await?)
}

/// Player `id`'s address proved (when first proved, kept): the address and since when.
pub async fn verify_email(conn: &mut PgConnection, id: Uuid) -> Result<(String, DateTime<Utc>), AppError> {
    let row = sqlx::query!(
        r#"UPDATE players SET email_verified_at = coalesce(email_verified_at, now()) WHERE id = $1
           RETURNING email, email_verified_at AS "verified!""#,
        id
    )
    .fetch_one(conn)
    .await?;
    Ok((row.email, row.verified))
}

/// Player `id`'s new password hash; a lock of failed logins lifted with it (a reset by the
/// mailed link is the strong way back in, N.J.A.C. 13:69O-1.4).
pub async fn set_password(conn: &mut PgConnection, id: Uuid, hash: &str) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE players SET password_hash = $2, failed_logins = 0, locked_until = NULL WHERE id = $1",
        id,
        hash
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Lifts the stop on player `id`'s deposits; answers since when they were stopped (`None`: they
/// were not).
pub async fn clear_deposit_block(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<DateTime<Utc>>, AppError> {
    Ok(sqlx::query_scalar!(
        "UPDATE players p SET deposits_blocked_at = NULL FROM players old
          WHERE p.id = $1 AND old.id = p.id AND old.deposits_blocked_at IS NOT NULL
          RETURNING old.deposits_blocked_at AS \"was!\"",
        id
    )
    .fetch_optional(conn)
    .await?)
}

/// Whether player `id` is told of every login by mail.
pub async fn set_login_notices(pool: &PgPool, id: Uuid, on: bool) -> Result<(), AppError> {
    sqlx::query!("UPDATE players SET login_notices = $2 WHERE id = $1", id, on).execute(pool).await?;
    Ok(())
}

/// The player whose wallet is `wallet`, if it is a player's.
pub async fn by_wallet(pool: &PgPool, wallet: Uuid) -> Result<Option<PlayerRow>, AppError> {
    Ok(sqlx::query_as!(
        PlayerRow,
        "SELECT id, email, date_of_birth, wallet_account_id, last_login_at, self_excluded_until, on_break_until,
                excluded_permanently, return_requested_at, closed_at, reopen_requested_at, listed_entry,
                voids_pending_since, email_verified_at, login_notices, deposits_blocked_at,
                (SELECT state FROM player_identities i WHERE i.player_id = players.id) AS identity_state, created_at
           FROM players WHERE wallet_account_id = $1",
        wallet
    )
    .fetch_optional(pool)
    .await?)
}

/// Player `id`.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<PlayerRow>, AppError> {
    Ok(sqlx::query_as!(
        PlayerRow,
        "SELECT id, email, date_of_birth, wallet_account_id, last_login_at, self_excluded_until, on_break_until,
                excluded_permanently, return_requested_at, closed_at, reopen_requested_at, listed_entry,
                voids_pending_since, email_verified_at, login_notices, deposits_blocked_at,
                (SELECT state FROM player_identities i WHERE i.player_id = players.id) AS identity_state, created_at
           FROM players WHERE id = $1",
        id
    )
    .fetch_optional(pool)
    .await?)
}

/// The id of the player with `email` (compared lower-cased, as logins do).
pub async fn id_by_email(pool: &PgPool, email: &str) -> Result<Option<Uuid>, AppError> {
    Ok(sqlx::query_scalar!("SELECT id FROM players WHERE email = lower($1)", email)
        .fetch_optional(pool)
        .await?)
}

/// A player found by part of their email.
#[derive(Debug)]
pub struct MatchRow {
    pub id: Uuid,
    pub email: String,
    pub created_at: DateTime<Utc>,
}

/// Players whose email holds `part` (without case; `%` and `_` in it are literal), by email,
/// at most `limit`. A scan of the players' emails: an operator's lookup, not a player's path.
pub async fn matching_email(pool: &PgPool, part: &str, limit: i64) -> Result<Vec<MatchRow>, AppError> {
    let pattern =
        format!("%{}%", part.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    Ok(sqlx::query_as!(
        MatchRow,
        "SELECT id, email, created_at FROM players WHERE lower(email) LIKE $1 ORDER BY email LIMIT $2",
        pattern,
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// Excludes player `id` until `until`, never shortening an exclusion in force (their future
/// tickets to void); answers the end.
pub async fn exclude_until(
    conn: &mut PgConnection,
    id: Uuid,
    until: DateTime<Utc>,
) -> Result<DateTime<Utc>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE players SET self_excluded_until = greatest(coalesce(self_excluded_until, $2), $2),
                              voids_pending_since = coalesce(voids_pending_since, now())
            WHERE id = $1 RETURNING self_excluded_until AS "until!""#,
        id,
        until
    )
    .fetch_one(conn)
    .await?)
}

/// Puts player `id` on a break until `until`, never shortening one in force (their future
/// tickets to void); answers the end.
pub async fn break_until(
    conn: &mut PgConnection,
    id: Uuid,
    until: DateTime<Utc>,
) -> Result<DateTime<Utc>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE players SET on_break_until = greatest(coalesce(on_break_until, $2), $2),
                              voids_pending_since = coalesce(voids_pending_since, now())
            WHERE id = $1 RETURNING on_break_until AS "until!""#,
        id,
        until
    )
    .fetch_one(conn)
    .await?)
}

/// Excludes player `id` for good (their future tickets to void).
pub async fn exclude_permanently(conn: &mut PgConnection, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE players SET excluded_permanently = true, voids_pending_since = coalesce(voids_pending_since, now())
          WHERE id = $1",
        id
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Records that player `id` asked to play again after their fixed-term exclusion ended (the
/// first such request after it counts; a later one does not move the cooling-off on).
pub async fn request_return(conn: &mut PgConnection, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE players SET return_requested_at = now()
          WHERE id = $1 AND (return_requested_at IS NULL OR return_requested_at < self_excluded_until)",
        id
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Closes player `id`'s account (their future tickets to void); closing a closed one again
/// starts over, cancelling a reopening asked for.
pub async fn close(conn: &mut PgConnection, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE players SET closed_at = now(), reopen_requested_at = NULL,
                voids_pending_since = coalesce(voids_pending_since, now())
          WHERE id = $1",
        id
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Records that player `id` asked to reopen their closed account (the first request counts).
pub async fn request_reopen(conn: &mut PgConnection, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE players SET reopen_requested_at = now() WHERE id = $1 AND closed_at IS NOT NULL
            AND (reopen_requested_at IS NULL OR reopen_requested_at < closed_at)",
        id
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Player `id`'s future tickets are voided (as of `since`, when the void was asked for): a
/// later suspension's request, set meanwhile, stays.
pub async fn voids_done(pool: &PgPool, id: Uuid, since: DateTime<Utc>) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE players SET voids_pending_since = NULL WHERE id = $1 AND voids_pending_since <= $2",
        id,
        since
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Players whose future tickets still wait to be voided, asked for longer than `older_than` ago.
pub async fn voids_pending(pool: &PgPool, older_than: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM players WHERE voids_pending_since < now() - make_interval(secs => $1)
          ORDER BY voids_pending_since LIMIT 100",
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// What a player's limit counts: cents deposited, or minutes played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    Deposit,
    Time,
}

impl LimitKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LimitKind::Deposit => "deposit",
            LimitKind::Time => "time",
        }
    }
}

/// A deposit or time limit's row: the amount in force and a raise (or removal) waiting.
#[derive(Debug, Clone)]
pub struct LimitRow {
    pub period: String,
    pub amount: Option<i64>,
    pub pending_amount: Option<i64>,
    pub pending_none: bool,
    pub pending_from: Option<DateTime<Utc>>,
}

/// A player's limits of `kind`, raises whose delay has passed applied first.
pub async fn limits(pool: &PgPool, player: Uuid, kind: LimitKind) -> Result<Vec<LimitRow>, AppError> {
    sqlx::query!(
        "UPDATE player_limits SET amount = CASE WHEN pending_none THEN NULL ELSE pending_amount END,
                pending_amount = NULL, pending_none = false, pending_from = NULL
          WHERE player_id = $1 AND kind = $2 AND pending_from <= now()",
        player,
        kind.as_str()
    )
    .execute(pool)
    .await?;
    Ok(sqlx::query_as!(
        LimitRow,
        "SELECT period, amount, pending_amount, pending_none, pending_from FROM player_limits
          WHERE player_id = $1 AND kind = $2",
        player,
        kind.as_str()
    )
    .fetch_all(pool)
    .await?)
}

/// The limit of `kind` binding `player` now in each period, a raise whose delay has passed
/// counted as applied: one read, no write (the stake path's; `limits` writes the raise down).
pub async fn binding_limits(
    pool: &PgPool,
    player: Uuid,
    kind: LimitKind,
) -> Result<Vec<(String, Option<i64>)>, AppError> {
    let rows = sqlx::query!(
        r#"SELECT period,
                  CASE WHEN pending_from <= now() THEN CASE WHEN pending_none THEN NULL ELSE pending_amount END
                       ELSE amount END AS "amount?: i64"
             FROM player_limits WHERE player_id = $1 AND kind = $2"#,
        player,
        kind.as_str()
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|r| (r.period, r.amount)).collect())
}

/// Sets `player`'s `kind` limit of `period` to `amount` now, cancelling any raise that was waiting.
pub async fn lower_limit(
    conn: &mut PgConnection,
    player: Uuid,
    kind: LimitKind,
    period: &str,
    amount: i64,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO player_limits (player_id, kind, period, amount) VALUES ($1, $2, $3, $4)
         ON CONFLICT (player_id, kind, period) DO UPDATE
            SET amount = $4, pending_amount = NULL, pending_none = false, pending_from = NULL",
        player,
        kind.as_str(),
        period,
        amount
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Raises (or, with `None`, removes) `player`'s `kind` limit of `period` after `delay_hours`.
pub async fn raise_limit(
    conn: &mut PgConnection,
    player: Uuid,
    kind: LimitKind,
    period: &str,
    amount: Option<i64>,
    delay_hours: i32,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO player_limits (player_id, kind, period, amount, pending_amount, pending_none, pending_from)
         VALUES ($1, $2, $3, NULL, $4::bigint, $4::bigint IS NULL, now() + make_interval(hours => $5))
         ON CONFLICT (player_id, kind, period) DO UPDATE
            SET pending_amount = $4::bigint, pending_none = $4::bigint IS NULL, pending_from = now() + make_interval(hours => $5)",
        player,
        kind.as_str(),
        period,
        amount,
        delay_hours
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The email of the player whose wallet is `wallet`, on `conn`.
pub async fn email_of_wallet(conn: &mut PgConnection, wallet: Uuid) -> Result<String, AppError> {
    Ok(sqlx::query_scalar!("SELECT email FROM players WHERE wallet_account_id = $1", wallet)
        .fetch_one(conn)
        .await?)
}

/// The id and email of the player whose wallet is `wallet`, if one of this service's players.
pub async fn owner_of_wallet(pool: &PgPool, wallet: Uuid) -> Result<Option<(Uuid, String)>, AppError> {
    let row = sqlx::query!("SELECT id, email FROM players WHERE wallet_account_id = $1", wallet)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|r| (r.id, r.email)))
}
