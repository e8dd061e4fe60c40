//! Powerball prizes claimed (ADR 0008): a ticket's prizes in one certified drawing, paid once by
//! every game's payment saga ([`ledger_api::payout`]): at a retailer's terminal up to the
//! retailer limit (to its settlement account), or at the lottery office in any amount, with the
//! W-2G and withholding rules every game uses ([`domain::prizes`]) and, for the grand prize, the
//! winner's election: the cash share of the drawing's cash value (the rest of the annuity share
//! back to the house), or the annuity, whose first payment is paid now and the other 29 move to
//! the annuity account, each paid on its date by [`super::annuities`]. Online tickets' prizes up to the limit were paid to the wallet at
//! certification; larger ones are claimed at the office.
//!
//! A prize may be claimed until the claim period after its drawing ends
//! (`LOTTO_POWERBALL_CLAIM_DAYS`, 180 days, to the next business day: [`domain::prizes::ClaimPeriod`]);
//! then what is unclaimed expires to an account of its own, and a claim is `prize_expired`.

use chrono::{NaiveDate, SubsecRound};
use domain::powerball::grand_prize::{self, Election};
use domain::prizes::TaxAssessment;
use domain::serial::TicketSerial;
use ledger_api::payout::{self, Reservation};
use ledger_api::{AccountKind, Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use uuid::Uuid;

use crate::store::powerball::annuities;
use crate::store::powerball::claims::{self, Claim, OFFICE};
use crate::store::powerball::drawings;
use crate::store::powerball::settlement;
use crate::store::powerball::tickets::{self, Channel};
use crate::store::{ClaimState, PowerballDrawState};
use crate::{DRAWS_NAMESPACE, DrawsState};

/// Who pays a claim.
#[derive(Debug, Clone)]
pub enum Counter {
    /// A retailer's terminal: `retailer` pays, up to the retailer limit.
    Terminal { retailer: String, terminal: String },
    /// The lottery office: `operator` pays `claimant`, who elects how a grand prize is paid.
    Office { operator: String, claimant: Claimant, election: Option<Election> },
}

/// The office's record of who was paid.
#[derive(Debug, Clone)]
pub struct Claimant {
    pub name: String,
    pub tin_last4: Option<String>,
}

fn claim_id(serial: i64, date: NaiveDate) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball-claim/{serial}/{date}").as_bytes())
}

/// The last day a prize of drawing `date` may be claimed.
pub fn claim_deadline(state: &DrawsState, date: NaiveDate) -> NaiveDate {
    state.settings.powerball.claim.last_day(date)
}

/// The lottery's date now (its days are central time's).
fn lottery_today(state: &DrawsState) -> NaiveDate {
    state.clock.now().with_timezone(&domain::text::LOTTERY_ZONE).date_naive()
}

/// Claims ticket `serial`'s prizes in drawing `date` (or its earliest certified drawing with a
/// prize unpaid) at `counter`; returns the claim, paid, and whether it is a replay: the same
/// terminal (or operator) sending the same Idempotency-Key `key` again is answered the claim it
/// made, where any other claim of a paid ticket is `already_paid`.
pub async fn claim(
    state: &DrawsState,
    serial: &str,
    date: Option<NaiveDate>,
    counter: &Counter,
    key: Option<&str>,
) -> Result<(Claim, bool), AppError> {
    let sender = match counter {
        Counter::Terminal { terminal, .. } => terminal.as_str(),
        Counter::Office { operator, .. } => operator.as_str(),
    };
    let request_key = key.map(|key| format!("{sender}/{key}"));
    // A key this sender used before names its claim, whatever the ticket says now: the same
    // ticket is that claim's receipt (finished first if it is not), another is a conflict
    // (issue 47 §4: copies sent at once were answered `already_paid`).
    if let Some(request_key) = &request_key
        && let Some((id, made_serial, made_date)) = claims::by_request_key(&state.pool, request_key).await?
    {
        let same_ticket = TicketSerial::parse(serial).is_ok_and(|s| s.body() == made_serial)
            && date.is_none_or(|d| d == made_date);
        if !same_ticket {
            return Err(AppError::conflict(
                codes::IDEMPOTENCY_CONFLICT,
                "this Idempotency-Key was sent before with another ticket or drawing",
            ));
        }
        return replayed(state, id).await;
    }
    match first_claim(state, serial, date, counter, request_key.clone()).await {
        // A copy of this request sent at the same moment recorded or paid it first (whichever
        // step this one met it at): this one is answered its receipt.
        Err(e) if e.code() == codes::ALREADY_PAID.as_str() => match &request_key {
            Some(request_key) => match claims::by_request_key(&state.pool, request_key).await? {
                Some((id, _, _)) => replayed(state, id).await,
                None => Err(e),
            },
            None => Err(e),
        },
        answered => answered,
    }
}

