//! The daily reports' queries (issue 50): the journal of a gaming day read in groups, each
//! player account's day, the liabilities at the close; and the reports kept.
//!
//! Each query reads the journal and the balance counters it compares in one statement, so in one
//! snapshot; a day's moves do not change once it is over (the maker waits out a grace period).

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::model::daily::{AccountReconciliation, DailyReport, DailySummary, Figures, Liability, ReportLine};
use crate::model::AccountKind;

/// The posted moves of a day with the same game, money, account kinds and expiry: what the
/// report's lines are made from.
#[derive(Debug)]
pub struct MoveGroup {
    pub game: Option<String>,
    pub money: Option<String>,
    pub debit_kind: String,
    pub credit_kind: String,
    pub expired: bool,
    pub amount: i64,
    pub moves: i64,
    /// The packs' sales a pack settlement names (zero for other moves).
    pub sales: i64,
}

/// How many distinct tickets or rounds moved a kind of money of a game through a player-side
/// account (a round's several legs are one play).
#[derive(Debug)]
pub struct PlayCount {
    pub game: Option<String>,
    pub money: Option<String>,
    pub player_side_kind: String,
    pub plays: i64,
}

/// A player account's day as the journal has it, before the arithmetic.
#[derive(Debug)]
pub struct AccountMoves {
    pub account_id: Uuid,
    pub owner: String,
    pub opening: i64,
    pub deposits: i64,
    pub withdrawals: i64,
    pub stakes: i64,
    pub prizes: i64,
    pub refunds: i64,
    pub adjustments: i64,
    pub other: i64,
    pub ledger_closing: i64,
}

/// Takes the one right to make reports (until the transaction ends): a second replica waits,
/// then finds the day made.
pub async fn lock_makers(tx: &mut PgConnection) -> Result<(), AppError> {
    sqlx::query!("SELECT pg_advisory_xact_lock(hashtext('ledger.daily_reports'))").execute(&mut *tx).await?;
    Ok(())
}

/// The day's posted moves, grouped.
pub async fn move_groups(
    tx: &mut PgConnection,
    opens: DateTime<Utc>,
    closes: DateTime<Utc>,
) -> Result<Vec<MoveGroup>, AppError> {
    Ok(sqlx::query_as!(
        MoveGroup,
        r#"SELECT t.metadata->>'game' AS game, t.metadata->>'money' AS money,
                  d.kind AS "debit_kind!", c.kind AS "credit_kind!",
                  coalesce((t.metadata->>'expired')::boolean, false) AS "expired!",
                  sum(t.amount)::bigint AS "amount!", count(*) AS "moves!",
                  coalesce(sum((t.metadata->>'sales')::bigint), 0)::bigint AS "sales!"
             FROM transfers t
             JOIN accounts d ON d.id = t.debit_account_id
             JOIN accounts c ON c.id = t.credit_account_id
            WHERE t.created_at >= $1 AND t.created_at < $2 AND t.kind IN ('posted', 'post_pending')
            GROUP BY 1, 2, 3, 4, 5"#,
        opens,
        closes
    )
    .fetch_all(&mut *tx)
    .await?)
}

/// The day's distinct tickets and rounds staked or refunded, by game and player-side account kind.
pub async fn play_counts(
    tx: &mut PgConnection,
    opens: DateTime<Utc>,
    closes: DateTime<Utc>,
) -> Result<Vec<PlayCount>, AppError> {
    Ok(sqlx::query_as!(
        PlayCount,
        r#"SELECT t.metadata->>'game' AS game, t.metadata->>'money' AS money, p.kind AS "player_side_kind!",
                  count(DISTINCT coalesce(t.metadata->>'round', t.metadata->>'ticket', t.metadata->>'serial', t.id::text))
                      AS "plays!"
             FROM transfers t
             JOIN accounts p ON p.id = CASE WHEN t.metadata->>'money' = 'stake' THEN t.debit_account_id
                                            ELSE t.credit_account_id END
            WHERE t.created_at >= $1 AND t.created_at < $2 AND t.kind IN ('posted', 'post_pending')
              AND t.metadata->>'money' IN ('stake', 'refund')
              AND p.kind IN ('player_wallet', 'retailer_settlement', 'cash_clearing')
            GROUP BY 1, 2, 3"#,
        opens,
        closes
    )
    .fetch_all(&mut *tx)
    .await?)
}

