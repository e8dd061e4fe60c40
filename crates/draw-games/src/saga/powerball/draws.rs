//! Powerball drawings, certified (ADR 0008): the steps the scheduler's leader runs for every
//! drawing whose sales have closed, and the results entry and certification that people do.
//!
//! A drawing moves through guarded states, each step safe to run again:
//!
//! - **close** (`scheduled` → `closed`) at 8:59 p.m. central: waits for every sale holding the
//!   drawing, freezes its counts, then writes the canonical export of every play (the
//!   independent control copy) and chains its SHA-256 in the audit log;
//! - **results** (`closed` → `drawn`): **entered** by two different operators who must agree on
//!   the five numbers, the Powerball and the multiplier (a mismatch is refused, logged in the
//!   audit chain, and both enter again), or **drawn** at 9:58 p.m. by a fresh OS-seeded ChaCha20;
//! - **settle** (`drawn` → `settled`): the drawing's wagers move from escrow to the house, and
//!   one set-based statement finds every winner; the prize table is chained;
//! - **certify** (`settled` → `certified` or `disputed`): `lotto verify-draw` recounts every
//!   tier from the export alone and hands its table here; only an exact agreement certifies
//!   (chained), and only then do prizes become payable: the prize total moves to the prizes
//!   account and online prizes up to the retailer limit are paid to the wallets;
//! - **expire** (after the claim period): what is unclaimed moves to the unclaimed account.

use chrono::NaiveDate;
use domain::powerball::PowerPlayBalls;
use domain::powerball::drawing::{Results, TierResult};
use domain::serial::TicketSerial;
use futures_util::{TryStreamExt, stream};
use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use platform::events::{self, Event, Kind};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;
use uuid::Uuid;

use crate::config::ResultsMode;
use crate::store::PowerballDrawState;
use crate::store::powerball::drawings::{self, StoredDrawing};
use crate::store::powerball::result_entries::{self, ResultEntry};
use crate::store::powerball::{settlement, wager_set};
use crate::{DRAWS_NAMESPACE, DrawsState};

/// Online prizes paid per ledger call, about.
pub const PAY_CHUNK: u64 = 2_000;
/// Ledger calls of online prizes at once.
pub const PAY_IN_FLIGHT: usize = 3;

fn subject(date: NaiveDate) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball/{date}").as_bytes())
}

fn step_id(date: NaiveDate, step: &str) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball-draw/{date}/{step}").as_bytes())
}

/// One pass of the leader: every step due now of every drawing whose sales have closed, oldest
/// first, and the payment of certified drawings' online prizes. Returns how many steps ran.
pub async fn run_due_drawings(state: &DrawsState) -> Result<usize, AppError> {
    let now = state.clock.now();
    // The drawing on sale has its row, so the leader sees it close even if nothing sold.
    super::sales::ensure_drawings(state, &[state.powerball.next_open(now)]).await?;
    let mut moved = 0usize;
    for drawing in drawings::due(&state.pool, now).await? {
        let date = drawing.date;
        match drawing.state {
            PowerballDrawState::Scheduled => {
                close_drawing(state, date).await?;
                moved += 1;
            }
            PowerballDrawState::Closed if drawing.export_sha256.is_none() => {
                export_wager_set(state, date).await?;
                moved += 1;
            }
            PowerballDrawState::Closed
                if drawing.results_mode == ResultsMode::Drawn && now >= drawing.draw_at =>
            {
                moved += usize::from(draw_results(state, date).await?);
            }
            PowerballDrawState::Drawn => {
                moved += usize::from(settle_drawing(state, date).await?);
            }
            _ => {}
        }
    }
    for drawing in drawings::certified_unpaid(&state.pool).await? {
        pay_certified(state, &drawing).await?;
        moved += 1;
    }
    moved += super::claims::expire_unclaimed(state).await?;
    moved += super::annuities::pay_due(state).await?;
    Ok(moved)
}

/// `scheduled` → `closed` and the wager set exported; no-ops on later states.
pub async fn close_drawing(state: &DrawsState, date: NaiveDate) -> Result<(), AppError> {
    drawings::close(&state.pool, date, state.clock.now()).await?;
    export_wager_set(state, date).await
}

/// The frozen wager set as chained in the audit log.
#[derive(Debug, Serialize)]
struct CloseRecord<'a> {
    game: &'static str,
    draw_date: NaiveDate,
    tickets: Option<i64>,
    plays: Option<i64>,
    wagers_cents: Option<i64>,
    export_file: &'a str,
    export_sha256: String,
}