/// [`claim`] for a request whose key (if any) names no claim yet.
async fn first_claim(
    state: &DrawsState,
    serial: &str,
    date: Option<NaiveDate>,
    counter: &Counter,
    request_key: Option<String>,
) -> Result<(Claim, bool), AppError> {
    let sender = match counter {
        Counter::Terminal { terminal, .. } => terminal.as_str(),
        Counter::Office { operator, .. } => operator.as_str(),
    };
    let (ticket, drawing) = certified_drawing(state, serial, date).await?;
    let (serial, date) = (ticket.serial.body(), drawing.date);
    let payee = match counter {
        Counter::Terminal { retailer, .. } => retailer.as_str(),
        Counter::Office { .. } => OFFICE,
    };
    let id = claim_id(serial, date);
    // A claim this payee began (and the ledger has not finished) is resumed as first recorded;
    // one this sender made under this key is answered again.
    if let Some(existing) = claims::get(&state.pool, id).await? {
        if request_key.is_some() && existing.request_key == request_key {
            return replayed(state, id).await;
        }
        if existing.payee == payee && existing.state != ClaimState::Confirmed {
            return Ok((pay(state, &existing, request_key.as_deref()).await?, false));
        }
        return Err(payout::already_paid());
    }
    let boards = payable_boards(state, serial, date).await?;
    let prize: i64 = boards.iter().map(|b| b.prize_cents).sum();
    let pending = Claim {
        id,
        serial,
        draw_date: date,
        payee: payee.to_owned(),
        prize_cents: prize,
        paid_cents: prize,
        withheld_cents: 0,
        net_cents: prize,
        w2g: false,
        election: None,
        released_cents: 0,
        claimant_name: None,
        tin_last4: None,
        paid_by: sender.to_owned(),
        request_key,
        state: ClaimState::Pending,
        // As the database keeps it, and the grand prize shares as a claim is read with them: a
        // claim this call reserves is answered as recorded (`reserve_and_pay`).
        created_at: state.clock.now().trunc_subsecs(6),
        grand_cents: boards
            .iter()
            .filter(|b| b.tier == "grand_prize")
            .map(|b| b.prize_cents)
            .reduce(i64::saturating_add),
    };
    let record = match counter {
        Counter::Terminal { .. } => at_a_terminal(state, &ticket, pending)?,
        Counter::Office { claimant, election, .. } => {
            at_the_office(state, &ticket, &drawing, &boards, (claimant, *election), pending).await?
        }
    };
    let annuity = annuity_schedule(state, &record, ticket.power_play);
    reserve_and_pay(state, &record, &annuity).await
}

/// The annuity a claim of the grand prize taken as an annuity records: its 30 payments due on
/// the claim's day and its anniversaries, each with its own withholding and W-2G (the first is
/// the one the claim pays, its fixed prizes beside it on the claim's own W-2G).
fn annuity_schedule(state: &DrawsState, claim: &Claim, power_play: bool) -> Vec<annuities::Payment> {
    let Some(total) = claim.grand_cents.filter(|_| claim.election == Some(Election::Annuity)) else {
        return Vec::new();
    };
    let claimed = claim.created_at.with_timezone(&domain::text::LOTTERY_ZONE).date_naive();
    let price = domain::powerball::slip_cents(1, power_play);
    let tax = &state.settings.powerball.prizes.tax;
    (1i16..)
        .zip(grand_prize::annuity_payments(total))
        .zip(grand_prize::annuity_due_dates(claimed))
        .map(|((number, amount), due_on)| {
            let assessed = tax.assess(amount, price);
            annuities::Payment {
                claim_id: claim.id,
                number,
                due_on,
                amount_cents: amount,
                withheld_cents: assessed.withheld_cents,
                net_cents: assessed.net_cents,
                w2g: assessed.w2g,
                paid_at: None,
            }
        })
        .collect()
}

/// What a claim of the grand prize as an annuity moves to the annuity account: every payment
/// after the first.
fn annuity_owed(claim: &Claim) -> i64 {
    match claim.grand_cents.filter(|_| claim.election == Some(Election::Annuity)) {
        Some(total) => grand_prize::annuity_payments(total).iter().skip(1).sum(),
        None => 0,
    }
}

