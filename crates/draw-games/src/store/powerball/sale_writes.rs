//! A Powerball sale's two local writes, group-committed as Keno play-now's are (see
//! [`platform::group_commit`]): the tickets of the sales that arrive together recorded in one
//! statement, their plays placed in one, each batch in one transaction. A sale cost ten round trips
//! and two commits of its own; its share of two batches is a small part of one (issue 52).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use platform::group_commit::BatchWrite;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::store::powerball::tickets::PowerballTicket;

/// A sale's write.
#[derive(Debug)]
pub enum SaleWrite {
    /// Step 1: the ticket `open`. Answers [`SaleWritten::Recorded`]: whether this job recorded
    /// it (false: its id was recorded before, a replay, or its serial belongs to another ticket:
    /// the saga reads which).
    Record(PowerballTicket),
    /// Step 3: the ticket's plays into the drawings of `dates` (consecutive, the first still on
    /// sale). Answers [`SaleWritten::Placed`].
    Place { id: Uuid, dates: Vec<NaiveDate> },
}

/// What a [`SaleWrite`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaleWritten {
    Recorded(bool),
    Placed(Placed),
}

/// What placing a ticket's plays did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placed {
    /// In its drawings now, by this call: sold, its first drawing this one.
    Sold(NaiveDate),
    /// Not open any more: sold or refused before (or placed by another job of the same batch).
    Done,
    /// This drawing's sales closed meanwhile: place the plays from the drawing after it.
    Closed(NaiveDate),
    /// A drawing's row (and its partition of the plays) is not made yet: make it, then again.
    Missing,
}

/// Writes [`SaleWrite`]s, two statements a batch whatever its size.
#[derive(Debug)]
pub struct SaleWriter;

impl BatchWrite for SaleWriter {
    type Job = SaleWrite;
    type Output = SaleWritten;

    /// A ticket named twice in one batch is written once: the first job naming it answers what
    /// was done, the others as if another call had done it (not recorded; placed: done).
    async fn write_batch(&self, conn: &mut PgConnection, jobs: &[SaleWrite]) -> Result<Vec<SaleWritten>, AppError> {
        let mut records = Vec::new();
        let mut places: Vec<(Uuid, &[NaiveDate])> = Vec::new();
        for job in jobs {
            match job {
                SaleWrite::Record(ticket) => records.push(ticket),
                SaleWrite::Place { id, dates } if !places.iter().any(|(p, _)| p == id) => {
                    places.push((*id, dates.as_slice()));
                }
                SaleWrite::Place { .. } => {}
            }
        }
        let mut recorded = record(conn, &records).await?;
        let mut placed = place(conn, &places).await?;
        Ok(jobs
            .iter()
            .map(|job| match job {
                SaleWrite::Record(ticket) => SaleWritten::Recorded(recorded.remove(&ticket.id)),
                SaleWrite::Place { id, .. } => SaleWritten::Placed(placed.remove(id).unwrap_or(Placed::Done)),
            })
            .collect())
    }
}

/// Records `tickets` `open`; answers the ids recorded now. A ticket whose id or serial is taken
/// is not recorded (`ON CONFLICT DO NOTHING` with no target: either unique key).
async fn record(conn: &mut PgConnection, tickets: &[&PowerballTicket]) -> Result<HashSet<Uuid>, AppError> {
    if tickets.is_empty() {
        return Ok(HashSet::new());
    }
    // Each ticket's boards as an array literal: a ticket's count of boards is its own, and
    // Postgres' arrays of arrays must all be one size.
    let literal = |values: Vec<i16>| {
        format!("{{{}}}", values.iter().map(i16::to_string).collect::<Vec<_>>().join(","))
    };
    let whites: Vec<String> = tickets
        .iter()
        .map(|t| literal(t.boards.iter().flat_map(|b| b.whites.map(i16::from)).collect()))
        .collect();
    let powerballs: Vec<String> =
        tickets.iter().map(|t| literal(t.boards.iter().map(|b| i16::from(b.powerball)).collect())).collect();
    let created_at: Vec<DateTime<Utc>> = tickets.iter().map(|t| t.created_at).collect();
    let ids = sqlx::query_scalar!(
        "INSERT INTO pb_tickets (id, serial, channel, seller, sold_by, debit_account, whites, powerballs, quick_picks,
                                 power_play, draws, cost_cents, state, created_at)
         SELECT u.id, u.serial, u.channel, u.seller, u.sold_by, u.debit, u.whites::smallint[], u.powerballs::smallint[],
                u.quick_picks, u.power_play, u.draws, u.cost, 'open', u.created_at
           FROM UNNEST($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::uuid[], $7::text[], $8::text[],
                       $9::smallint[], $10::boolean[], $11::smallint[], $12::bigint[], $13::timestamptz[])
                AS u(id, serial, channel, seller, sold_by, debit, whites, powerballs, quick_picks, power_play, draws,
                     cost, created_at)
         ON CONFLICT DO NOTHING RETURNING id",
        &tickets.iter().map(|t| t.id).collect::<Vec<_>>(),
        &tickets.iter().map(|t| t.serial.body()).collect::<Vec<_>>(),
        &tickets.iter().map(|t| t.channel.as_str()).collect::<Vec<_>>() as &[&str],
        &tickets.iter().map(|t| t.seller.as_str()).collect::<Vec<_>>() as &[&str],
        &tickets.iter().map(|t| t.sold_by.as_str()).collect::<Vec<_>>() as &[&str],
        &tickets.iter().map(|t| t.debit_account).collect::<Vec<_>>(),
        &whites,
        &powerballs,
        &tickets.iter().map(|t| t.quick_picks).collect::<Vec<_>>(),
        &tickets.iter().map(|t| t.power_play).collect::<Vec<_>>(),
        &tickets.iter().map(|t| t.draws).collect::<Vec<_>>(),
        &tickets.iter().map(|t| t.cost_cents).collect::<Vec<_>>(),
        &created_at
    )
    .fetch_all(&mut *conn)
    .await?;
    Ok(ids.into_iter().collect())
}

