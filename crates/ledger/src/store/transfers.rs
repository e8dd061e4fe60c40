//! Transfers applied through one stored function, `create_transfers` (see the migration), so a
//! transfer or a whole batch is one round trip and one atomic statement. Its refusals arrive as
//! `P0001` errors whose message is the stable code; [`db_error`] turns them into problems.

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use platform::AppError;
use platform::codes;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use super::currency_from;
use crate::model::{BatchItem, Transfer, TransferCommand, TransferOp};

/// How many times a transfer is retried after a lost race (same id, same hold, deadlock).
const RACE_RETRIES: usize = 3;

enum Failure {
    /// A concurrent transaction got there first; running again gives the right answer.
    Race,
    Refused(AppError),
}

/// Maps a database error to a problem, or to a retry when a concurrent request won a race.
fn db_error(err: sqlx::Error) -> Failure {
    if let sqlx::Error::Database(db) = &err {
        match db.code().as_deref() {
            // unique_violation (the same transfer id or hold, committed meanwhile),
            // serialization_failure, deadlock_detected.
            Some("23505" | "40001" | "40P01") => return Failure::Race,
            // numeric_value_out_of_range, or the balances' limit (check_violation): the most
            // one account may count (`Amount::MAX_ROW_TOTAL_CENTS`, ADR 0001).
            Some("22003" | "23514") => {
                return Failure::Refused(AppError::unprocessable(
                    codes::ACCOUNT_LIMIT_REACHED,
                    "the transfer would take an account past the most it may hold or move",
                ));
            }
            Some("P0001") => {
                if let Some(pg) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                    return Failure::Refused(refusal(pg));
                }
            }
            _ => {}
        }
    }
    Failure::Refused(AppError::from(err))
}

/// Turns a refusal raised by the ledger's SQL into a problem with the same code.
fn refusal(pg: &sqlx::postgres::PgDatabaseError) -> AppError {
    let code = pg.message().to_owned();
    let context = pg.hint().and_then(|h| serde_json::from_str::<Value>(h).ok());
    let words = context.as_ref().filter(|_| code == "limit_reached").and_then(limit_words);
    let detail = words.unwrap_or_else(|| pg.detail().unwrap_or("refused").to_owned());
    let Some(status) = refusal_status(&code) else {
        return AppError::internal(format!("unexpected ledger refusal {code}: {detail}"));
    };
    let err = AppError::relayed(status, code, detail);
    match context {
        Some(context) => err.with_context(context),
        None => err,
    }
}

/// The status of each refusal the ledger's SQL raises (`refuse('<code>', ...)`); a test checks
/// every code the migrations raise is here and in the catalogue with this status.
fn refusal_status(code: &str) -> Option<StatusCode> {
    match code {
        "idempotency_conflict" | "hold_already_ended" | "append_only" => Some(StatusCode::CONFLICT),
        "account_not_found"
        | "hold_not_found"
        | "duplicate_transfer_id"
        | "currency_mismatch"
        | "same_account"
        | "insufficient_funds"
        | "amount_exceeds_hold"
        | "hold_expired"
        | "hold_not_expired"
        | "limit_reached"
        | "play_suspended" => Some(StatusCode::UNPROCESSABLE_ENTITY),
        _ => None,
    }
}

#[cfg(test)]
mod refusal_codes {
    /// Every code the ledger's SQL raises, in any migration: each has a status here, and is in
    /// the catalogue (`platform::codes`) with that status, as every code a service answers is.
    #[test]
    fn every_code_the_sql_raises_is_in_the_catalogue_with_its_status() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations/ledger");
        let mut raised = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let text = std::fs::read_to_string(entry.map(|e| e.path()).unwrap_or_default()).unwrap_or_default();
            for marker in ["refuse('", "RAISE EXCEPTION '"] {
                for (at, _) in text.match_indices(marker) {
                    let code: String = text[at + marker.len()..]
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                        .collect();
                    if !code.is_empty() {
                        raised.insert(code);
                    }
                }
            }
        }
        assert!(raised.len() >= 14, "the SQL's refusals were not found: {raised:?}");
        for code in &raised {
            let status = super::refusal_status(code).unwrap_or_else(|| panic!("`{code}` has no status"));
            assert!(platform::codes::is_listed(code, status.as_u16()), "`{code}` ({status}) is not in the catalogue");
        }
    }
}

/// A limit's refusal in a person's words, from the facts `create_transfers` states beside its
/// own detail (which counts cents): what the stake was, the limit, what is left.
fn limit_words(context: &Value) -> Option<String> {
    let cents = |key: &str| context.get(key).and_then(Value::as_i64).map(domain::money::dollars);
    let (stake, limit, left) = (cents("stake")?, cents("limit")?, cents("left")?);
    let period = context.get("period").and_then(Value::as_str)?;
    Some(match context.get("kind").and_then(Value::as_str)? {
        "single_stake" => format!("a stake of {stake} is more than the single-stake limit of {limit}"),
        kind => format!("a stake of {stake} would pass the {period} {} limit of {limit} ({left} left)", kind.replace('_', " ")),
    })
}