/// Every progressive pot's and prize liability's balance at `closes`: the counters now, less
/// what moved since.
pub async fn liabilities(tx: &mut PgConnection, closes: DateTime<Utc>) -> Result<Vec<Liability>, AppError> {
    let rows = sqlx::query!(
        r#"SELECT a.id, a.owner, a.kind,
                  (SELECT coalesce(sum(b.credits_posted - b.debits_posted), 0) FROM balances b WHERE b.account_id = a.id)::bigint
                  - (SELECT coalesce(sum(CASE WHEN t.credit_account_id = a.id THEN t.amount ELSE -t.amount END), 0)
                       FROM transfers t
                      WHERE (t.debit_account_id = a.id OR t.credit_account_id = a.id)
                        AND t.created_at >= $1 AND t.kind IN ('posted', 'post_pending'))::bigint AS "balance!"
             FROM accounts a
            WHERE a.kind IN ('progressive_pot', 'prize_liability') AND a.created_at < $1
            ORDER BY a.owner, a.id"#,
        closes
    )
    .fetch_all(&mut *tx)
    .await?;
    rows.into_iter()
        .map(|r| {
            let kind = AccountKind::parse(&r.kind)
                .ok_or_else(|| AppError::internal(format!("a stored account kind {:?}", r.kind)))?;
            Ok(Liability { account_id: r.id, owner: r.owner, kind, balance: r.balance })
        })
        .collect()
}

/// A page of the player accounts that moved money in the day, after `after` by id, each with
/// its opening (the journal before the day), its moves by kind, and the counters' balance at
/// the close (the counters now, less what moved since).
pub async fn account_moves(
    tx: &mut PgConnection,
    opens: DateTime<Utc>,
    closes: DateTime<Utc>,
    after: Uuid,
    limit: i64,
) -> Result<Vec<AccountMoves>, AppError> {
    Ok(sqlx::query_as!(
        AccountMoves,
        r#"WITH moved AS (
               SELECT a.id AS account_id, a.owner,
                      CASE WHEN t.credit_account_id = a.id THEN t.amount ELSE -t.amount END AS delta,
                      -- what the move is to the account: a payment is any move with the cash
                      -- accounts, an adjustment any with the adjustments account
                      CASE WHEN o.kind = 'cash_clearing' THEN 'payment'
                           WHEN o.kind = 'adjustments' OR t.metadata->>'money' = 'adjustment' THEN 'adjustment'
                           WHEN t.metadata->>'money' IN ('stake', 'prize', 'refund') THEN t.metadata->>'money'
                           ELSE 'other' END AS kind
                 FROM transfers t
                 JOIN accounts a ON a.id IN (t.debit_account_id, t.credit_account_id)
                 JOIN accounts o ON o.id = CASE WHEN t.credit_account_id = a.id THEN t.debit_account_id
                                                ELSE t.credit_account_id END
                WHERE t.created_at >= $1 AND t.created_at < $2 AND t.kind IN ('posted', 'post_pending')
                  AND a.kind = 'player_wallet' AND a.id > $3),
             day AS (
               SELECT account_id, owner,
                      coalesce(sum(delta) FILTER (WHERE kind = 'payment' AND delta > 0), 0)::bigint AS deposits,
                      coalesce(-sum(delta) FILTER (WHERE kind = 'payment' AND delta < 0), 0)::bigint AS withdrawals,
                      coalesce(-sum(delta) FILTER (WHERE kind = 'stake'), 0)::bigint AS stakes,
                      coalesce(sum(delta) FILTER (WHERE kind = 'prize'), 0)::bigint AS prizes,
                      coalesce(sum(delta) FILTER (WHERE kind = 'refund'), 0)::bigint AS refunds,
                      coalesce(sum(delta) FILTER (WHERE kind = 'adjustment'), 0)::bigint AS adjustments,
                      coalesce(sum(delta) FILTER (WHERE kind = 'other'), 0)::bigint AS other
                 FROM moved GROUP BY account_id, owner
                ORDER BY account_id LIMIT $4)
           SELECT day.account_id AS "account_id!", day.owner AS "owner!",
                  (SELECT coalesce(sum(CASE WHEN t.credit_account_id = day.account_id THEN t.amount ELSE -t.amount END), 0)
                     FROM transfers t
                    WHERE (t.debit_account_id = day.account_id OR t.credit_account_id = day.account_id)
                      AND t.created_at < $1 AND t.kind IN ('posted', 'post_pending'))::bigint AS "opening!",
                  day.deposits AS "deposits!", day.withdrawals AS "withdrawals!", day.stakes AS "stakes!",
                  day.prizes AS "prizes!", day.refunds AS "refunds!", day.adjustments AS "adjustments!",
                  day.other AS "other!",
                  ((SELECT coalesce(sum(b.credits_posted - b.debits_posted), 0) FROM balances b WHERE b.account_id = day.account_id)
                   - (SELECT coalesce(sum(CASE WHEN t.credit_account_id = day.account_id THEN t.amount ELSE -t.amount END), 0)
                        FROM transfers t
                       WHERE (t.debit_account_id = day.account_id OR t.credit_account_id = day.account_id)
                         AND t.created_at >= $2 AND t.kind IN ('posted', 'post_pending')))::bigint AS "ledger_closing!"
             FROM day ORDER BY day.account_id"#,
        opens,
        closes,
        after,
        limit
    )
    .fetch_all(&mut *tx)
    .await?)
}

