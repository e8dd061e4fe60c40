//! State and operator exclusion lists (`exclusion_list`, `exclusion_matches`; issue 35, ADR
//! 0014 §5): entries written, matched against players, every match logged; and dormant
//! accounts.

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::PgPool;
use uuid::Uuid;

/// One person on a list, as imported or entered.
#[derive(Debug, Clone)]
pub struct NewEntry {
    pub source: String,
    pub reference: String,
    /// Lower-cased.
    pub email: String,
    /// `domain::text::email_match_key` of the email: what players are matched on.
    pub email_key: String,
    pub date_of_birth: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    /// The person's legal name, as the list gives it, and its `domain::text::name_match_key`.
    pub legal_name: Option<String>,
    pub name_key: Option<String>,
    /// The keyed digest of the SSN's last four, where the list gives them.
    pub ssn_digest: Option<Vec<u8>>,
}

/// An entry as stored, with how many players it matched.
#[derive(Debug, Clone)]
pub struct EntryRow {
    pub id: Uuid,
    pub source: String,
    pub reference: String,
    pub email: String,
    pub legal_name: Option<String>,
    pub date_of_birth: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    pub added_by: String,
    pub added_at: DateTime<Utc>,
    pub matches: i64,
}

/// Writes `entries` (a file's lines, or one entry) in one transaction: a reference the source
/// has already is replaced (a list re-imported updates in place). Answers how many were new.
pub async fn upsert(pool: &PgPool, entries: &[NewEntry], by: &str) -> Result<u64, AppError> {
    let mut tx = pool.begin().await?;
    let mut added = 0;
    for e in entries {
        let new = sqlx::query_scalar!(
            r#"INSERT INTO exclusion_list (id, source, reference, email, email_key, date_of_birth, ends_on, added_by,
                                          legal_name, name_key, ssn_digest)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
               ON CONFLICT (source, reference) DO UPDATE
                  SET email = excluded.email, email_key = excluded.email_key, date_of_birth = excluded.date_of_birth, ends_on = excluded.ends_on,
                      legal_name = excluded.legal_name, name_key = excluded.name_key, ssn_digest = excluded.ssn_digest,
                      added_by = excluded.added_by, added_at = now(), removed_at = NULL, removed_by = NULL
               RETURNING (xmax = 0) AS "inserted!""#,
            Uuid::now_v7(),
            e.source,
            e.reference,
            e.email,
            e.email_key,
            e.date_of_birth,
            e.ends_on,
            by,
            e.legal_name,
            e.name_key,
            e.ssn_digest,
        )
        .fetch_one(&mut *tx)
        .await?;
        added += u64::from(new);
    }
    tx.commit().await?;
    Ok(added)
}

/// The entries on the lists now, newest first (at most 1,000).
pub async fn entries(pool: &PgPool) -> Result<Vec<EntryRow>, AppError> {
    Ok(sqlx::query_as!(
        EntryRow,
        r#"SELECT l.id, l.source, l.reference, l.email, l.legal_name, l.date_of_birth, l.ends_on, l.added_by, l.added_at,
                  (SELECT count(*) FROM exclusion_matches m WHERE m.entry_id = l.id) AS "matches!"
             FROM exclusion_list l WHERE l.removed_at IS NULL ORDER BY l.added_at DESC LIMIT 1000"#
    )
    .fetch_all(pool)
    .await?)
}

/// Takes an entry off the lists (kept on the record, with who took it off); false when no
/// entry of that id is on them.
pub async fn remove(pool: &PgPool, id: Uuid, by: &str) -> Result<bool, AppError> {
    let removed = sqlx::query!(
        "UPDATE exclusion_list SET removed_at = now(), removed_by = $2 WHERE id = $1 AND removed_at IS NULL",
        id,
        by
    )
    .execute(pool)
    .await?;
    Ok(removed.rows_affected() == 1)
}

/// The entry in force that an address of `email_key` born `date_of_birth` matches, if any:
/// the address alike as a person reads it, and the date of birth where the entry gives one.
pub async fn matching(
    pool: &PgPool,
    email_key: &str,
    date_of_birth: NaiveDate,
) -> Result<Option<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM exclusion_list
          WHERE email_key = $1 AND (date_of_birth IS NULL OR date_of_birth = $2)
            AND removed_at IS NULL AND (ends_on IS NULL OR ends_on >= current_date)
          ORDER BY added_at LIMIT 1",
        email_key,
        date_of_birth
    )
    .fetch_optional(pool)
    .await?)
}