/// Commands as the columns `create_transfers` takes, one array per field.
#[derive(Debug, Default)]
struct TransferColumns {
    ids: Vec<Uuid>,
    debits: Vec<Option<Uuid>>,
    credits: Vec<Option<Uuid>>,
    amounts: Vec<Option<i64>>,
    currencies: Vec<Option<String>>,
    kinds: Vec<&'static str>,
    pending_ids: Vec<Option<Uuid>>,
    timeouts: Vec<Option<i32>>,
    metadata: Vec<Value>,
    check_accounts: Vec<Option<Uuid>>,
    check_amounts: Vec<Option<i64>>,
}

impl TransferColumns {
    fn of(commands: &[TransferCommand]) -> Self {
        let mut c = TransferColumns::default();
        for command in commands {
            let (debit, credit, amount, currency, kind, pending_id, timeout) = match &command.op {
                TransferOp::Posted { debit, credit, amount, currency } => (
                    Some(*debit),
                    Some(*credit),
                    Some(amount.cents()),
                    Some(currency.to_string()),
                    "posted",
                    None,
                    None,
                ),
                TransferOp::Pending { debit, credit, amount, currency, timeout_seconds } => (
                    Some(*debit),
                    Some(*credit),
                    Some(amount.cents()),
                    Some(currency.to_string()),
                    "pending",
                    None,
                    Some(*timeout_seconds),
                ),
                TransferOp::PostPending { pending_id, amount } => {
                    (None, None, amount.map(|a| a.cents()), None, "post_pending", Some(*pending_id), None)
                }
                TransferOp::VoidPending { pending_id } => {
                    (None, None, None, None, "void_pending", Some(*pending_id), None)
                }
                TransferOp::ExpirePending { pending_id } => {
                    (None, None, None, None, "expire_pending", Some(*pending_id), None)
                }
            };
            c.ids.push(command.id);
            c.debits.push(debit);
            c.credits.push(credit);
            c.amounts.push(amount);
            c.currencies.push(currency);
            c.kinds.push(kind);
            c.pending_ids.push(pending_id);
            c.timeouts.push(timeout);
            c.metadata.push(command.metadata.clone());
            c.check_accounts.push(command.funds_check.map(|(account, _)| account));
            c.check_amounts.push(command.funds_check.map(|(_, at_least)| at_least.cents()));
        }
        c
    }
}

/// Applies `commands` atomically; each result says whether it was a replay of an earlier request.
pub async fn create_transfers(
    pool: &PgPool,
    commands: &[TransferCommand],
    batch_id: Option<Uuid>,
) -> Result<Vec<BatchItem>, AppError> {
    create_transfers_reading(pool, commands, batch_id, &[]).await.map(|(items, _)| items)
}

/// [`create_transfers`], answering too the posted balances of `accounts` (in their order) just
/// after the batch, in the same statement (`create_transfers_reading`: one round trip, not two).
#[tracing::instrument(target = "lotto::trace", name = "ledger.apply_batch", skip_all, fields(transfers = commands.len()))]
pub async fn create_transfers_reading(
    pool: &PgPool,
    commands: &[TransferCommand],
    batch_id: Option<Uuid>,
    accounts: &[Uuid],
) -> Result<(Vec<BatchItem>, Vec<i64>), AppError> {
    let started = std::time::Instant::now();
    let applied = apply_batch(pool, commands, batch_id, accounts).await;
    crate::metrics::record_call(commands.len(), started, applied.as_ref().map(|(items, _)| items.as_slice()));
    applied
}

/// [`create_transfers_reading`]'s work, without its metrics.
async fn apply_batch(
    pool: &PgPool,
    commands: &[TransferCommand],
    batch_id: Option<Uuid>,
    accounts: &[Uuid],
) -> Result<(Vec<BatchItem>, Vec<i64>), AppError> {
    let c = TransferColumns::of(commands);
    // No checks: NULL, so the function skips looking their accounts up.
    let has_checks = c.check_accounts.iter().any(Option::is_some);
    let (check_accounts, check_amounts) =
        (has_checks.then_some(&c.check_accounts), has_checks.then_some(&c.check_amounts));
    let mut attempt = 0;
    loop {
        let rows = run_batch(pool, &c, batch_id, (check_accounts, check_amounts), accounts).await;
        match rows {
            Ok(rows) => return items_and_balances(rows, accounts.len()),
            Err(err) => match db_error(err) {
                Failure::Race if attempt < RACE_RETRIES => attempt += 1,
                Failure::Race => {
                    return Err(AppError::conflict(
                        codes::CONCURRENT_UPDATE,
                        "too many concurrent attempts; retry",
                    ));
                }
                // A same-id request ended the hold meanwhile: this batch is its replay, and
                // running it again answers it so (issue 33 §2).
                Failure::Refused(e)
                    if e.code() == "hold_already_ended"
                        && attempt < RACE_RETRIES
                        && sqlx::query_scalar!(
                            r#"SELECT EXISTS (SELECT 1 FROM transfers WHERE id = ANY($1)) AS "exists!""#,
                            &c.ids
                        )
                        .fetch_one(pool)
                        .await? =>
                {
                    attempt += 1;
                }
                Failure::Refused(e) => return Err(e),
            },
        }
    }
}