/// The day's first and last: the earliest move in the journal (where reports begin), and the
/// latest day reported.
pub async fn report_bounds(pool: &PgPool) -> Result<(Option<DateTime<Utc>>, Option<NaiveDate>), AppError> {
    let row = sqlx::query!(
        r#"SELECT (SELECT min(created_at) FROM transfers) AS first_move,
                  (SELECT max(gaming_day) FROM daily_reports) AS last_day"#
    )
    .fetch_one(pool)
    .await?;
    Ok((row.first_move, row.last_day))
}

/// Keeps a made report (its accounts go in with [`insert_accounts`], in the same transaction).
/// False when the day was made already.
pub async fn insert_report(tx: &mut PgConnection, report: &DailyReport) -> Result<bool, AppError> {
    let lines = serde_json::to_value(&report.lines).map_err(AppError::internal)?;
    let liabilities = serde_json::to_value(&report.liabilities).map_err(AppError::internal)?;
    let inserted = sqlx::query!(
        "INSERT INTO daily_reports (gaming_day, opens_at, closes_at, made_at, software_version, rules_version,
                                    no_activity, lines, liabilities, accounts_active, accounts_unreconciled)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (gaming_day) DO NOTHING",
        report.gaming_day,
        report.opens_at,
        report.closes_at,
        report.made_at,
        report.software_version,
        report.rules_version,
        report.no_activity,
        lines,
        liabilities,
        report.accounts_active,
        report.accounts_unreconciled
    )
    .execute(&mut *tx)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

/// Keeps a page of a report's reconciled accounts.
pub async fn insert_accounts(
    tx: &mut PgConnection,
    day: NaiveDate,
    accounts: &[AccountReconciliation],
) -> Result<(), AppError> {
    let column = |f: fn(&AccountReconciliation) -> i64| accounts.iter().map(f).collect::<Vec<i64>>();
    let ids: Vec<Uuid> = accounts.iter().map(|a| a.account_id).collect();
    let owners: Vec<String> = accounts.iter().map(|a| a.owner.clone()).collect();
    let reconciled: Vec<bool> = accounts.iter().map(|a| a.reconciled).collect();
    sqlx::query!(
        "INSERT INTO daily_report_accounts (gaming_day, account_id, owner, opening, deposits, withdrawals, stakes,
                                            prizes, refunds, adjustments, other, closing, ledger_closing, reconciled)
         SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
                                  $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
                                  $14::boolean[])",
        day,
        &ids,
        &owners,
        &column(|a| a.opening),
        &column(|a| a.deposits),
        &column(|a| a.withdrawals),
        &column(|a| a.stakes),
        &column(|a| a.prizes),
        &column(|a| a.refunds),
        &column(|a| a.adjustments),
        &column(|a| a.other),
        &column(|a| a.closing),
        &column(|a| a.ledger_closing),
        &reconciled
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