/// The entry in force that player `player` matches, if any: by email (as [`matching`]), or by
/// their player file's legal name and their date of birth (the entry's date required), unless
/// both the entry and the file give the SSN's last four and they differ.
pub async fn matching_player(pool: &PgPool, player: Uuid) -> Result<Option<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT l.id FROM players p
           LEFT JOIN player_identities f ON f.player_id = p.id
           JOIN exclusion_list l
             ON (l.email_key = p.email_key AND (l.date_of_birth IS NULL OR l.date_of_birth = p.date_of_birth))
             OR (l.name_key = f.name_key AND l.date_of_birth = p.date_of_birth
                 AND (l.ssn_digest IS NULL OR f.ssn_digest IS NULL OR l.ssn_digest = f.ssn_digest))
          WHERE p.id = $1 AND l.removed_at IS NULL AND (l.ends_on IS NULL OR l.ends_on >= current_date)
          ORDER BY l.added_at LIMIT 1",
        player
    )
    .fetch_optional(pool)
    .await?)
}

/// Logs a verification refused because player `player` matched `entry`.
pub async fn log_refused_verification(pool: &PgPool, entry: Uuid, player: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO exclusion_matches (entry_id, player_id, email, kind)
         SELECT $1, id, email, 'verification' FROM players WHERE id = $2
         ON CONFLICT DO NOTHING",
        entry,
        player
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Logs a registration refused because its email matched `entry`.
pub async fn log_refused_registration(pool: &PgPool, entry: Uuid, email: &str) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO exclusion_matches (entry_id, player_id, email, kind) VALUES ($1, NULL, $2, 'registration')",
        entry,
        email
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Marks every player an entry in force matches and who is not marked yet, logging each match
/// once (their future tickets to void); answers them. Safe on every replica at once: a player
/// is marked by one statement, and a match logged once.
pub async fn mark_matches(pool: &PgPool) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"WITH candidates AS (
               SELECT p.id AS player, l.id AS entry, p.email, l.added_at
                 FROM players p JOIN exclusion_list l ON l.email_key = p.email_key
                      AND (l.date_of_birth IS NULL OR l.date_of_birth = p.date_of_birth)
                WHERE p.listed_entry IS NULL AND l.removed_at IS NULL
                  AND (l.ends_on IS NULL OR l.ends_on >= current_date)
               UNION ALL
               -- A verified identity: its legal name and date of birth, the SSN's digits where
               -- both give them.
               SELECT p.id, l.id, p.email, l.added_at
                 FROM player_identities f JOIN players p ON p.id = f.player_id
                 JOIN exclusion_list l ON l.name_key = f.name_key AND l.date_of_birth = p.date_of_birth
                      AND (l.ssn_digest IS NULL OR f.ssn_digest IS NULL OR l.ssn_digest = f.ssn_digest)
                WHERE f.state = 'verified' AND p.listed_entry IS NULL AND l.removed_at IS NULL
                  AND (l.ends_on IS NULL OR l.ends_on >= current_date)),
           found AS (
               SELECT DISTINCT ON (player) player, entry, email FROM candidates ORDER BY player, added_at),
           marked AS (
               UPDATE players p SET listed_entry = f.entry,
                      voids_pending_since = coalesce(p.voids_pending_since, now())
                 FROM found f WHERE p.id = f.player AND p.listed_entry IS NULL
               RETURNING p.id, f.entry, f.email),
           logged AS (
               INSERT INTO exclusion_matches (entry_id, player_id, email, kind)
               SELECT entry, id, email, 'account' FROM marked
               ON CONFLICT DO NOTHING)
           SELECT id AS "id!" FROM marked"#
    )
    .fetch_all(pool)
    .await?)
}