/// The claim `id` as its request's copies are answered: finished first when the ledger has not
/// (moving its money again is a replay there), then read; a replay, unless this call is the
/// one that confirmed it (then it is the answer that says "paid", once).
async fn replayed(state: &DrawsState, id: Uuid) -> Result<(Claim, bool), AppError> {
    let read = || async { claims::get(&state.pool, id).await?.ok_or_else(|| AppError::internal("a claim vanished")) };
    let claim = read().await?;
    if claim.state == ClaimState::Confirmed {
        return Ok((claim, true));
    }
    move_claim_money(state, id).await?;
    let confirmed_here = claims::confirm(&state.pool, id, None).await?;
    Ok((read().await?, !confirmed_here))
}

/// Ticket `serial` and the drawing its claim is for: `date`, else the earliest certified one in
/// which it has a prize unpaid, else its first; refused unless that drawing is certified.
async fn certified_drawing(
    state: &DrawsState,
    serial: &str,
    date: Option<NaiveDate>,
) -> Result<(tickets::PowerballTicket, drawings::StoredDrawing), AppError> {
    let serial = TicketSerial::parse(serial)
        .map_err(|e| AppError::unprocessable(codes::INVALID_SERIAL, e.to_string()))?;
    let ticket = tickets::load_by_serial(&state.pool, serial)
        .await?
        .ok_or_else(|| AppError::not_found(codes::TICKET_NOT_FOUND, "no ticket has this serial"))?;
    let date = match date {
        Some(date) => date,
        None => match claims::earliest_unpaid(&state.pool, serial.body()).await? {
            Some(date) => date,
            None => ticket
                .first_draw
                .ok_or_else(|| AppError::unprocessable(codes::NOT_A_WINNER, "this ticket wins nothing"))?,
        },
    };
    let drawing = drawings::get(&state.pool, date).await?.ok_or_else(|| {
        AppError::not_found(codes::DRAWING_NOT_FOUND, format!("no Powerball drawing on {date} is on record"))
    })?;
    if drawing.state != PowerballDrawState::Certified {
        return Err(AppError::conflict(
            codes::DRAWING_NOT_CERTIFIED,
            format!(
                "the {date} drawing is {}: prizes are payable once it is certified",
                drawing.state.as_str()
            ),
        ));
    }
    Ok((ticket, drawing))
}

/// The ticket's winning boards in the drawing, if any is still payable: none paid nor expired,
/// and claimed within the claim period.
async fn payable_boards(
    state: &DrawsState,
    serial: i64,
    date: NaiveDate,
) -> Result<Vec<claims::WinningBoard>, AppError> {
    let boards = claims::winning_boards(&state.pool, serial, date).await?;
    if boards.is_empty() {
        return Err(AppError::unprocessable(
            codes::NOT_A_WINNER,
            format!("this ticket wins nothing in the {date} drawing"),
        ));
    }
    if boards.iter().all(|b| b.paid) {
        return Err(payout::already_paid());
    }
    if state.settings.powerball.claim.has_expired(date, lottery_today(state)) || boards.iter().any(|b| b.expired) {
        return Err(AppError::conflict(
            codes::PRIZE_EXPIRED,
            format!("prizes of the {date} drawing could be claimed until {}", claim_deadline(state, date)),
        ));
    }
    Ok(boards)
}

/// A claim at a retailer's terminal: a ticket sold at a terminal, up to the retailer limit, paid
/// whole.
fn at_a_terminal(
    state: &DrawsState,
    ticket: &tickets::PowerballTicket,
    pending: Claim,
) -> Result<Claim, AppError> {
    if ticket.channel == Channel::Online {
        return Err(AppError::conflict(
            codes::PAID_TO_WALLET,
            "an online ticket's prizes are paid to its wallet (from $600, at the lottery office)",
        ));
    }
    let limit = state.settings.powerball.prizes.retailer_limit_cents;
    if pending.prize_cents > limit {
        return Err(AppError::conflict(
            codes::CLAIM_AT_OFFICE,
            format!("a prize above ${} is claimed at the lottery office", limit / 100),
        ));
    }
    Ok(pending)
}

