//! The ledger's Postgres access: every query of the service is here, checked against the schema
//! at build time (sqlx's macros).
//!
//! Transfers go through one stored function, `create_transfers` (see the migration), so a
//! transfer or a whole batch is one round trip and one atomic statement. Its refusals arrive as
//! `P0001` errors whose message is the stable code; [`db_error`] turns them into problems.

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use domain::Currency;
use platform::AppError;
use platform::codes;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::model::{
    Account, AccountFlags, AccountKind, Balance, BatchItem, CurrencyTotals, HistoryEntry, KindTotals,
    NewAccount, Transfer, TransferCommand, TransferOp, TrialBalance,
};

/// How many times a transfer is retried after a lost race (same id, same hold, deadlock).
const RACE_RETRIES: usize = 3;

/// Namespace of the ids the ledger derives itself (cash-clearing accounts, hold expiries).
pub const LEDGER_NAMESPACE: Uuid = Uuid::from_u128(0x6c65_6467_6572_4000_8000_6c6f_7474_6f21);

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
    let detail = pg.detail().unwrap_or("refused").to_owned();
    let context = pg.hint().and_then(|h| serde_json::from_str::<Value>(h).ok());
    let err = match code.as_str() {
        "idempotency_conflict" | "hold_already_ended" | "append_only" => {
            AppError::relayed(StatusCode::CONFLICT, code, detail)
        }
        "account_not_found"
        | "hold_not_found"
        | "duplicate_transfer_id"
        | "currency_mismatch"
        | "same_account"
        | "insufficient_funds"
        | "amount_exceeds_hold"
        | "hold_expired"
        | "hold_not_expired" => AppError::relayed(StatusCode::UNPROCESSABLE_ENTITY, code, detail),
        _ => return AppError::internal(format!("unexpected ledger refusal {code}: {detail}")),
    };
    match context {
        Some(context) => err.with_context(context),
        None => err,
    }
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
pub async fn create_transfers_reading(
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

/// A `transfers` row as stored.
struct StoredTransfer {
    id: Uuid,
    debit_account_id: Uuid,
    credit_account_id: Uuid,
    amount: i64,
    currency: String,
    kind: String,
    pending_id: Option<Uuid>,
    timeout_seconds: Option<i32>,
    expires_at: Option<DateTime<Utc>>,
    batch_id: Option<Uuid>,
    metadata: Value,
    created_at: DateTime<Utc>,
}

impl TryFrom<StoredTransfer> for Transfer {
    type Error = AppError;

    fn try_from(row: StoredTransfer) -> Result<Self, AppError> {
        Ok(Transfer {
            id: row.id,
            debit_account_id: row.debit_account_id,
            credit_account_id: row.credit_account_id,
            amount: row.amount,
            currency: currency_from(&row.currency)?,
            kind: row.kind,
            pending_id: row.pending_id,
            timeout_seconds: row.timeout_seconds,
            expires_at: row.expires_at,
            batch_id: row.batch_id,
            metadata: row.metadata,
            created_at: row.created_at,
        })
    }
}

fn currency_from(code: &str) -> Result<Currency, AppError> {
    code.parse().map_err(|e: domain::MoneyError| AppError::internal(format!("a stored currency: {e}")))
}

/// An account with its balance summed over its shards.
struct StoredAccount {
    id: Uuid,
    kind: String,
    owner: String,
    currency: String,
    no_negative: bool,
    shards: i16,
    metadata: Value,
    created_at: DateTime<Utc>,
    posted: i64,
    pending_debits: i64,
    pending_credits: i64,
}

impl TryFrom<StoredAccount> for Account {
    type Error = AppError;

    fn try_from(row: StoredAccount) -> Result<Self, AppError> {
        Ok(Account {
            id: row.id,
            kind: AccountKind::parse(&row.kind)
                .ok_or_else(|| AppError::internal(format!("a stored account kind {:?}", row.kind)))?,
            owner: row.owner,
            currency: currency_from(&row.currency)?,
            flags: AccountFlags { no_negative_balance: row.no_negative, hot: row.shards > 1 },
            metadata: row.metadata,
            created_at: row.created_at,
            balance: Balance {
                posted: row.posted,
                pending_debits: row.pending_debits,
                pending_credits: row.pending_credits,
                available: row.posted.saturating_sub(row.pending_debits),
            },
        })
    }
}

/// Creates an account, or returns the existing one when the same id was created with the same fields.
/// Returns whether it was created now.
pub async fn create_account(pool: &PgPool, new: &NewAccount) -> Result<(Account, bool), AppError> {
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query!(
        "INSERT INTO accounts (id, kind, owner, currency, no_negative, shards, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
        new.id,
        new.kind.as_str(),
        &new.owner,
        new.currency.as_str(),
        new.flags.no_negative_balance,
        new.shards(),
        &new.metadata
    )
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if inserted {
        sqlx::query!(
            "INSERT INTO balances (account_id, shard) SELECT $1, s FROM generate_series(0, $2 - 1) s",
            new.id,
            i32::from(new.shards())
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    let account = get_account(pool, new.id).await?.ok_or_else(|| AppError::internal("account vanished"))?;
    if !inserted {
        let same = account.kind == new.kind
            && account.owner == new.owner
            && account.currency == new.currency
            && account.flags == new.flags
            && account.metadata == new.metadata;
        if !same {
            return Err(AppError::conflict(
                codes::IDEMPOTENCY_CONFLICT,
                format!("account {} already exists with different fields", new.id),
            ));
        }
    }
    Ok((account, inserted))
}

/// Account `id`, with its balance summed over its shards.
pub async fn get_account(pool: &PgPool, id: Uuid) -> Result<Option<Account>, AppError> {
    sqlx::query_as!(
        StoredAccount,
        r#"SELECT a.id, a.kind, a.owner, a.currency, a.no_negative, a.shards, a.metadata, a.created_at,
                  coalesce(s.posted, 0)::bigint AS "posted!", coalesce(s.pending_debits, 0)::bigint AS "pending_debits!",
                  coalesce(s.pending_credits, 0)::bigint AS "pending_credits!"
             FROM accounts a
            CROSS JOIN LATERAL (SELECT sum(b.credits_posted - b.debits_posted) AS posted,
                                       sum(b.debits_pending) AS pending_debits, sum(b.credits_pending) AS pending_credits
                                  FROM balances b WHERE b.account_id = a.id) s
            WHERE a.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    .map(Account::try_from)
    .transpose()
}

/// An owner's accounts in id order, after the account id `after`.
pub async fn list_accounts(
    pool: &PgPool,
    owner: &str,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<Account>, AppError> {
    sqlx::query_as!(
        StoredAccount,
        r#"SELECT a.id, a.kind, a.owner, a.currency, a.no_negative, a.shards, a.metadata, a.created_at,
                  coalesce(s.posted, 0)::bigint AS "posted!", coalesce(s.pending_debits, 0)::bigint AS "pending_debits!",
                  coalesce(s.pending_credits, 0)::bigint AS "pending_credits!"
             FROM accounts a
            CROSS JOIN LATERAL (SELECT sum(b.credits_posted - b.debits_posted) AS posted,
                                       sum(b.debits_pending) AS pending_debits, sum(b.credits_pending) AS pending_credits
                                  FROM balances b WHERE b.account_id = a.id) s
            WHERE a.owner = $1 AND ($2::uuid IS NULL OR a.id > $2)
            ORDER BY a.id LIMIT $3"#,
        owner,
        after,
        limit
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(Account::try_from)
    .collect()
}

/// Transfer `id`.
pub async fn get_transfer(pool: &PgPool, id: Uuid) -> Result<Option<Transfer>, AppError> {
    sqlx::query_as!(
        StoredTransfer,
        "SELECT id, debit_account_id, credit_account_id, amount, currency, kind, pending_id, timeout_seconds,
                expires_at, batch_id, metadata, created_at
           FROM transfers WHERE id = $1",
        id
    )
    .fetch_optional(pool)
    .await?
    .map(Transfer::try_from)
    .transpose()
}

/// An account's transfers in the order they were applied, after journal position `after`.
/// Returns the entries and the position of the last one.
pub async fn history(
    pool: &PgPool,
    account_id: Uuid,
    after: i64,
    limit: i64,
) -> Result<Vec<(i64, HistoryEntry)>, AppError> {
    // Two index range scans merged, rather than one OR that cannot use either index in order.
    let rows = sqlx::query!(
        r#"(SELECT seq, id, debit_account_id, credit_account_id, amount, currency, kind, pending_id, timeout_seconds,
                   expires_at, batch_id, metadata, created_at, 'debit' AS side
              FROM transfers WHERE debit_account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3)
           UNION ALL
           (SELECT seq, id, debit_account_id, credit_account_id, amount, currency, kind, pending_id, timeout_seconds,
                   expires_at, batch_id, metadata, created_at, 'credit' AS side
              FROM transfers WHERE credit_account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3)
           ORDER BY seq LIMIT $3"#,
        account_id,
        after,
        limit
    )
    .fetch_all(pool)
    .await?;
    rows.into_iter()
        .map(|r| {
            let missing = || AppError::internal("a transfer's history row without a column it always has");
            let stored = StoredTransfer {
                id: r.id.ok_or_else(missing)?,
                debit_account_id: r.debit_account_id.ok_or_else(missing)?,
                credit_account_id: r.credit_account_id.ok_or_else(missing)?,
                amount: r.amount.ok_or_else(missing)?,
                currency: r.currency.ok_or_else(missing)?,
                kind: r.kind.ok_or_else(missing)?,
                pending_id: r.pending_id,
                timeout_seconds: r.timeout_seconds,
                expires_at: r.expires_at,
                batch_id: r.batch_id,
                metadata: r.metadata.ok_or_else(missing)?,
                created_at: r.created_at.ok_or_else(missing)?,
            };
            let side = r.side.ok_or_else(missing)?;
            Ok((r.seq.ok_or_else(missing)?, HistoryEntry { side, transfer: Transfer::try_from(stored)? }))
        })
        .collect()
}

/// The cash-clearing account of a currency: the other side of every deposit and withdrawal.
/// Its id is derived from the currency, so it is created once however many replicas race.
pub async fn cash_clearing_account(pool: &PgPool, currency: Currency) -> Result<Uuid, AppError> {
    let id = Uuid::new_v5(&LEDGER_NAMESPACE, format!("cash_clearing/{currency}").as_bytes());
    // Every deposit and withdrawal asks; a key lookup, not a balance sum, answers it.
    let exists =
        sqlx::query_scalar!(r#"SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1) AS "exists!""#, id)
            .fetch_one(pool)
            .await?;
    if !exists {
        let new = NewAccount {
            id,
            kind: AccountKind::CashClearing,
            owner: "system".to_owned(),
            currency,
            flags: AccountFlags { no_negative_balance: false, hot: true },
            metadata: serde_json::json!({}),
        };
        create_account(pool, &new).await?;
    }
    Ok(id)
}

/// Holds whose timeout has passed, oldest first.
pub async fn expired_holds(pool: &PgPool, limit: i64) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT transfer_id FROM open_holds WHERE expires_at <= now() ORDER BY expires_at LIMIT $1",
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// Debits, credits and the double-entry check per currency.
pub async fn trial_balance(pool: &PgPool) -> Result<TrialBalance, AppError> {
    let rows = sqlx::query!(
        r#"SELECT a.currency, a.kind, count(DISTINCT a.id) AS "accounts!",
                  sum(b.debits_posted)::text AS "dp!", sum(b.credits_posted)::text AS "cp!",
                  sum(b.debits_pending)::text AS "dpe!", sum(b.credits_pending)::text AS "cpe!"
             FROM accounts a JOIN balances b ON b.account_id = a.id
            GROUP BY a.currency, a.kind ORDER BY a.currency, a.kind"#
    )
    .fetch_all(pool)
    .await?;
    let mut currencies: Vec<CurrencyTotals> = Vec::new();
    for row in rows {
        let currency = currency_from(&row.currency)?;
        let kind = row.kind;
        // Summed as numeric and read as i128: a currency's totals add up every account's, which
        // no limit on one account keeps inside 64 bits.
        let total = |text: &str| -> Result<i128, AppError> { text.parse().map_err(AppError::internal) };
        let (dp, cp, dpe, cpe) = (total(&row.dp)?, total(&row.cp)?, total(&row.dpe)?, total(&row.cpe)?);
        if currencies.last().is_none_or(|c| c.currency != currency) {
            currencies.push(CurrencyTotals {
                currency,
                debits_posted: 0,
                credits_posted: 0,
                debits_pending: 0,
                credits_pending: 0,
                balanced: false,
                by_kind: Vec::new(),
            });
        }
        let Some(totals) = currencies.last_mut() else {
            continue;
        };
        totals.debits_posted = totals.debits_posted.saturating_add(dp);
        totals.credits_posted = totals.credits_posted.saturating_add(cp);
        totals.debits_pending = totals.debits_pending.saturating_add(dpe);
        totals.credits_pending = totals.credits_pending.saturating_add(cpe);
        totals.by_kind.push(KindTotals {
            kind: AccountKind::parse(&kind).ok_or_else(|| AppError::internal(format!("kind {kind}")))?,
            accounts: row.accounts,
            posted: cp.saturating_sub(dp),
        });
    }
    for totals in &mut currencies {
        totals.balanced =
            totals.debits_posted == totals.credits_posted && totals.debits_pending == totals.credits_pending;
    }
    Ok(TrialBalance { balanced: currencies.iter().all(|c| c.balanced), currencies })
}

/// Accounts whose balance counters disagree with a replay of the journal: an audit that the
/// counters are exactly the sum of the transfers. Empty when all is well.
pub async fn journal_mismatches(pool: &PgPool) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"WITH legs AS (
            SELECT t.debit_account_id AS account_id,
                   CASE WHEN t.kind IN ('posted', 'post_pending') THEN t.amount ELSE 0 END AS dp, 0::bigint AS cp,
                   CASE WHEN t.kind = 'pending' THEN t.amount WHEN t.pending_id IS NOT NULL
                        THEN -(SELECT h.amount FROM transfers h WHERE h.id = t.pending_id) ELSE 0 END AS dpe,
                   0::bigint AS cpe
              FROM transfers t
            UNION ALL
            SELECT t.credit_account_id, 0,
                   CASE WHEN t.kind IN ('posted', 'post_pending') THEN t.amount ELSE 0 END, 0,
                   CASE WHEN t.kind = 'pending' THEN t.amount WHEN t.pending_id IS NOT NULL
                        THEN -(SELECT h.amount FROM transfers h WHERE h.id = t.pending_id) ELSE 0 END
              FROM transfers t),
         journal AS (SELECT account_id, sum(dp) dp, sum(cp) cp, sum(dpe) dpe, sum(cpe) cpe FROM legs GROUP BY 1),
         counters AS (SELECT account_id, sum(debits_posted) dp, sum(credits_posted) cp, sum(debits_pending) dpe,
                             sum(credits_pending) cpe FROM balances GROUP BY 1)
         SELECT c.account_id AS "account_id!" FROM counters c LEFT JOIN journal j USING (account_id)
          WHERE (c.dp, c.cp, c.dpe, c.cpe) IS DISTINCT FROM
                (coalesce(j.dp, 0), coalesce(j.cp, 0), coalesce(j.dpe, 0), coalesce(j.cpe, 0))"#
    )
    .fetch_all(pool)
    .await?)
}