/// Rows written before addresses had match keys (at most `limit` of each table): their ids
/// and emails, for the caller to key ([`keep_keys`]).
pub async fn unkeyed(
    pool: &PgPool,
    limit: i64,
) -> Result<(Vec<(Uuid, String)>, Vec<(Uuid, String)>), AppError> {
    let players = sqlx::query!("SELECT id, email FROM players WHERE email_key IS NULL LIMIT $1", limit)
        .fetch_all(pool)
        .await?;
    let entries =
        sqlx::query!("SELECT id, email FROM exclusion_list WHERE email_key IS NULL LIMIT $1", limit)
            .fetch_all(pool)
            .await?;
    Ok((
        players.into_iter().map(|r| (r.id, r.email)).collect(),
        entries.into_iter().map(|r| (r.id, r.email)).collect(),
    ))
}

/// Keeps the match keys of players' and entries' addresses (ids with their keys).
pub async fn keep_keys(
    pool: &PgPool,
    players: &[(Uuid, String)],
    entries: &[(Uuid, String)],
) -> Result<(), AppError> {
    let (ids, keys): (Vec<Uuid>, Vec<String>) = players.iter().cloned().unzip();
    sqlx::query!(
        "UPDATE players p SET email_key = k.key FROM unnest($1::uuid[], $2::text[]) AS k (id, key) WHERE p.id = k.id",
        &ids,
        &keys
    )
    .execute(pool)
    .await?;
    let (ids, keys): (Vec<Uuid>, Vec<String>) = entries.iter().cloned().unzip();
    sqlx::query!(
        "UPDATE exclusion_list l SET email_key = k.key FROM unnest($1::uuid[], $2::text[]) AS k (id, key) WHERE l.id = k.id",
        &ids,
        &keys
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Unmarks players whose entry has ended or left the list; answers them.
pub async fn unmark_ended(pool: &PgPool) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "UPDATE players p SET listed_entry = NULL
           FROM exclusion_list l
          WHERE l.id = p.listed_entry AND (l.removed_at IS NOT NULL OR l.ends_on < current_date)
         RETURNING p.id"
    )
    .fetch_all(pool)
    .await?)
}

/// A dormant account: no login for the configured days.
#[derive(Debug, Clone)]
pub struct DormantRow {
    pub id: Uuid,
    pub email: String,
    pub wallet_account_id: Uuid,
    pub last_login_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// A page of the players without a login (or, never logged in, registered) for `days` days,
/// longest first, after the one dormant since `after` (its time and id).
pub async fn dormant(
    pool: &PgPool,
    days: i32,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
) -> Result<Vec<DormantRow>, AppError> {
    let (after_at, after_id) = after.unzip();
    Ok(sqlx::query_as!(
        DormantRow,
        "SELECT id, email, wallet_account_id, last_login_at, created_at FROM players
          WHERE coalesce(last_login_at, created_at) < now() - make_interval(days => $1)
            AND ($2::timestamptz IS NULL OR (coalesce(last_login_at, created_at), id) > ($2, $3))
          ORDER BY coalesce(last_login_at, created_at), id LIMIT $4",
        days,
        after_at,
        after_id,
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// Marks dormant the players with no login for `days` (or none since they registered) not
/// marked yet, at most `limit`, each with its significant event in the same transaction; returns
/// how many. Replicas marking at once skip each other's rows, so each is marked once.
pub async fn mark_dormant(pool: &PgPool, days: i32, limit: i64) -> Result<usize, AppError> {
    let mut tx = pool.begin().await?;
    let marked = sqlx::query!(
        "UPDATE players SET dormant_at = now()
          WHERE dormant_at IS NULL
            AND id IN (SELECT id FROM players WHERE dormant_at IS NULL
                          AND coalesce(last_login_at, created_at) < now() - make_interval(days => $1)
                        ORDER BY coalesce(last_login_at, created_at) LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING id, last_login_at, created_at",
        days,
        limit
    )
    .fetch_all(&mut *tx)
    .await?;
    #[derive(serde::Serialize)]
    struct Dormant {
        last_login_at: Option<DateTime<Utc>>,
        registered_at: DateTime<Utc>,
        dormant_after_days: i32,
    }
    let events = marked
        .iter()
        .map(|m| {
            let details = Dormant {
                last_login_at: m.last_login_at,
                registered_at: m.created_at,
                dormant_after_days: days,
            };
            Ok(Event::new(Kind::Dormancy, &details)?.player(m.id))
        })
        .collect::<Result<Vec<Event>, AppError>>()?;
    events::record_all(&mut tx, crate::SCHEMA, &events).await?;
    tx.commit().await?;
    Ok(marked.len())
}