/// Chains `record` in the game's audit log as `audit_kind`, and records it in the significant
/// events as `event` about `date`'s drawing: one step of the drawing, in its transaction.
async fn chained(
    tx: &mut sqlx::PgConnection,
    audit_kind: &str,
    event: Kind,
    date: NaiveDate,
    record: &impl Serialize,
) -> Result<(), AppError> {
    platform::audit::append(&mut *tx, audit_kind, subject(date), record).await?;
    events::record(tx, crate::SCHEMA, &Event::new(event, record)?.drawing("powerball", date)).await
}

/// Writes a closed drawing's export and chains its hash, once.
pub async fn export_wager_set(state: &DrawsState, date: NaiveDate) -> Result<(), AppError> {
    let Some(drawing) = drawings::get(&state.pool, date).await? else { return Ok(()) };
    if drawing.state != PowerballDrawState::Closed || drawing.export_sha256.is_some() {
        return Ok(());
    }
    let (path, sha256) =
        wager_set::write_export(&state.pool, date, &state.settings.powerball.export_dir).await?;
    let file = path.to_string_lossy().into_owned();
    let mut tx = state.pool.begin().await?;
    if drawings::record_export(&mut tx, date, &file, &sha256).await? {
        let record = CloseRecord {
            game: "powerball",
            draw_date: date,
            tickets: drawing.tickets,
            plays: drawing.plays,
            wagers_cents: drawing.wagers_cents,
            export_file: &file,
            export_sha256: hex::encode(sha256),
        };
        chained(&mut tx, "powerball.close", Kind::DrawClosed, date, &record).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Results as chained in the audit log.
#[derive(Debug, Serialize)]
struct ResultsRecord<'a> {
    game: &'static str,
    draw_date: NaiveDate,
    mode: ResultsMode,
    results: &'a Results,
    entered_by: Vec<&'a str>,
}

/// The drum of a drawing: with the 10x while its advertised grand prize is at most $150
/// million (a drawing without one advertised is read as the smallest, so with the 10x: the
/// service draws none before one is set, and entered results are checked again when it is).
pub fn drum_of(drawing: &StoredDrawing) -> PowerPlayBalls {
    PowerPlayBalls::for_grand_prize(drawing.advertised_cents.unwrap_or(0))
}

/// A drawing waits for its grand prize: no drum is known, and no grand prize recorded, before an
/// operator sets it (`PUT /v1/powerball/draws/{date}/grand-prize`, which stays open until the
/// drawing is settled). Said once a pass, as a warning: the drawing is late.
fn waits_for_grand_prize(drawing: &StoredDrawing, step: &str) -> bool {
    if drawing.advertised_cents.is_some() {
        return false;
    }
    tracing::warn!(
        draw_date = %drawing.date,
        step,
        "the Powerball drawing's grand prize is not set: it waits (set it with PUT /v1/powerball/draws/{{date}}/grand-prize)"
    );
    true
}

/// `closed` → `drawn` by the service's generator: the only place Powerball results are drawn.
/// Answers whether it drew (not before the grand prize is set).
pub async fn draw_results(state: &DrawsState, date: NaiveDate) -> Result<bool, AppError> {
    let Some(drawing) = drawings::get(&state.pool, date).await? else { return Ok(false) };
    if waits_for_grand_prize(&drawing, "draw") {
        return Ok(false);
    }
    // A fresh generator seeded by the operating system; the seed is never kept.
    let results = Results::draw(&mut ChaCha20Rng::from_os_rng(), drum_of(&drawing));
    let mut tx = state.pool.begin().await?;
    if drawings::record_results(&mut tx, date, &results, state.clock.now()).await?.is_some() {
        let record = ResultsRecord {
            game: "powerball",
            draw_date: date,
            mode: ResultsMode::Drawn,
            results: &results,
            entered_by: vec![],
        };
        chained(&mut tx, "powerball.results", Kind::DrawResults, date, &record).await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// What an operator's entry of official results did.
#[derive(Debug, Clone)]
pub enum Entry {
    /// The first entry: it waits for a second operator's.
    AwaitingSecond,
    /// The second agreed: the results stand.
    Stand(Box<StoredDrawing>),
}

/// A mismatch as chained in the audit log.
#[derive(Debug, Serialize)]
struct MismatchRecord<'a> {
    game: &'static str,
    draw_date: NaiveDate,
    first: (&'a str, &'a Results),
    second: (&'a str, &'a Results),
}

/// Refuses an entry of results for a drawing that is not closed with its wager set frozen and
/// waiting for results an operator enters.
fn awaits_entered_results(drawing: &StoredDrawing) -> Result<(), AppError> {
    let date = drawing.date;
    if drawing.results_mode != ResultsMode::Entered {
        return Err(AppError::conflict(
            codes::RESULTS_ARE_DRAWN,
            format!("the {date} drawing's results are drawn by the service"),
        ));
    }
    match drawing.state {
        PowerballDrawState::Scheduled => Err(AppError::conflict(
            codes::DRAWING_NOT_CLOSED,
            format!(
                "the {date} drawing's sales close at {}; results follow the close",
                drawing.sales_close_at.to_rfc3339()
            ),
        )),
        PowerballDrawState::Closed if drawing.export_sha256.is_none() => Err(AppError::conflict(
            codes::DRAWING_NOT_CLOSED,
            format!("the {date} drawing's wager set is still being frozen"),
        )),
        PowerballDrawState::Closed => Ok(()),
        _ => Err(AppError::conflict(
            codes::RESULTS_STAND,
            format!("the {date} drawing's results already stand"),
        )),
    }
}

/// `operator` enters `date`'s official results (dual control): the first entry waits; a second
/// by a different operator that agrees makes them stand; one that differs is refused, both
/// entries are discarded (to be entered again) and the mismatch is chained.
pub async fn enter_results(
    state: &DrawsState,
    date: NaiveDate,
    operator: &str,
    whites: &[u8],
    powerball: u8,
    multiplier: u8,
) -> Result<Entry, AppError> {
    let mut tx = state.pool.begin().await?;
    let Some((drawing, entries)) = result_entries::lock_for_entry(&mut tx, date).await? else {
        return Err(AppError::not_found(codes::DRAWING_NOT_FOUND, format!("no Powerball drawing on {date}")));
    };
    awaits_entered_results(&drawing)?;
    let results = Results::new(whites, powerball, multiplier, drum_of(&drawing))
        .map_err(|e| crate::rules::powerball_rule_error(&e))?;
    let entry = ResultEntry { entered_by: operator.to_owned(), results };
    let Some(first) = entries.first() else {
        result_entries::add_entry(&mut tx, date, &entry, state.clock.now()).await?;
        let first = Event::new(Kind::DrawResults, &entry)?.drawing("powerball", date).staff(operator);
        events::record(&mut tx, crate::SCHEMA, &first).await?;
        tx.commit().await?;
        return Ok(Entry::AwaitingSecond);
    };
    if first.entered_by == operator {
        return Err(AppError::conflict(
            codes::SECOND_OPERATOR_REQUIRED,
            "these results wait for a different operator's entry (dual control)",
        ));
    }
    if first.results != results {
        result_entries::clear_entries(&mut tx, date).await?;
        let record = MismatchRecord {
            game: "powerball",
            draw_date: date,
            first: (&first.entered_by, &first.results),
            second: (operator, &results),
        };
        chained(&mut tx, "powerball.results_mismatch", Kind::DrawResults, date, &record).await?;
        tx.commit().await?;
        tracing::warn!(
            %date,
            first = %first.entered_by,
            first_results = ?first.results,
            second = operator,
            second_results = ?results,
            "Powerball results entries disagree"
        );
        return Err(AppError::conflict(
            codes::RESULTS_MISMATCH,
            "the two entries of the results disagree: both are discarded and logged; enter them again",
        ));
    }
    let stood = drawings::record_results(&mut tx, date, &results, state.clock.now())
        .await?
        .ok_or_else(|| AppError::internal("a closed drawing refused its results"))?;
    let record = ResultsRecord {
        game: "powerball",
        draw_date: date,
        mode: ResultsMode::Entered,
        results: &results,
        entered_by: vec![&first.entered_by, operator],
    };
    chained(&mut tx, "powerball.results", Kind::DrawResults, date, &record).await?;
    tx.commit().await?;
    Ok(Entry::Stand(Box::new(stood)))
}

/// The settlement as chained in the audit log.
#[derive(Debug, Serialize)]
struct SettleRecord<'a> {
    game: &'static str,
    draw_date: NaiveDate,
    prize_table: &'a [TierResult],
}

/// `drawn` → `settled`: the wagers to the house, every winner found. Safe to run again. Answers
/// whether it settled: a drawing whose grand prize is not set waits (its grand prize would be
/// recorded as nothing), and so its certification.
pub async fn settle_drawing(state: &DrawsState, date: NaiveDate) -> Result<bool, AppError> {
    let Some(drawing) = drawings::get(&state.pool, date).await? else { return Ok(false) };
    if drawing.state != PowerballDrawState::Drawn || waits_for_grand_prize(&drawing, "settle") {
        return Ok(false);
    }
    let wagers = drawing.wagers_cents.unwrap_or(0);
    if wagers > 0 {
        let stakes = NewTransfer::new(
            step_id(date, "wagers"),
            state.powerball_accounts.escrow,
            state.powerball_accounts.house,
            wagers,
            Purpose::of(Game::Powerball, Money::Stake).draw_date(date),
        );
        state.ledger.transfer(&stakes).await?;
    }
    let mut tx = state.pool.begin().await?;
    if let Some(table) = settlement::settle(&mut tx, date, state.clock.now()).await? {
        let record = SettleRecord { game: "powerball", draw_date: date, prize_table: &table };
        chained(&mut tx, "powerball.settle", Kind::DrawSettled, date, &record).await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// What a verification found.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Verification {
    pub draw_date: NaiveDate,
    /// `certified`, or `disputed` with what disagreed.
    pub state: String,
    pub disagreements: Vec<String>,
}

/// The certification (or dispute) as chained in the audit log.
#[derive(Debug, Serialize)]
struct CertifyRecord<'a> {
    game: &'static str,
    draw_date: NaiveDate,
    export_sha256: String,
    verified_plays: u64,
    prize_table: &'a [TierResult],
    disagreements: &'a [String],
}

/// What the independent count (`sha256`, `plays`, `verified`) finds different from what the
/// close recorded and the settlement stored; empty when they agree.
fn disagreements(
    drawing: &StoredDrawing,
    stored: &[TierResult],
    sha256: [u8; 32],
    plays: u64,
    verified: &[TierResult],
) -> Vec<String> {
    let mut disagreements = Vec::new();
    if drawing.export_sha256.as_deref() != Some(sha256.as_slice()) {
        disagreements.push(format!(
            "the export's SHA-256 is {}, the close recorded {}",
            hex::encode(sha256),
            drawing.export_sha256.as_deref().map(hex::encode).unwrap_or_default()
        ));
    }
    if drawing.plays.and_then(|p| u64::try_from(p).ok()) != Some(plays) {
        disagreements.push(format!("the export holds {plays} plays, the close counted {:?}", drawing.plays));
    }
    for line in verified {
        let found = stored.iter().find(|s| s.tier == line.tier && s.power_play == line.power_play);
        if found != Some(line) {
            disagreements.push(format!(
                "{} {}: verified {} winners of {} cents ({} in all), settled {}",
                settlement::tier_name(line.tier),
                if line.power_play { "with Power Play" } else { "without Power Play" },
                line.winners,
                line.prize_cents,
                line.total_cents,
                found.map_or("nothing".to_owned(), |s| format!(
                    "{} winners of {} cents ({} in all)",
                    s.winners, s.prize_cents, s.total_cents
                )),
            ));
        }
    }
    if stored.len() != verified.len() {
        disagreements.push(format!("{} prize lines settled, {} verified", stored.len(), verified.len()));
    }
    disagreements
}

/// Compares an independent count (`verified`, over `plays` plays of an export whose SHA-256
/// is `sha256`) with the settled drawing: an exact agreement certifies it; anything else
/// stops it as `disputed`, saying what disagreed. Either is chained in the audit log. A drawing
/// certified already is compared again and left as it is (the differences, if any, returned).
/// `at` is the draws' clock's time (`DrawSettings::clock`).
pub async fn certify(
    pool: &sqlx::PgPool,
    date: NaiveDate,
    sha256: [u8; 32],
    plays: u64,
    verified: &[TierResult],
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Verification, AppError> {
    let drawing = drawings::get(pool, date).await?.ok_or_else(|| {
        AppError::not_found(codes::DRAWING_NOT_FOUND, format!("no Powerball drawing on {date}"))
    })?;
    // A certified drawing is checked again without a change (a repeated command, an auditor's
    // later check); anything else but a settled one has nothing to compare yet, or is stopped.
    let recheck = drawing.state == PowerballDrawState::Certified;
    if drawing.state != PowerballDrawState::Settled && !recheck {
        return Err(AppError::conflict(
            codes::DRAWING_NOT_SETTLED,
            format!("the {date} drawing is {}: only a settled drawing is certified", drawing.state.as_str()),
        ));
    }
    let stored = settlement::prize_table(pool, date).await?;
    let disagreements = disagreements(&drawing, &stored, sha256, plays, verified);
    if recheck {
        if !disagreements.is_empty() {
            tracing::error!(%date, disagreements = %disagreements.join("; "), "a certified Powerball drawing no longer agrees");
        }
        return Ok(Verification { draw_date: date, state: "certified".to_owned(), disagreements });
    }
    let dispute = (!disagreements.is_empty()).then(|| disagreements.join("; "));
    let mut tx = pool.begin().await?;
    if settlement::finish_verification(&mut tx, date, dispute.as_deref(), at).await? {
        let record = CertifyRecord {
            game: "powerball",
            draw_date: date,
            export_sha256: hex::encode(sha256),
            verified_plays: plays,
            prize_table: verified,
            disagreements: &disagreements,
        };
        let kind = if dispute.is_some() { "powerball.dispute" } else { "powerball.certify" };
        chained(&mut tx, kind, Kind::DrawCertification, date, &record).await?;
    }
    tx.commit().await?;
    if let Some(dispute) = &dispute {
        tracing::error!(%date, %dispute, "Powerball drawing disputed: it stops here");
    }
    Ok(Verification {
        draw_date: date,
        state: if dispute.is_some() { "disputed" } else { "certified" }.to_owned(),
        disagreements,
    })
}

/// Makes a certified drawing's prizes payable: the prize total from the house to the prizes
/// account, then every online ticket's prizes up to the retailer limit to its wallet. Safe to
/// run again (each transfer's id is derived from the drawing and the ticket).
pub async fn pay_certified(state: &DrawsState, drawing: &StoredDrawing) -> Result<(), AppError> {
    let date = drawing.date;
    let total: i64 = settlement::prize_table(&state.pool, date).await?.iter().map(|l| l.total_cents).sum();
    if total > 0 {
        let payable = NewTransfer::new(
            step_id(date, "prizes"),
            state.powerball_accounts.house,
            state.powerball_accounts.prizes,
            total,
            Purpose::of(Game::Powerball, Money::Prize).draw_date(date),
        );
        state.ledger.transfer(&payable).await?;
    }
    // The serials split into slices of about PAY_CHUNK tickets each (serials are uniform over
    // their range), up to PAY_IN_FLIGHT slices paid at once; a slice is marked paid only after
    // its prizes are, so a restart pays what is left again as replays.
    let due = drawings::count_unpaid_online(&state.pool, date).await?;
    let slices = u64::try_from(due).unwrap_or(0).div_ceil(PAY_CHUNK).max(1);
    stream::iter(serial_slices(slices).into_iter().map(Ok))
        .map_ok(|serials| pay_online_slice(state.clone(), date, serials))
        .try_buffer_unordered(PAY_IN_FLIGHT)
        .try_collect::<()>()
        .await?;
    drawings::mark_online_paid(&state.pool, date, state.clock.now()).await
}

/// Every serial, in `count` consecutive slices of (nearly) one size.
fn serial_slices(count: u64) -> Vec<std::ops::Range<i64>> {
    let (from, to) = (TicketSerial::BODIES.start, TicketSerial::BODIES.end);
    let count = count.max(1);
    let width = to.abs_diff(from).div_ceil(count);
    let bound = |i: u64| from.saturating_add_unsigned(i.saturating_mul(width)).min(to);
    (0..count).map(|i| bound(i)..bound(i.saturating_add(1))).collect()
}

/// Pays the online prizes of `date`'s tickets with serials in `serials` (one ledger batch), then
/// marks them paid.
async fn pay_online_slice(state: DrawsState, date: NaiveDate, serials: std::ops::Range<i64>) -> Result<(), AppError> {
    let limit = state.settings.powerball.prizes.retailer_limit_cents;
    let due = drawings::unpaid_online(&state.pool, date, limit, serials).await?;
    if due.is_empty() {
        return Ok(());
    }
    let prizes: Vec<NewTransfer> = due
        .iter()
        .map(|p| {
            NewTransfer::new(
                step_id(date, &format!("online-prize/{}", p.serial)),
                state.powerball_accounts.prizes,
                p.wallet,
                p.prize_cents,
                Purpose::of(Game::Powerball, Money::Prize).draw_date(date).serial(p.serial),
            )
        })
        .collect();
    state.ledger.batch(&prizes).await?;
    let paid: Vec<i64> = due.iter().map(|p| p.serial).collect();
    drawings::mark_prizes_paid(&state.pool, date, &paid, state.clock.now()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_slices_cover_every_serial_once() {
        for count in [1, 2, 3, 7, 201] {
            let slices = serial_slices(count);
            assert_eq!(slices.len() as u64, count);
            assert_eq!(slices.first().map(|s| s.start), Some(TicketSerial::BODIES.start));
            assert_eq!(slices.last().map(|s| s.end), Some(TicketSerial::BODIES.end));
            assert!(slices.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end), "{count}");
        }
    }
}
