//! The hash-chained audit log every game service keeps (architecture §5).
//!
//! Each record is stored with `hash = sha256(prev_hash || record)`, `record` being the canonical
//! JSON of the outcome (serde writes struct fields in declaration order, so the bytes are stable)
//! and the first `prev_hash` 32 zero bytes. Changing, removing or reordering any record breaks
//! every hash after it, which [`verify`] finds. Each service has its own `audit_log` table (see
//! its migrations), with triggers refusing updates and deletes.
//!
//! The chain's append function, `audit_append`, has one definition: `migrations/audit-chain/`,
//! migrated into every schema that keeps a chain beside the schema's own migrations
//! ([`with_chain`]). (The `audit_log` table itself is created by each schema's first migration:
//! history, which cannot change, since sqlx checks every applied migration's checksum.)

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::error::BoxDynError;
use sqlx::migrate::{MigrateError, Migration, MigrationSource, Migrator};
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use crate::AppError;

/// The chain's own migrations: its append function, one definition for every schema.
static CHAIN_MIGRATIONS: Migrator = sqlx::migrate!("../../migrations/audit-chain");

/// A service's migrations with the chain's, in version order: what a schema that keeps a chain
/// migrates. A schema migrated before the chain's file was shared finds it applied already (the
/// same version and the same bytes, so the same checksum).
pub async fn with_chain(service: &'static Migrator) -> Result<Migrator, MigrateError> {
    Migrator::new(WithChain(service)).await
}

/// A service's migrations and the chain's, as one source.
#[derive(Debug)]
struct WithChain(&'static Migrator);

impl MigrationSource<'static> for WithChain {
    fn resolve(self) -> Pin<Box<dyn Future<Output = Result<Vec<Migration>, BoxDynError>> + Send + 'static>> {
        Box::pin(async move {
            let mut all: Vec<Migration> = self.0.iter().chain(CHAIN_MIGRATIONS.iter()).cloned().collect();
            all.sort_by_key(|m| m.version);
            Ok(all)
        })
    }
}

/// Appends a record to the chain, inside the caller's transaction (which must commit it).
pub async fn append(
    conn: &mut PgConnection,
    kind: &str,
    subject: Uuid,
    record: &impl Serialize,
) -> Result<String, AppError> {
    let entry = Entry::new(kind, subject, record)?;
    let mut heads = append_all(conn, &[entry]).await?;
    heads.pop().ok_or_else(|| AppError::internal("audit append wrote nothing"))
}

/// One record to chain: its kind, what it is about, and its canonical JSON.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: String,
    pub subject: Uuid,
    pub record: String,
}

impl Entry {
    pub fn new(kind: &str, subject: Uuid, record: &impl Serialize) -> Result<Self, AppError> {
        let record = serde_json::to_string(record).map_err(AppError::internal)?;
        Ok(Entry { kind: kind.to_owned(), subject, record })
    }

    /// `entries` as the three arrays `audit_append` takes: kinds, subjects, records.
    pub fn columns<'e>(
        entries: impl IntoIterator<Item = &'e Entry>,
    ) -> (Vec<&'e str>, Vec<Uuid>, Vec<&'e str>) {
        let (mut kinds, mut subjects, mut records) = (Vec::new(), Vec::new(), Vec::new());
        for entry in entries {
            kinds.push(entry.kind.as_str());
            subjects.push(entry.subject);
            records.push(entry.record.as_str());
        }
        (kinds, subjects, records)
    }
}

/// Appends `entries` in order, inside the caller's transaction, in one round trip: the schema's
/// `audit_append` function takes the chain's lock (appends are serialised by a transaction-level
/// advisory lock: the chain has one head), reads the head and inserts the records hashed as
/// [`chain_hash`] does. Returns each new record's hash (hex).
pub async fn append_all(conn: &mut PgConnection, entries: &[Entry]) -> Result<Vec<String>, AppError> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let (kinds, subjects, records) = Entry::columns(entries);
    let hashes: Vec<Vec<u8>> = sqlx::query_scalar("SELECT audit_append($1::text[], $2::uuid[], $3::text[])")
        .bind(&kinds)
        .bind(&subjects)
        .bind(&records)
        .fetch_one(&mut *conn)
        .await?;
    Ok(hashes.iter().map(hex::encode).collect())
}

fn chain_hash(prev_hash: &[u8], record: &str) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(prev_hash);
    hasher.update(record.as_bytes());
    hasher.finalize().to_vec()
}

/// What a walk of the whole chain found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct ChainReport {
    /// Records checked.
    pub records: i64,
    /// True when every record links to the one before and hashes to what is stored.
    pub intact: bool,
    /// The first record that does not, if any.
    pub first_broken_seq: Option<i64>,
    /// The hash of the last record (hex): publish it, and the history before it cannot change.
    pub head_hash: Option<String>,
}

/// Walks the chain from the first record to the last, recomputing every hash.
pub async fn verify(pool: &PgPool) -> Result<ChainReport, AppError> {
    let mut expected_prev = vec![0u8; 32];
    let mut expected_seq = 1i64;
    let mut records = 0i64;
    loop {
        let rows = sqlx::query(
            "SELECT seq, record, prev_hash, hash FROM audit_log WHERE seq >= $1 ORDER BY seq LIMIT 10000",
        )
        .bind(expected_seq)
        .fetch_all(pool)
        .await?;
        if rows.is_empty() {
            break;
        }
        for row in &rows {
            let seq: i64 = row.try_get("seq")?;
            let record: String = row.try_get("record")?;
            let prev: Vec<u8> = row.try_get("prev_hash")?;
            let hash: Vec<u8> = row.try_get("hash")?;
            if seq != expected_seq || prev != expected_prev || chain_hash(&prev, &record) != hash {
                return Ok(ChainReport {
                    records,
                    intact: false,
                    first_broken_seq: Some(expected_seq),
                    head_hash: Some(hex::encode(&expected_prev)),
                });
            }
            records = records.saturating_add(1);
            expected_seq = seq.saturating_add(1);
            expected_prev = hash;
        }
    }
    let head_hash = (records > 0).then(|| hex::encode(&expected_prev));
    Ok(ChainReport { records, intact: true, first_broken_seq: None, head_hash })
}