/// A claim at the lottery office: the grand prize's boards paid as the cash share or the
/// annuity's first payment (111-5-24(a); the default election when none is made, ADR 0008),
/// taxes withheld and a W-2G where the rules ask, the claimant named.
async fn at_the_office(
    state: &DrawsState,
    ticket: &tickets::PowerballTicket,
    drawing: &drawings::StoredDrawing,
    boards: &[claims::WinningBoard],
    (claimant, election): (&Claimant, Option<Election>),
    pending: Claim,
) -> Result<Claim, AppError> {
    let grand = boards.iter().any(|b| b.tier == "grand_prize");
    let election = grand.then(|| election.unwrap_or(grand_prize::DEFAULT_ELECTION));
    let (paid, released) = grand_payment(state, drawing, boards, election).await?;
    let price = domain::powerball::slip_cents(1, ticket.power_play);
    let tax: TaxAssessment = state.settings.powerball.prizes.tax.assess(paid, price);
    domain::prizes::check_claimant(&claimant.name, claimant.tin_last4.as_deref(), tax.w2g).map_err(|e| {
        let code = if e == domain::prizes::ClaimantError::TinRequired {
            codes::CLAIMANT_TIN_REQUIRED
        } else {
            codes::INVALID_CLAIMANT
        };
        AppError::unprocessable(code, e.to_string())
    })?;
    Ok(Claim {
        paid_cents: paid,
        withheld_cents: tax.withheld_cents,
        net_cents: tax.net_cents,
        w2g: tax.w2g,
        election,
        released_cents: released,
        claimant_name: Some(domain::text::trim(&claimant.name).to_owned()),
        tin_last4: claimant.tin_last4.clone(),
        ..pending
    })
}

/// Reserves the ticket's prizes for the claim's payee (or finds the payee's own unfinished
/// claim), moves the money once and confirms it; answers the claim as paid. A claim this call
/// reserved is moved and answered as it recorded it (confirmed), without reading it again; a
/// resumed one as stored.
async fn reserve_and_pay(
    state: &DrawsState,
    record: &Claim,
    annuity: &[annuities::Payment],
) -> Result<(Claim, bool), AppError> {
    let (id, payee) = (record.id, record.payee.as_str());
    let reserve = async {
        let mut tx = state.pool.begin().await?;
        if claims::reserve(&mut tx, record).await? {
            annuities::record(&mut tx, annuity).await?;
            tx.commit().await?;
            return Ok(Reservation::Reserved);
        }
        let pending = claims::unconfirmed_payee(&mut tx, record.serial, record.draw_date).await?;
        tx.rollback().await?;
        Ok(if pending.as_deref() == Some(payee) { Reservation::Resumed } else { Reservation::Taken })
    };
    let move_money = |reservation| async move {
        match reservation {
            Reservation::Reserved => move_money_of(state, record).await,
            _ => move_claim_money(state, id).await,
        }
    };
    let confirm = claims::confirm(&state.pool, id, record.request_key.as_deref());
    if payout::pay_once(reserve, move_money, confirm).await? == Reservation::Reserved {
        return Ok((Claim { state: ClaimState::Confirmed, ..record.clone() }, false));
    }
    let paid = claims::get(&state.pool, id).await?.ok_or_else(|| AppError::internal("a claim vanished"))?;
    Ok((paid, false))
}

/// Finishes a claim this payee began.
async fn pay(state: &DrawsState, claim: &Claim, request_key: Option<&str>) -> Result<Claim, AppError> {
    move_claim_money(state, claim.id).await?;
    if !claims::confirm(&state.pool, claim.id, request_key).await? {
        return Err(payout::already_paid());
    }
    claims::get(&state.pool, claim.id).await?.ok_or_else(|| AppError::internal("a claim vanished"))
}

/// What the office pays now for `boards` (the fixed prizes, and the grand prize by `election`)
/// and what a cash election releases to the house.
async fn grand_payment(
    state: &DrawsState,
    drawing: &drawings::StoredDrawing,
    boards: &[claims::WinningBoard],
    election: Option<Election>,
) -> Result<(i64, i64), AppError> {
    let fixed: i64 = boards.iter().filter(|b| b.tier != "grand_prize").map(|b| b.prize_cents).sum();
    let shares: Vec<i64> = boards.iter().filter(|b| b.tier == "grand_prize").map(|b| b.prize_cents).collect();
    let Some(election) = election else { return Ok((fixed, 0)) };
    let table = settlement::prize_table(&state.pool, drawing.date).await?;
    let winners: u64 =
        table.iter().filter(|l| l.tier == domain::powerball::Tier::GrandPrize).map(|l| l.winners).sum();
    let cash_share = grand_prize::share_cents(
        drawing.cash_value_cents.unwrap_or(0),
        u32::try_from(winners).unwrap_or(u32::MAX),
    );
    let (mut paid, mut released, mut annuity) = (fixed, 0i64, 0i64);
    for share in shares {
        match election {
            Election::Cash => {
                let cash = cash_share.min(share);
                paid = paid.saturating_add(cash);
                released = released.saturating_add(share.saturating_sub(cash));
            }
            Election::Annuity => annuity = annuity.saturating_add(share),
        }
    }
    // One annuity of all the ticket's shares (the schedule the claim records).
    if annuity > 0 {
        paid = paid.saturating_add(grand_prize::annuity_payments(annuity)[0]);
    }
    Ok((paid, released))
}

