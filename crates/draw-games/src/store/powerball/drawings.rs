//! Powerball drawings as stored: the timetable's instants, the advertised grand prize, and each
//! drawing's steps: the close that freezes its wager set (exported by [`super::wager_set`]), its
//! results (entered under dual control, see [`super::result_entries`], or drawn), and the
//! set-based settlement that finds its winners. Checked against the schema at build time, but
//! for the statement whose text is made from a date (a drawing's partition), said beside it.

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::Board;
use domain::powerball::drawing::Results;
use domain::powerball::schedule::Drawing;
use platform::AppError;
use sqlx::{PgConnection, PgPool};

use crate::config::ResultsMode;
use crate::store::PowerballDrawState;

/// A drawing's row.
#[derive(Debug, Clone)]
pub struct StoredDrawing {
    pub date: NaiveDate,
    pub sales_close_at: DateTime<Utc>,
    pub sales_resume_at: DateTime<Utc>,
    pub draw_at: DateTime<Utc>,
    pub advertised_cents: Option<i64>,
    pub cash_value_cents: Option<i64>,
    pub state: PowerballDrawState,
    pub results_mode: ResultsMode,
    pub tickets: Option<i64>,
    pub plays: Option<i64>,
    pub wagers_cents: Option<i64>,
    pub export_file: Option<String>,
    pub export_sha256: Option<Vec<u8>>,
    pub results: Option<Results>,
    pub dispute: Option<String>,
}

/// A drawing's columns as stored: the results in three columns, the mode as text.
pub(super) struct DrawingRow {
    draw_date: NaiveDate,
    sales_close_at: DateTime<Utc>,
    sales_resume_at: DateTime<Utc>,
    draw_at: DateTime<Utc>,
    advertised_cents: Option<i64>,
    cash_value_cents: Option<i64>,
    state: PowerballDrawState,
    results_mode: String,
    tickets: Option<i64>,
    plays: Option<i64>,
    wagers_cents: Option<i64>,
    export_file: Option<String>,
    export_sha256: Option<Vec<u8>>,
    whites: Option<Vec<i16>>,
    powerball: Option<i16>,
    multiplier: Option<i16>,
    dispute: Option<String>,
}

impl TryFrom<DrawingRow> for StoredDrawing {
    type Error = AppError;

    fn try_from(row: DrawingRow) -> Result<Self, AppError> {
        let results = match (row.whites, row.powerball, row.multiplier) {
            (Some(whites), Some(pb), Some(m)) => {
                let whites: Vec<u8> = whites.iter().filter_map(|&n| u8::try_from(n).ok()).collect();
                let numbers = Board::new(&whites, u8::try_from(pb).unwrap_or(0))
                    .map_err(|e| AppError::internal(format!("stored results break the rules: {e}")))?;
                Some(Results { numbers, multiplier: u8::try_from(m).unwrap_or(0) })
            }
            _ => None,
        };
        Ok(StoredDrawing {
            date: row.draw_date,
            sales_close_at: row.sales_close_at,
            sales_resume_at: row.sales_resume_at,
            draw_at: row.draw_at,
            advertised_cents: row.advertised_cents,
            cash_value_cents: row.cash_value_cents,
            state: row.state,
            results_mode: row.results_mode.parse().map_err(AppError::internal)?,
            tickets: row.tickets,
            plays: row.plays,
            wagers_cents: row.wagers_cents,
            export_file: row.export_file,
            export_sha256: row.export_sha256,
            results,
            dispute: row.dispute,
        })
    }
}

/// Rows read into drawings.
fn drawings(rows: Vec<DrawingRow>) -> Result<Vec<StoredDrawing>, AppError> {
    rows.into_iter().map(StoredDrawing::try_from).collect()
}

/// The name of a drawing's partition of `pb_plays`.
fn partition_of(date: NaiveDate) -> String {
    format!("pb_plays_{}", date.format("%Y%m%d"))
}

/// The drawing's row, made from the timetable (with its partition of the plays, and `mode` for
/// its results) when it is not there yet. A read of a row that exists writes nothing.
pub async fn ensure(pool: &PgPool, drawing: &Drawing, mode: ResultsMode) -> Result<StoredDrawing, AppError> {
    if let Some(found) = get(pool, drawing.date).await? {
        return Ok(found);
    }
    create(pool, drawing, mode).await?;
    get(pool, drawing.date).await?.ok_or_else(|| AppError::internal("a drawing vanished"))
}

