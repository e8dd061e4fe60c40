//! The ledger's Postgres access: every query of the service is here, checked against the schema
//! at build time (sqlx's macros). [`transfers`] applies transfers through the stored function;
//! this module reads accounts, transfers and the books.

pub mod daily;
mod protection;
mod transfers;

use chrono::{DateTime, Utc};
use domain::Currency;
use platform::AppError;
use platform::codes;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::model::{
    Account, AccountFlags, AccountKind, Balance, CurrencyTotals, HistoryEntry, KindTotals, LargeWin, LargeWins, NewAccount,
    StatementEntry, Transfer, TrialBalance,
};

/// Namespace of the ids the ledger derives itself (cash-clearing accounts, hold expiries).
pub const LEDGER_NAMESPACE: Uuid = Uuid::from_u128(0x6c65_6467_6572_4000_8000_6c6f_7474_6f21);

pub use protection::{activity, activity_totals, limits, set_limit, suspend};
pub use transfers::{create_transfers, create_transfers_reading};

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

pub(super) fn currency_from(code: &str) -> Result<Currency, AppError> {
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

/// An account's transfers newest first, within the days `from` to `to` of `time_zone`, before
/// journal position `before`, each with the posted balance after it (the running sum of what
/// each posted, over the account's whole journal: the balances' shards are not read, so the
/// figures and the lines cannot disagree). Returns the entries with their positions.
pub async fn statement(
    pool: &PgPool,
    account_id: Uuid,
    window: (chrono::NaiveDate, chrono::NaiveDate, &str),
    before: i64,
    limit: i64,
) -> Result<Vec<(i64, StatementEntry)>, AppError> {
    let (from, to, time_zone) = window;
    protection::known_time_zone(pool, time_zone).await?;
    let rows = sqlx::query!(
        r#"WITH mine AS (
               SELECT seq, id, debit_account_id, credit_account_id, amount, currency, kind, pending_id,
                      timeout_seconds, expires_at, batch_id, metadata, created_at, 'debit' AS side, -amount AS signed
                 FROM transfers WHERE debit_account_id = $1
               UNION ALL
               SELECT seq, id, debit_account_id, credit_account_id, amount, currency, kind, pending_id,
                      timeout_seconds, expires_at, batch_id, metadata, created_at, 'credit' AS side, amount AS signed
                 FROM transfers WHERE credit_account_id = $1),
           running AS (
               SELECT *, sum(CASE WHEN kind IN ('posted', 'post_pending') THEN signed ELSE 0 END)
                             OVER (ORDER BY seq)::bigint AS balance_after
                 FROM mine)
           SELECT seq AS "seq!", id AS "id!", debit_account_id AS "debit_account_id!",
                  credit_account_id AS "credit_account_id!", amount AS "amount!", currency AS "currency!",
                  kind AS "kind!", pending_id, timeout_seconds, expires_at, batch_id, metadata AS "metadata!",
                  created_at AS "created_at!", side AS "side!", balance_after AS "balance_after!"
             FROM running
            WHERE seq < $2
              AND created_at >= ($3::date::timestamp AT TIME ZONE $5)
              AND created_at < (($4::date + 1)::timestamp AT TIME ZONE $5)
            ORDER BY seq DESC LIMIT $6"#,
        account_id,
        before,
        from,
        to,
        time_zone,
        limit
    )
    .fetch_all(pool)
    .await?;
    rows.into_iter()
        .map(|r| {
            let stored = StoredTransfer {
                id: r.id,
                debit_account_id: r.debit_account_id,
                credit_account_id: r.credit_account_id,
                amount: r.amount,
                currency: r.currency,
                kind: r.kind,
                pending_id: r.pending_id,
                timeout_seconds: r.timeout_seconds,
                expires_at: r.expires_at,
                batch_id: r.batch_id,
                metadata: r.metadata,
                created_at: r.created_at,
            };
            let entry = HistoryEntry { side: r.side, transfer: Transfer::try_from(stored)? };
            Ok((r.seq, StatementEntry { balance_after: r.balance_after, entry }))
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

/// Credits of at least `at_least` (never below the floor the index covers) to players' wallets
/// from games' accounts after journal place `after`, oldest first, and the newest place of any
/// transfer of the floor or more.
pub async fn large_wins(pool: &PgPool, after: i64, at_least: i64, limit: i64) -> Result<LargeWins, AppError> {
    let items = sqlx::query_as!(
        LargeWin,
        r#"SELECT t.seq AS "seq!", t.id, t.credit_account_id AS wallet, t.amount, t.metadata, t.created_at
             FROM transfers t
             JOIN accounts c ON c.id = t.credit_account_id
             JOIN accounts d ON d.id = t.debit_account_id
            WHERE t.amount >= 60000 AND t.amount >= $2 AND t.seq > $1 AND t.kind IN ('posted', 'post_pending')
              AND c.kind = 'player_wallet'
              AND d.kind IN ('game_escrow', 'house_revenue', 'prize_liability', 'progressive_pot')
            ORDER BY t.seq LIMIT $3"#,
        after,
        at_least,
        limit,
    )
    .fetch_all(pool)
    .await?;
    let newest_seq = sqlx::query_scalar!("SELECT max(seq) FROM transfers WHERE amount >= 60000")
        .fetch_one(pool)
        .await?;
    Ok(LargeWins { items, newest_seq })
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