/// Moves pending claim `id`'s money (see `ledger_api::payout::move_pending`).
pub async fn move_claim_money(state: &DrawsState, id: Uuid) -> Result<(), AppError> {
    match claims::pending(&state.pool, id).await? {
        Some(claim) => move_money_of(state, &claim).await,
        None => Ok(()),
    }
}

/// Moves the money of `claim`, pending as recorded.
async fn move_money_of(state: &DrawsState, claim: &Claim) -> Result<(), AppError> {
    let id = claim.id;
    let accounts = state.powerball_accounts;
    let key = |what: &str| Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball-claim/{id}/{what}").as_bytes());
    let purpose =
        Purpose::of(Game::Powerball, Money::Prize).serial(claim.serial).draw_date(claim.draw_date).claim(id);
    let mut transfers = Vec::new();
    if claim.payee == OFFICE {
        transfers.push(NewTransfer::new(
            key("net"),
            accounts.prizes,
            accounts.office_payouts,
            claim.net_cents,
            purpose.clone(),
        ));
        transfers.push(NewTransfer::new(
            key("withheld"),
            accounts.prizes,
            accounts.withholding,
            claim.withheld_cents,
            purpose.clone(),
        ));
        transfers.push(NewTransfer::new(
            key("released"),
            accounts.prizes,
            accounts.house,
            claim.released_cents,
            purpose.clone(),
        ));
        // The annuity's later payments, owed from its own account until each is paid.
        transfers.push(NewTransfer::new(
            key("annuity"),
            accounts.prizes,
            accounts.annuities,
            annuity_owed(claim),
            purpose,
        ));
    } else {
        let account = ledger_api::retailer_account(&claim.payee);
        state
            .ledger
            .open_accounts(&claim.payee, &[(account, AccountKind::RetailerSettlement)])
            .await
            .map_err(|e| payout::waits_for_ledger(&e))?;
        transfers.push(NewTransfer::new(key("paid"), accounts.prizes, account, claim.paid_cents, purpose));
    }
    // A transfer of nothing (no tax withheld, nothing released) is left out.
    transfers.retain(|t| t.amount > 0);
    payout::move_pending(
        &state.ledger,
        &transfers,
        claims::mark_done(&state.pool, id),
        claims::release(&state.pool, id),
    )
    .await
}

/// Finishes claims left pending for longer than `older_than`; returns how many.
pub async fn finish_pending_claims(
    state: &DrawsState,
    older_than: std::time::Duration,
) -> Result<usize, AppError> {
    let before = state.clock.now() - chrono::Duration::from_std(older_than).unwrap_or(chrono::Duration::zero());
    let stuck = claims::stuck(&state.pool, before).await?;
    Ok(platform::recovery::finish_each(stuck, "powerball claims", |id| move_claim_money(state, id)).await)
}

/// Expires the unclaimed prizes of every certified drawing whose claim period has ended: their
/// total from the prizes account to the unclaimed account, once per drawing. Returns how many
/// drawings it expired.
pub async fn expire_unclaimed(state: &DrawsState) -> Result<usize, AppError> {
    let claim = &state.settings.powerball.claim;
    // Every drawing whose last claim day is before today: those at least the period's days
    // old, less those whose last day moved past a weekend or a holiday still to come.
    let before = state.clock.now() - chrono::Duration::days(i64::from(claim.days));
    let today = lottery_today(state);
    let due: Vec<NaiveDate> = claims::expirable(&state.pool, before)
        .await?
        .into_iter()
        .filter(|&date| claim.has_expired(date, today))
        .collect();
    for &date in &due {
        let cents = claims::expire(&state.pool, date).await?;
        if cents > 0 {
            let accounts = state.powerball_accounts;
            let transfer = NewTransfer::new(
                Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball-draw/{date}/expired").as_bytes()),
                accounts.prizes,
                accounts.unclaimed,
                cents,
                Purpose::of(Game::Powerball, Money::Prize).draw_date(date).expired(),
            );
            state.ledger.transfer(&transfer).await?;
        }
        claims::mark_expired(&state.pool, date, state.clock.now()).await?;
    }
    Ok(due.len())
}
