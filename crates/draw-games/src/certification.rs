//! A Powerball drawing's certification, as `lotto verify-draw` runs it (issue 33 §4: the one
//! surface the command needs, rather than the service's store and saga): the drawing as it
//! stands, the independent recount of its frozen export ([`crate::export`], with the rules of
//! `domain` and no database), and the certification that compares the two and records either
//! the certificate or the dispute.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::drawing::Results;
use platform::{AppError, codes};
use sqlx::PgPool;

pub use crate::export::{ExportError, Recount};
pub use crate::saga::powerball::draws::Verification;
pub use crate::store::powerball::settlement::tier_name;

/// A drawing whose results stand, as its recount needs it.
#[derive(Debug, Clone)]
pub struct Drawing {
    pub date: NaiveDate,
    pub results: Results,
    /// The export to recount: the one named, or the one the close recorded.
    pub export_file: PathBuf,
    /// The advertised grand prize, shared among its winners.
    pub grand_pool_cents: i64,
}

/// Drawing `date`, to be recounted from `file` or, when none is named, from its recorded export.
pub async fn drawing(pool: &PgPool, date: NaiveDate, file: Option<&Path>) -> Result<Drawing, AppError> {
    let stored = crate::store::powerball::drawings::get(pool, date).await?.ok_or_else(|| {
        AppError::not_found(codes::DRAWING_NOT_FOUND, format!("no Powerball drawing on {date} is on record"))
    })?;
    let results = stored.results.ok_or_else(|| {
        AppError::conflict(
            codes::DRAWING_NOT_SETTLED,
            format!("the {date} drawing's results do not stand yet"),
        )
    })?;
    let export_file =
        file.map(Path::to_path_buf).or(stored.export_file.map(PathBuf::from)).ok_or_else(|| {
            AppError::conflict(codes::DRAWING_NOT_CLOSED, format!("the {date} drawing has no export yet"))
        })?;
    Ok(Drawing { date, results, export_file, grand_pool_cents: stored.advertised_cents.unwrap_or(0) })
}

/// Recounts `drawing`'s winners and prizes from its export, line by line (it reads the whole
/// file: run it off the async threads).
pub fn recount(drawing: &Drawing) -> Result<Recount, ExportError> {
    crate::export::recount(&drawing.export_file, &drawing.results, drawing.grand_pool_cents)
}

/// Certifies `drawing` if `recount` agrees exactly with its close and its settlement, else
/// records the dispute; a drawing certified before is compared again and left as it is. `at` is
/// the draws' clock's time (`DrawSettings::clock`).
pub async fn certify(
    pool: &PgPool,
    drawing: &Drawing,
    recount: &Recount,
    at: DateTime<Utc>,
) -> Result<Verification, AppError> {
    crate::saga::powerball::draws::certify(
        pool,
        drawing.date,
        recount.sha256,
        recount.plays,
        &recount.prize_table,
        at,
    )
    .await
}