/// [`ensure`] for every drawing of `drawings`, in one read when their rows are all there (a
/// sale's drawings almost always are).
pub async fn ensure_all(pool: &PgPool, drawings: &[Drawing], mode: ResultsMode) -> Result<(), AppError> {
    let dates: Vec<NaiveDate> = drawings.iter().map(|d| d.date).collect();
    let missing = sqlx::query_scalar!(
        r#"SELECT d AS "date!" FROM unnest($1::date[]) d WHERE NOT EXISTS (SELECT 1 FROM pb_draws WHERE draw_date = d)"#,
        &dates
    )
    .fetch_all(pool)
    .await?;
    for drawing in drawings.iter().filter(|d| missing.contains(&d.date)) {
        create(pool, drawing, mode).await?;
    }
    Ok(())
}

/// Makes the row of `drawing` and its partition of the plays, unless a concurrent call made it.
async fn create(pool: &PgPool, drawing: &Drawing, mode: ResultsMode) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query_scalar!(
        "INSERT INTO pb_draws (draw_date, sales_close_at, sales_resume_at, draw_at, results_mode) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (draw_date) DO NOTHING RETURNING draw_date",
        drawing.date,
        drawing.sales_close,
        drawing.sales_resume,
        drawing.drawing,
        mode.as_str()
    )
    .fetch_optional(&mut *tx)
    .await?;
    if inserted.is_some() {
        // Only the transaction that made the row makes the partition (a concurrent one waited
        // on the row's key and found it there). DDL naming a table made from the date: a
        // string, which the macros cannot take.
        let date = drawing.date.format("%Y-%m-%d");
        sqlx::query(&format!(
            "CREATE TABLE {} PARTITION OF pb_plays FOR VALUES IN ('{date}')",
            partition_of(drawing.date)
        ))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Drawing `date`.
pub async fn get(pool: &PgPool, date: NaiveDate) -> Result<Option<StoredDrawing>, AppError> {
    sqlx::query_as!(
        DrawingRow,
        r#"SELECT draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                  state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                  export_sha256, whites, powerball, multiplier, dispute
             FROM pb_draws WHERE draw_date = $1"#,
        date
    )
    .fetch_optional(pool)
    .await?
    .map(StoredDrawing::try_from)
    .transpose()
}

/// The grand prize advertised for the next drawing with one (the earliest still selling), in
/// cents: what `platform::metrics`' jackpot gauge shows.
pub async fn next_advertised_cents(pool: &PgPool) -> Result<Option<i64>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT advertised_cents AS "advertised_cents!" FROM pb_draws
            WHERE state = 'scheduled' AND advertised_cents IS NOT NULL ORDER BY draw_date LIMIT 1"#
    )
    .fetch_optional(pool)
    .await?)
}

/// Drawing `date`, locked until the caller's transaction ends.
pub(super) async fn lock(
    conn: &mut PgConnection,
    date: NaiveDate,
) -> Result<Option<StoredDrawing>, AppError> {
    sqlx::query_as!(
        DrawingRow,
        r#"SELECT draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                  state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                  export_sha256, whites, powerball, multiplier, dispute
             FROM pb_draws WHERE draw_date = $1 FOR UPDATE"#,
        date
    )
    .fetch_optional(&mut *conn)
    .await?
    .map(StoredDrawing::try_from)
    .transpose()
}

/// The newest `limit` drawings whose sales closed before `before` (closed and waiting for their
/// results too, issue 47 §4: a drawing between its close and its draw was listed nowhere), their
/// results public once they stand; before the day `after` when a page follows another.
pub async fn list_past(
    pool: &PgPool,
    before: DateTime<Utc>,
    after: Option<NaiveDate>,
    limit: i64,
) -> Result<Vec<StoredDrawing>, AppError> {
    drawings(
        sqlx::query_as!(
            DrawingRow,
            r#"SELECT draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                      state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                      export_sha256, whites, powerball, multiplier, dispute
                 FROM pb_draws WHERE sales_close_at <= $1 AND ($3::date IS NULL OR draw_date < $3)
                ORDER BY draw_date DESC LIMIT $2"#,
            before,
            limit,
            after
        )
        .fetch_all(pool)
        .await?,
    )
}