/// The funds checks' columns, or none when the batch checks no funds.
type FundsChecks<'a> = (Option<&'a Vec<Option<Uuid>>>, Option<&'a Vec<Option<i64>>>);

/// One run of `create_transfers` (or `create_transfers_reading`, when `accounts` are asked for).
async fn run_batch(
    pool: &PgPool,
    c: &TransferColumns,
    batch_id: Option<Uuid>,
    (check_accounts, check_amounts): FundsChecks<'_>,
    accounts: &[Uuid],
) -> Result<Vec<Applied>, sqlx::Error> {
    // The arrays hold NULLs (a hold's end names no accounts), which the macros' own check of
    // an array parameter does not allow for: those are bound unchecked (`as _`).
    if accounts.is_empty() {
        sqlx::query_as!(
            Applied,
            r#"SELECT idx, replayed, id, debit_account_id, credit_account_id, amount, currency, kind, pending_id,
                      timeout_seconds, expires_at, batch_id, metadata, created_at, NULL::bigint[] AS balances
                 FROM create_transfers($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"#,
            &c.ids,
            &c.debits as _,
            &c.credits as _,
            &c.amounts as _,
            &c.currencies as _,
            &c.kinds as &[&str],
            &c.pending_ids as _,
            &c.timeouts as _,
            &c.metadata,
            batch_id,
            check_accounts as _,
            check_amounts as _
        )
        .fetch_all(pool)
        .await
    } else {
        sqlx::query_as!(
            Applied,
            r#"SELECT idx, replayed, id, debit_account_id, credit_account_id, amount, currency, kind, pending_id,
                      timeout_seconds, expires_at, batch_id, metadata, created_at, balances
                 FROM create_transfers_reading($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"#,
            &c.ids,
            &c.debits as _,
            &c.credits as _,
            &c.amounts as _,
            &c.currencies as _,
            &c.kinds as &[&str],
            &c.pending_ids as _,
            &c.timeouts as _,
            &c.metadata,
            batch_id,
            check_accounts as _,
            check_amounts as _,
            accounts
        )
        .fetch_all(pool)
        .await
    }
}

/// A row `create_transfers` answers: a transfer applied (or replayed), or, with `idx` NULL, the
/// balances read after the batch. The function's columns carry no NOT NULL, so every one is an
/// option here, read back into a [`Transfer`] by [`Applied::transfer`].
struct Applied {
    idx: Option<i32>,
    replayed: Option<bool>,
    id: Option<Uuid>,
    debit_account_id: Option<Uuid>,
    credit_account_id: Option<Uuid>,
    amount: Option<i64>,
    currency: Option<String>,
    kind: Option<String>,
    pending_id: Option<Uuid>,
    timeout_seconds: Option<i32>,
    expires_at: Option<DateTime<Utc>>,
    batch_id: Option<Uuid>,
    metadata: Option<Value>,
    created_at: Option<DateTime<Utc>>,
    balances: Option<Vec<i64>>,
}

impl Applied {
    fn transfer(self) -> Result<Transfer, AppError> {
        let missing =
            || AppError::internal("create_transfers answered a transfer without a column it always has");
        Ok(Transfer {
            id: self.id.ok_or_else(missing)?,
            debit_account_id: self.debit_account_id.ok_or_else(missing)?,
            credit_account_id: self.credit_account_id.ok_or_else(missing)?,
            amount: self.amount.ok_or_else(missing)?,
            currency: currency_from(self.currency.as_deref().ok_or_else(missing)?)?,
            kind: self.kind.ok_or_else(missing)?,
            pending_id: self.pending_id,
            timeout_seconds: self.timeout_seconds,
            expires_at: self.expires_at,
            batch_id: self.batch_id,
            metadata: self.metadata.ok_or_else(missing)?,
            created_at: self.created_at.ok_or_else(missing)?,
        })
    }
}

/// The transfers' rows, and the balances of the one row that carries them (`idx` NULL).
fn items_and_balances(rows: Vec<Applied>, accounts: usize) -> Result<(Vec<BatchItem>, Vec<i64>), AppError> {
    let mut items = Vec::with_capacity(rows.len());
    let mut balances = Vec::new();
    for row in rows {
        if row.idx.is_none() {
            balances = row.balances.unwrap_or_default();
            continue;
        }
        let replayed = row.replayed.unwrap_or(false);
        items.push(BatchItem { replayed, transfer: row.transfer()? });
    }
    if balances.len() != accounts {
        return Err(AppError::internal("the ledger read other balances than it was asked for"));
    }
    Ok((items, balances))
}