/// `open` → `sold` for each ticket of `places` (distinct ids) with its plays in every drawing of
/// its dates, in one statement: the tickets' rows locked `FOR UPDATE` while `open`, the drawings'
/// rows locked `FOR SHARE` and read, so a drawing's close (which waits for those locks) freezes a
/// wager set no sale joins afterwards; a ticket is placed only when open with every drawing there
/// and on sale, and what stopped another is answered instead.
async fn place(conn: &mut PgConnection, places: &[(Uuid, &[NaiveDate])]) -> Result<HashMap<Uuid, Placed>, AppError> {
    if places.is_empty() {
        return Ok(HashMap::new());
    }
    let (ids, dates): (Vec<Uuid>, Vec<NaiveDate>) =
        places.iter().flat_map(|(id, dates)| dates.iter().map(move |d| (*id, *d))).unzip();
    let rows = sqlx::query!(
        r#"WITH wanted AS (
               SELECT * FROM UNNEST($1::uuid[], $2::date[]) AS w(id, draw_date)
           ), ticket AS (
               SELECT t.id, t.serial, t.whites, t.powerballs, t.power_play, t.channel FROM pb_tickets t
                WHERE t.id IN (SELECT w.id FROM wanted w) AND (t.state = 'open') IS TRUE
                ORDER BY t.id FOR UPDATE
           ), drawing AS (
               SELECT d.draw_date, d.state FROM pb_draws d
                WHERE d.draw_date IN (SELECT w.draw_date FROM wanted w)
                ORDER BY d.draw_date FOR SHARE
           ), verdict AS (
               SELECT w.id, count(d.draw_date) = count(*) AS all_found, min(w.draw_date) AS first_date,
                      max(d.draw_date) FILTER (WHERE d.state <> 'scheduled') AS closed
                 FROM wanted w LEFT JOIN drawing d ON d.draw_date = w.draw_date
                GROUP BY w.id
           ), go AS (
               SELECT t.*, v.first_date FROM ticket t JOIN verdict v ON v.id = t.id
                WHERE v.all_found AND v.closed IS NULL
           ), plays AS (
               INSERT INTO pb_plays (draw_date, serial, board, w1, w2, w3, w4, w5, powerball, power_play, online)
               SELECT w.draw_date, g.serial, b, g.whites[b * 5 - 4], g.whites[b * 5 - 3], g.whites[b * 5 - 2],
                      g.whites[b * 5 - 1], g.whites[b * 5], g.powerballs[b], g.power_play, g.channel = 'online'
                 FROM go g JOIN wanted w ON w.id = g.id, generate_series(1, cardinality(g.powerballs)) b
           ), sold AS (
               UPDATE pb_tickets p SET state = 'sold', first_draw = g.first_date, updated_at = now()
                 FROM go g WHERE p.id = g.id
               RETURNING p.id
           )
           SELECT v.id AS "id!", v.all_found AS "all_found!", v.first_date AS "first_date!", v.closed,
                  EXISTS (SELECT 1 FROM ticket t WHERE t.id = v.id) AS "open!",
                  EXISTS (SELECT 1 FROM sold s WHERE s.id = v.id) AS "sold!"
             FROM verdict v"#,
        &ids,
        &dates
    )
    .fetch_all(&mut *conn)
    .await?;
    rows.into_iter()
        .map(|row| {
            let placed = if !row.open {
                Placed::Done
            } else if let Some(closed) = row.closed {
                Placed::Closed(closed)
            } else if !row.all_found {
                Placed::Missing
            } else if row.sold {
                Placed::Sold(row.first_date)
            } else {
                return Err(AppError::internal("a ticket's plays were neither placed nor stopped"));
            };
            Ok((row.id, placed))
        })
        .collect()
}