/// Sets the drawing's advertised grand prize and its cash value until it is settled (a drawing
/// whose grand prize was not set by its close waits for it), and returns it; none when it is
/// settled or later.
pub async fn set_grand_prize(
    pool: &PgPool,
    date: NaiveDate,
    advertised: i64,
    cash: i64,
) -> Result<Option<StoredDrawing>, AppError> {
    sqlx::query_as!(
        DrawingRow,
        r#"UPDATE pb_draws SET advertised_cents = $2, cash_value_cents = $3, updated_at = now()
            WHERE draw_date = $1 AND state IN ('scheduled', 'closed', 'drawn')
            RETURNING draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                      state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                      export_sha256, whites, powerball, multiplier, dispute"#,
        date,
        advertised,
        cash
    )
    .fetch_optional(pool)
    .await?
    .map(StoredDrawing::try_from)
    .transpose()
}

/// Sets how the drawing's results come to stand, while it is still `scheduled`.
pub async fn set_results_mode(
    pool: &PgPool,
    date: NaiveDate,
    mode: ResultsMode,
) -> Result<Option<StoredDrawing>, AppError> {
    sqlx::query_as!(
        DrawingRow,
        r#"UPDATE pb_draws SET results_mode = $2, updated_at = now()
            WHERE draw_date = $1 AND state = 'scheduled'
            RETURNING draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                      state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                      export_sha256, whites, powerball, multiplier, dispute"#,
        date,
        mode.as_str()
    )
    .fetch_optional(pool)
    .await?
    .map(StoredDrawing::try_from)
    .transpose()
}

/// Drawings whose sales have closed by `now` and that are not finished (certified or stopped),
/// oldest first.
pub async fn due(pool: &PgPool, now: DateTime<Utc>) -> Result<Vec<StoredDrawing>, AppError> {
    drawings(
        sqlx::query_as!(
            DrawingRow,
            r#"SELECT draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                      state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                      export_sha256, whites, powerball, multiplier, dispute
                 FROM pb_draws WHERE state IN ('scheduled', 'closed', 'drawn') AND sales_close_at <= $1
                ORDER BY draw_date"#,
            now
        )
        .fetch_all(pool)
        .await?,
    )
}

/// `scheduled` → `closed`: waits for every sale holding the drawing (`FOR SHARE`), then records
/// the frozen wager set's counts; a sale after this finds the drawing closed. A no-op later.
/// Every time of a drawing is the service's clock's (`at`; a shifted clock's in a demonstration),
/// never the database's.
pub async fn close(pool: &PgPool, date: NaiveDate, at: DateTime<Utc>) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let state = sqlx::query_scalar!(
        r#"SELECT state AS "state: PowerballDrawState" FROM pb_draws WHERE draw_date = $1 FOR UPDATE"#,
        date
    )
    .fetch_optional(&mut *tx)
    .await?;
    if state == Some(PowerballDrawState::Scheduled) {
        let row = sqlx::query!(
            // A ticket's boards are numbered from 1 in every drawing it plays: its board 1
            // counts it, in the same pass (a count of distinct serials sorted all 10 million
            // plays of a large drawing: 3.3 s against 0.7; issue 52).
            r#"SELECT count(*) FILTER (WHERE board = 1) AS "tickets!", count(*) AS "plays!",
                      count(*) FILTER (WHERE power_play) AS "power_plays!"
                 FROM pb_plays WHERE draw_date = $1"#,
            date
        )
        .fetch_one(&mut *tx)
        .await?;
        let wagers = domain::powerball::PLAY_CENTS
            .saturating_mul(row.plays)
            .saturating_add(domain::powerball::POWER_PLAY_CENTS.saturating_mul(row.power_plays));
        sqlx::query!(
            "UPDATE pb_draws SET state = 'closed', closed_at = $5, tickets = $2, plays = $3, wagers_cents = $4,
                    updated_at = now() WHERE draw_date = $1",
            date,
            row.tickets,
            row.plays,
            wagers,
            at
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Records the export's file and hash on a closed drawing, in the caller's transaction; false
/// when one is recorded already (a replayed step).
pub async fn record_export(
    conn: &mut PgConnection,
    date: NaiveDate,
    file: &str,
    sha256: &[u8],
) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "UPDATE pb_draws SET export_file = $2, export_sha256 = $3, updated_at = now()
          WHERE draw_date = $1 AND state = 'closed' AND export_sha256 IS NULL",
        date,
        file,
        sha256
    )
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1)
}