struct StoredReport {
    gaming_day: NaiveDate,
    opens_at: DateTime<Utc>,
    closes_at: DateTime<Utc>,
    made_at: DateTime<Utc>,
    software_version: String,
    rules_version: i32,
    no_activity: bool,
    lines: serde_json::Value,
    liabilities: serde_json::Value,
    accounts_active: i64,
    accounts_unreconciled: i64,
}

impl TryFrom<StoredReport> for DailyReport {
    type Error = AppError;

    fn try_from(row: StoredReport) -> Result<DailyReport, AppError> {
        let lines: Vec<ReportLine> = serde_json::from_value(row.lines).map_err(AppError::internal)?;
        Ok(DailyReport {
            gaming_day: row.gaming_day,
            opens_at: row.opens_at,
            closes_at: row.closes_at,
            provisional: false,
            made_at: row.made_at,
            software_version: row.software_version,
            rules_version: row.rules_version,
            no_activity: row.no_activity,
            totals: Figures::total(&lines),
            lines,
            liabilities: serde_json::from_value(row.liabilities).map_err(AppError::internal)?,
            accounts_active: row.accounts_active,
            accounts_unreconciled: row.accounts_unreconciled,
        })
    }
}

/// A kept report.
pub async fn report(conn: &mut PgConnection, day: NaiveDate) -> Result<Option<DailyReport>, AppError> {
    let row = sqlx::query_as!(StoredReport, "SELECT gaming_day, opens_at, closes_at, made_at, software_version, rules_version, no_activity, lines, liabilities, accounts_active, accounts_unreconciled FROM daily_reports WHERE gaming_day = $1", day)
        .fetch_optional(&mut *conn)
        .await?;
    row.map(DailyReport::try_from).transpose()
}

/// The kept reports of `from..=to`, oldest first, as summaries.
pub async fn summaries(pool: &PgPool, from: NaiveDate, to: NaiveDate) -> Result<Vec<DailySummary>, AppError> {
    let rows = sqlx::query_as!(StoredReport, "SELECT gaming_day, opens_at, closes_at, made_at, software_version, rules_version, no_activity, lines, liabilities, accounts_active, accounts_unreconciled FROM daily_reports WHERE gaming_day BETWEEN $1 AND $2 ORDER BY gaming_day", from, to)
        .fetch_all(pool)
        .await?;
    rows.into_iter()
        .map(|row| {
            let report = DailyReport::try_from(row)?;
            Ok(DailySummary {
                gaming_day: report.gaming_day,
                provisional: false,
                no_activity: report.no_activity,
                totals: report.totals,
                accounts_active: report.accounts_active,
                accounts_unreconciled: report.accounts_unreconciled,
            })
        })
        .collect()
}

/// A page of a kept report's accounts after `after` (only the unreconciled when asked).
pub async fn kept_accounts(
    pool: &PgPool,
    day: NaiveDate,
    after: Uuid,
    limit: i64,
    unreconciled_only: bool,
) -> Result<Vec<AccountReconciliation>, AppError> {
    Ok(sqlx::query_as!(
        AccountReconciliation,
        "SELECT account_id, owner, opening, deposits, withdrawals, stakes, prizes, refunds, adjustments, other, closing,
                ledger_closing, reconciled
           FROM daily_report_accounts
          WHERE gaming_day = $1 AND account_id > $2 AND (NOT $4 OR NOT reconciled)
          ORDER BY account_id LIMIT $3",
        day,
        after,
        limit,
        unreconciled_only
    )
    .fetch_all(pool)
    .await?)
}
