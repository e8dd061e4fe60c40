//! The instant service's handlers: each authorises its caller, extracts the request, makes one
//! call into [`crate::saga`] or [`crate::store`], and answers a view.
//!
//! - here: games, print runs and their jobs (generated or a vendor's), the printer's file,
//!   validation, the office;
//! - [`packs`]: a pack's life (shipped, received, activated, settled, returned, stolen) and the
//!   packs listed;
//! - [`counter`]: the retailer's side of the counter: claims and their receipts, its statement;
//! - [`reports`]: the operators' reports: liability, validations by retailer, unusual patterns.

pub mod counter;
pub mod packs;
pub mod reports;


use axum::extract::State;
use axum::http::StatusCode;
use domain::prizes::TaxAssessment;
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, Json, Path, Query};

use crate::InstantState;
use crate::saga::payment::{OFFICE, Payee, pay_ticket};
use crate::saga::scan::check_ticket;
use crate::store::office_claims::{self, OfficeClaimRecord};
use crate::views::*;

#[utoipa::path(
    get, path = "/v1/instant/games", tag = "instant",
    responses((status = 200, description = "every game, its prize structure and the prizes remaining (public)", body = Vec<GameView>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/instant/games`: public.
pub async fn list_games(State(state): State<InstantState>) -> Result<Json<Vec<GameView>>, AppError> {
    let counts = crate::store::reports::prize_counts(&state.pool).await?;
    let remaining = |game: u32, row: usize| {
        counts
            .iter()
            .find(|c| i64::from(c.game) == i64::from(game) && usize::try_from(c.prize_row).ok() == Some(row))
            .map_or(0, |c| c.printed.saturating_sub(c.paid))
    };
    let views = state
        .games
        .iter()
        .map(|(game, report)| GameView {
            number: game.number,
            name: game.name.clone(),
            rule: game.rule.clone(),
            price_cents: game.price_cents,
            tickets_per_book: game.ticket_numbers.tickets_per_book(),
            tickets_ordered: game.tickets_ordered,
            odds_one_in: report.odds_one_in,
            payout_percent: report.payout_percent,
            demonstration_scale: game.demonstration_scale,
            prizes: game
                .prizes
                .iter()
                .enumerate()
                .map(|(i, row)| PrizeView {
                    composition_cents: row.composition.clone(),
                    value_cents: row.value_cents,
                    count: row.count,
                    remaining: remaining(game.number, i),
                })
                .collect(),
            mismatches: report.mismatches.clone(),
            source_notes: report.source_notes.clone(),
        })
        .collect();
    Ok(Json(views))
}

#[utoipa::path(
    put, path = "/v1/instant/games/{number}/sales-end", tag = "instant",
    params(("number" = u32, Path, description = "game number")),
    request_body = SalesEndRequest,
    responses((status = 200, description = "the game's end of sales, and the last day its prizes may be claimed", body = SalesEndView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PUT /v1/instant/games/{number}/sales-end`: operators record a game's announced end of sales
/// (past or to come; moved until its prizes begin to expire). Its prizes may be claimed until
/// the claim period after it ends; then they expire (issue 50).
pub async fn end_sales(
    State(state): State<InstantState>,
    caller: Caller,
    Path(number): Path<u32>,
    Json(request): Json<SalesEndRequest>,
) -> Result<Json<SalesEndView>, AppError> {
    caller.require(&[Role::Operator])?;
    Ok(Json(crate::saga::sales::end_sales(&state, number, request.ends_on, caller.subject()).await?))
}

#[utoipa::path(
    get, path = "/v1/instant/sales-ends", tag = "instant",
    responses((status = 200, description = "every game whose end of sales is announced", body = Vec<SalesEndView>),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/sales-ends`: operators, auditors and services.
pub async fn list_sales_ends(State(state): State<InstantState>, caller: Caller) -> Result<Json<Vec<SalesEndView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    Ok(Json(crate::saga::sales::sales_ends(&state).await?))
}

#[utoipa::path(
    post, path = "/v1/instant/games/{number}/print-runs", tag = "instant",
    params(("number" = u32, Path, description = "game number")),
    responses((status = 202, description = "a print job, started: follow it at its Location until it has succeeded", body = PrintJobView,
               headers(("Location" = String, description = "the job"))),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/games/{number}/print-runs`: operators. The game's whole order is printed in
/// the background (a full run takes longer than a request may); the answer is its job.
pub async fn create_print_run(
    State(state): State<InstantState>,
    caller: Caller,
    Path(number): Path<u32>,
) -> Result<(StatusCode, [(axum::http::HeaderName, String); 1], Json<PrintJobView>), AppError> {
    caller.require(&[Role::Operator])?;
    let game = state.game(number)?.clone();
    let job =
        PrintJobView::try_from(crate::saga::jobs::start_print_job(&state, &game, caller.subject()).await?)?;
    let location = format!("/v1/instant/print-jobs/{}", job.id);
    Ok((StatusCode::ACCEPTED, [(axum::http::header::LOCATION, location)], Json(job)))
}

#[utoipa::path(
    post, path = "/v1/instant/games/{number}/vendor-runs", tag = "instant", request_body = VendorRunRequest,
    params(("number" = u32, Path, description = "game number")),
    responses((status = 202, description = "an import job, started: the vendor's file is checked line by line and its run stored whole, or refused whole with every reason (the job's `error`)", body = PrintJobView,
               headers(("Location" = String, description = "the job"))),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/games/{number}/vendor-runs`: operators. A run the printing vendor generated
/// is imported from its validation file, delivered to the vendor inbox encrypted to the
/// lottery's key; the answer is its job.
pub async fn import_vendor_run(
    State(state): State<InstantState>,
    caller: Caller,
    Path(number): Path<u32>,
    Json(request): Json<VendorRunRequest>,
) -> Result<(StatusCode, [(axum::http::HeaderName, String); 1], Json<PrintJobView>), AppError> {
    caller.require(&[Role::Operator])?;
    let game = state.game(number)?.clone();
    let job = crate::saga::jobs::start_vendor_import(&state, &game, &request.file, caller.subject()).await?;
    let job = PrintJobView::try_from(job)?;
    let location = format!("/v1/instant/print-jobs/{}", job.id);
    Ok((StatusCode::ACCEPTED, [(axum::http::header::LOCATION, location)], Json(job)))
}

#[utoipa::path(
    get, path = "/v1/instant/print-runs/{id}/printer-file", tag = "instant",
    params(("id" = uuid::Uuid, Path, description = "the print run")),
    responses((status = 200, description = "the run's printer's file, encrypted to the printer's key (an age file), exactly once; `X-Lotto-Sha256` is its hash and `X-Lotto-Signature` the lottery's Ed25519 signature of that hash (hex)", content_type = "application/octet-stream", body = Vec<u8>),
              (status = 410, description = "downloaded before: the file is gone (the refusal is logged in the audit chain)", body = platform::Problem, content_type = "application/problem+json"),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/print-runs/{id}/printer-file`: operators, exactly once per run.
pub async fn download_printer_file(
    State(state): State<InstantState>,
    caller: Caller,
    Path(id): Path<uuid::Uuid>,
) -> Result<axum::response::Response, AppError> {
    use crate::store::print_runs::{PrinterFileTaken, take_printer_file};
    caller.require(&[Role::Operator])?;
    let (path, sha256, signature) = match take_printer_file(&state.pool, id, caller.subject()).await? {
        PrinterFileTaken::Now { path, sha256, signature } => (path, sha256, signature),
        PrinterFileTaken::Gone { at, by } => {
            return Err(AppError::new(
                StatusCode::GONE,
                codes::PRINTER_FILE_GONE,
                format!(
                    "this run's printer's file was downloaded by {by} at {}; it is not kept",
                    domain::text::lottery_time(at)
                ),
            ));
        }
        PrinterFileTaken::NoRun => {
            return Err(AppError::not_found(
                codes::PRINT_RUN_NOT_FOUND,
                format!("no print run {id} with a printer's file"),
            ));
        }
    };
    let file = tokio::fs::File::open(&path).await.map_err(AppError::internal)?;
    // Open, it is read to the end; gone from the directory, no second copy remains.
    tokio::fs::remove_file(&path).await.map_err(AppError::internal)?;
    let body = axum::body::Body::from_stream(tokio_util::io::ReaderStream::with_capacity(file, 1 << 16));
    let name =
        std::path::Path::new(&path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    axum::response::Response::builder()
        .status(StatusCode::OK)
        .header(axum::http::header::CONTENT_TYPE, "application/octet-stream")
        .header(axum::http::header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\""))
        // The one copy of a run's tickets: no cache on the way may keep another.
        .header(axum::http::header::CACHE_CONTROL, "no-store")
        .header("x-lotto-sha256", hex::encode(sha256))
        .header("x-lotto-signature", hex::encode(signature))
        .body(body)
        .map_err(AppError::internal)
}

#[utoipa::path(
    get, path = "/v1/instant/keys", tag = "instant",
    responses((status = 200, description = "the lottery's Ed25519 key that signs printer's files, and the printer's key they are encrypted to (public)", body = KeysView),
              (status = "4XX", response = Refused)),
)]
/// `GET /v1/instant/keys`: public.
pub async fn keys(State(state): State<InstantState>) -> Json<KeysView> {
    Json(KeysView {
        signing_key: state.settings.printer.verifying_key_hex(),
        printer_recipient: state.settings.printer.recipient.to_string(),
        lottery_recipient: state.settings.lottery_identity.0.to_public().to_string(),
    })
}

#[utoipa::path(
    get, path = "/v1/instant/print-jobs", tag = "instant", params(platform::PageParams<platform::TimeIdCursor>),
    responses((status = 200, description = "a page of print jobs, newest first", body = ledger_api::wire::Page<PrintJobView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/print-jobs`: operators, auditors and services.
pub async fn list_print_jobs(
    State(state): State<InstantState>,
    caller: Caller,
    Query(page): Query<platform::PageParams<platform::TimeIdCursor>>,
) -> Result<Json<ledger_api::wire::Page<PrintJobView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    let items = crate::store::print_jobs::list(&state.pool, page.after()?, page.limit()?)
        .await?
        .into_iter()
        .map(PrintJobView::try_from)
        .collect::<Result<Vec<_>, _>>()?;
    let next = page.next_cursor(
        items.len(),
        items.last().map(|j| platform::TimeIdCursor { at: j.created_at, id: j.id }),
    );
    Ok(Json(ledger_api::wire::Page { items, next }))
}

fn job_not_found(id: uuid::Uuid) -> AppError {
    AppError::not_found(codes::PRINT_JOB_NOT_FOUND, format!("no print job {id}"))
}

#[utoipa::path(
    get, path = "/v1/instant/print-jobs/{id}", tag = "instant",
    params(("id" = uuid::Uuid, Path, description = "the job")),
    responses((status = 200, description = "the job: state and progress", body = PrintJobView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/print-jobs/{id}`: operators, auditors and services.
pub async fn get_print_job(
    State(state): State<InstantState>,
    caller: Caller,
    Path(id): Path<uuid::Uuid>,
) -> Result<Json<PrintJobView>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    let job = crate::store::print_jobs::get(&state.pool, id).await?.ok_or_else(|| job_not_found(id))?;
    Ok(Json(PrintJobView::try_from(job)?))
}

#[utoipa::path(
    post, path = "/v1/instant/print-jobs/{id}/cancel", tag = "instant",
    params(("id" = uuid::Uuid, Path, description = "the job")),
    responses((status = 202, description = "asked to stop: a queued job is cancelled at once, a running one after its current pool, leaving no partial run", body = PrintJobView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/print-jobs/{id}/cancel`: operators.
pub async fn cancel_print_job(
    State(state): State<InstantState>,
    caller: Caller,
    Path(id): Path<uuid::Uuid>,
) -> Result<(StatusCode, Json<PrintJobView>), AppError> {
    caller.require(&[Role::Operator])?;
    let job =
        crate::store::print_jobs::request_cancel(&state.pool, id).await?.ok_or_else(|| job_not_found(id))?;
    if matches!(job.state, crate::store::JobState::Succeeded | crate::store::JobState::Failed) {
        return Err(AppError::conflict(
            codes::PRINT_JOB_FINISHED,
            format!("the job has {}: nothing to cancel", job.state.as_str()),
        ));
    }
    Ok((StatusCode::ACCEPTED, Json(PrintJobView::try_from(job)?)))
}

#[utoipa::path(
    post, path = "/v1/instant/validations", tag = "instant", request_body = ValidationRequest,
    responses((status = 200, description = "a winner or not, and where it is paid", body = ValidationView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/validations`: retailers' terminals.
pub async fn validate(
    State(state): State<InstantState>,
    caller: Caller,
    Json(request): Json<ValidationRequest>,
) -> Result<Json<ValidationView>, AppError> {
    caller.require(&[Role::Retailer])?;
    let checked = check_ticket(&state, &caller, &request, None).await?;
    let winner = checked.prize_row.is_some();
    let paid_at = winner.then(|| {
        if checked.prize_cents <= state.settings.prizes.retailer_limit_cents {
            "retailer"
        } else {
            "lottery_office"
        }
        .to_owned()
    });
    Ok(Json(ValidationView {
        winner,
        prize_cents: checked.prize_cents,
        free_ticket: checked.free_ticket,
        paid_at,
    }))
}

fn check_claimant(claimant: &Claimant, w2g: bool) -> Result<(), AppError> {
    domain::prizes::check_claimant(&claimant.name, claimant.tin_last4.as_deref(), w2g).map_err(|e| {
        let code = if e == domain::prizes::ClaimantError::TinRequired {
            codes::CLAIMANT_TIN_REQUIRED
        } else {
            codes::INVALID_CLAIMANT
        };
        AppError::unprocessable(code, e.to_string())
    })
}

#[utoipa::path(
    post, path = "/v1/instant/office-claims", tag = "instant", request_body = OfficeClaimRequest,
    responses((status = 201, description = "paid at the office, once, after tax", body = OfficeClaimView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
// Any winning ticket, with the tax rules a lottery applies (`domain::prizes::TaxRules`):
// a W-2G record for a prize of $600 or more that is at least 300 times the price, and 24%
// withheld from a prize over $5,000. The prize leaves the game's prize liability in one ledger
// batch: the net to the office's payout account (paid out by check) and what is withheld to the
// tax account.
/// `POST /v1/instant/office-claims`: operators at the lottery office.
pub async fn create_office_claim(
    State(state): State<InstantState>,
    caller: Caller,
    Json(request): Json<OfficeClaimRequest>,
) -> Result<(StatusCode, Json<OfficeClaimView>), AppError> {
    caller.require(&[Role::Operator])?;
    let scan = ValidationRequest { barcode: request.barcode.clone(), virn: request.virn.clone() };
    let checked = check_ticket(&state, &caller, &scan, Some(OFFICE)).await?;
    if checked.prize_row.is_none() {
        return Err(AppError::unprocessable(codes::NOT_A_WINNER, "this ticket wins nothing"));
    }
    let amount = checked.amount_cents();
    // A free ticket is a ticket, not winnings: nothing to report or withhold.
    let tax = if checked.free_ticket {
        TaxAssessment { w2g: false, withheld_cents: 0, net_cents: amount }
    } else {
        state.settings.prizes.tax.assess(amount, checked.price_cents)
    };
    check_claimant(&request.claimant, tax.w2g)?;
    let record = OfficeClaimRecord {
        prize_cents: amount,
        tax,
        claimant_name: domain::text::trim(&request.claimant.name).to_owned(),
        claimant_address: request.claimant.address.clone(),
        tin_last4: request.claimant.tin_last4.clone(),
        paid_by: caller.subject().to_owned(),
    };
    // Claiming a ticket whose office payment is pending finishes it, as first recorded.
    let id = pay_ticket(&state, &checked, &Payee::Office(record), amount).await?;
    Ok((StatusCode::CREATED, Json(office_claims::get(&state.pool, id).await?)))
}

#[utoipa::path(
    get, path = "/v1/instant/office-claims", tag = "instant", params(OfficeClaimsQuery),
    responses((status = 200, description = "prizes paid at the office, newest first", body = Vec<OfficeClaimView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/office-claims`: operators, auditors and services.
pub async fn list_office_claims(
    State(state): State<InstantState>,
    caller: Caller,
    Query(query): Query<OfficeClaimsQuery>,
) -> Result<Json<Vec<OfficeClaimView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    // The platform's page size rule, as every list has.
    let limit = platform::PageParams::<i64>::new(None, query.limit).limit()?;
    office_claims::list(&state.pool, query.w2g, limit).await.map(Json)
}