pub(super) fn results_columns(results: &Results) -> (Vec<i16>, i16, i16) {
    (
        results.numbers.whites.iter().map(|&n| i16::from(n)).collect(),
        i16::from(results.numbers.powerball),
        i16::from(results.multiplier),
    )
}

/// `closed` (with its export recorded) → `drawn` with `results`, in the caller's transaction;
/// none when the drawing was not waiting for results.
pub async fn record_results(
    conn: &mut PgConnection,
    date: NaiveDate,
    results: &Results,
    at: DateTime<Utc>,
) -> Result<Option<StoredDrawing>, AppError> {
    let (whites, powerball, multiplier) = results_columns(results);
    sqlx::query_as!(
        DrawingRow,
        r#"UPDATE pb_draws SET state = 'drawn', whites = $2, powerball = $3, multiplier = $4, results_at = $5,
                  updated_at = now()
            WHERE draw_date = $1 AND state = 'closed' AND export_sha256 IS NOT NULL
            RETURNING draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                      state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                      export_sha256, whites, powerball, multiplier, dispute"#,
        date,
        &whites,
        powerball,
        multiplier,
        at
    )
    .fetch_optional(&mut *conn)
    .await?
    .map(StoredDrawing::try_from)
    .transpose()
}

/// Certified drawings whose online prizes are not all paid yet, oldest first.
pub async fn certified_unpaid(pool: &PgPool) -> Result<Vec<StoredDrawing>, AppError> {
    drawings(
        sqlx::query_as!(
            DrawingRow,
            r#"SELECT draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents,
                      state AS "state: PowerballDrawState", results_mode, tickets, plays, wagers_cents, export_file,
                      export_sha256, whites, powerball, multiplier, dispute
                 FROM pb_draws WHERE state = 'certified' AND online_paid_at IS NULL ORDER BY draw_date"#
        )
        .fetch_all(pool)
        .await?,
    )
}

/// An online ticket's unpaid prizes in a drawing, up to the retailer limit each (paid to the
/// wallet that bought it).
#[derive(Debug, Clone)]
pub struct OnlinePrize {
    pub serial: i64,
    pub wallet: uuid::Uuid,
    pub prize_cents: i64,
}

/// How many online tickets have unpaid prizes in `date` (the ones over the limit included).
pub async fn count_unpaid_online(pool: &PgPool, date: NaiveDate) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT count(DISTINCT serial) AS "count!" FROM pb_winners
            WHERE draw_date = $1 AND online AND paid_at IS NULL"#,
        date
    )
    .fetch_one(pool)
    .await?)
}

/// The online tickets with serials in `serials` with unpaid prizes of `date`, whose prizes
/// together are at most `up_to_cents` (larger ones are claimed at the lottery office). A range,
/// not the next so many after a serial: each call reads only its own slice of the winners (the
/// next-so-many read every winner left to sort them, 75 times for a 10-million-play drawing).
pub async fn unpaid_online(
    pool: &PgPool,
    date: NaiveDate,
    up_to_cents: i64,
    serials: std::ops::Range<i64>,
) -> Result<Vec<OnlinePrize>, AppError> {
    Ok(sqlx::query_as!(
        OnlinePrize,
        r#"SELECT w.serial, t.debit_account AS wallet, sum(w.prize_cents)::bigint AS "prize_cents!"
             FROM pb_winners w JOIN pb_tickets t ON t.serial = w.serial
            WHERE w.draw_date = $1 AND w.online AND w.paid_at IS NULL AND w.serial >= $3 AND w.serial < $4
            GROUP BY w.serial, t.debit_account HAVING sum(w.prize_cents) <= $2::bigint"#,
        date,
        up_to_cents,
        serials.start,
        serials.end
    )
    .fetch_all(pool)
    .await?)
}

/// Marks tickets `serials`' prizes of `date` paid at `at`.
pub async fn mark_prizes_paid(
    pool: &PgPool,
    date: NaiveDate,
    serials: &[i64],
    at: DateTime<Utc>,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE pb_winners SET paid_at = $3 WHERE draw_date = $1 AND serial = ANY($2) AND paid_at IS NULL",
        date,
        serials,
        at
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Records that every online prize of `date` up to the limit is paid, at `at`.
pub async fn mark_online_paid(pool: &PgPool, date: NaiveDate, at: DateTime<Utc>) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE pb_draws SET online_paid_at = $2, updated_at = now() WHERE draw_date = $1",
        date,
        at
    )
    .execute(pool)
    .await?;
    Ok(())
}
