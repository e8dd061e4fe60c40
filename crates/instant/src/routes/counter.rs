//! The retailer's side of the counter: a claim paid with its receipt (retried with the same
//! Idempotency-Key, the same receipt), receipts read again and listed, and a retailer's statement
//! for a period (its own for its terminals, any for staff).

use axum::extract::State;
use axum::response::Response;
use chrono::Duration;
use domain::instant::print_run::barcode;
use domain::money::dollars;
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, PageParams, Path, Query};
use uuid::Uuid;

use super::packs::readable_retailer;
use platform::page::window;
use crate::InstantState;
use crate::saga::counter::claim_at_counter;
use crate::store::receipts::{self, CounterClaim, Receipt};
use crate::store::{PaymentState, packs};
use crate::views::{
    PeriodQuery, ReceiptView, ReceiptsQuery, StatementSettlement, StatementView, ValidationRequest,
};

fn receipt_view(state: &InstantState, receipt: Receipt) -> ReceiptView {
    let game_name = u32::try_from(receipt.game)
        .ok()
        .and_then(|g| state.game(g).ok())
        .map_or_else(String::new, |g| g.name.clone());
    let printed = barcode(
        u32::try_from(receipt.game).unwrap_or_default(),
        u32::try_from(receipt.book).unwrap_or_default(),
        u32::try_from(receipt.ticket).unwrap_or_default(),
    );
    let payment = if receipt.payment == Some(PaymentState::Pending) { "pending" } else { "paid" };
    let paid_line = if receipt.free_ticket {
        format!("Free ticket: hand over one {} ticket of this game", dollars(receipt.paid_cents))
    } else {
        format!("Paid      {}", dollars(receipt.paid_cents))
    };
    let mut lines = vec![
        "INSTANT PRIZE PAID".to_owned(),
        format!("Receipt   {}", receipt.id),
        format!("Ticket    {printed}"),
        format!("Game      {} {game_name}", receipt.game),
        format!("Prize     {}", dollars(receipt.prize_cents)),
        paid_line,
        format!("Retailer  {}", receipt.shop.as_deref().unwrap_or(&receipt.retailer_id)),
    ];
    lines.extend(receipt.shop_address.iter().map(|address| format!("          {address}")));
    lines.extend([
        format!("Terminal  {}", receipt.terminal_label.as_deref().unwrap_or(&receipt.terminal_id)),
        format!("Time      {}", domain::text::lottery_time(receipt.created_at)),
        format!("Status    {}", payment.to_uppercase()),
    ]);
    ReceiptView {
        receipt_id: receipt.id,
        barcode: printed,
        game: receipt.game,
        game_name,
        prize_cents: receipt.prize_cents,
        paid_cents: receipt.paid_cents,
        free_ticket: receipt.free_ticket,
        retailer_id: receipt.retailer_id,
        shop: receipt.shop,
        shop_address: receipt.shop_address,
        terminal_id: receipt.terminal_id,
        terminal_label: receipt.terminal_label,
        paid_at: receipt.created_at,
        payment: payment.to_owned(),
        lines,
    }
}

#[utoipa::path(
    post, path = "/v1/instant/claims", tag = "instant", request_body = ValidationRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a claim retried with the same key is paid once and answers the same receipt")),
    responses((status = 201, description = "paid at the counter, once: the receipt to print, at its `Location`", body = ReceiptView,
               headers(("Location" = String, description = "the receipt"), ("Idempotent-Replayed" = String, description = "`false`"))),
              (status = 200, description = "a replay: the receipt of the key's earlier claim", body = ReceiptView,
               headers(("Idempotent-Replayed" = String, description = "`true`"))),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/claims`: a retailer's terminal pays a prize up to the retailer limit; the
/// prize moves from the game's prize liability to the retailer's settlement account, exactly
/// once however many terminals claim the ticket at the same moment, and a receipt is kept.
pub async fn claim(
    State(state): State<InstantState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<ValidationRequest>,
) -> Result<Response, AppError> {
    caller.require(&[Role::Retailer])?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?.to_owned();
    let claim = CounterClaim {
        retailer_id: retailer,
        terminal_id: caller.subject().to_owned(),
        idempotency_key: key.required()?.to_owned(),
        place: caller.place().cloned(),
    };
    let claimed = claim_at_counter(&state, &caller, claim, &request).await?;
    Ok(answer(&state, claimed.receipt, claimed.replayed))
}

fn answer(state: &InstantState, receipt: Receipt, replayed: bool) -> Response {
    let location = format!("/v1/instant/receipts/{}", receipt.id);
    platform::http::created_or_replayed(receipt_view(state, receipt), !replayed, Some(&location))
}

fn receipt_not_found(id: Uuid) -> AppError {
    AppError::not_found(codes::RECEIPT_NOT_FOUND, format!("no receipt {id}"))
}

#[utoipa::path(
    get, path = "/v1/instant/receipts/{id}", tag = "instant",
    params(("id" = Uuid, Path, description = "the receipt")),
    responses((status = 200, description = "the receipt, to print again", body = ReceiptView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/receipts/{id}`: the terminals of the retailer that paid it; operators,
/// auditors and services.
pub async fn get_receipt(
    State(state): State<InstantState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<ReceiptView>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    let receipt = receipts::get(&state.pool, id).await?.ok_or_else(|| receipt_not_found(id))?;
    if caller.role() == Role::Retailer && caller.organization() != Some(receipt.retailer_id.as_str()) {
        return Err(receipt_not_found(id));
    }
    Ok(Json(receipt_view(&state, receipt)))
}

#[utoipa::path(
    get, path = "/v1/instant/claims", tag = "instant", params(ReceiptsQuery),
    responses((status = 200, description = "prizes paid at counters in the window, oldest first", body = ledger_api::wire::Page<ReceiptView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/claims`: a retailer's terminal its own retailer's receipts; operators,
/// auditors and services any retailer's.
pub async fn list_claims(
    State(state): State<InstantState>,
    caller: Caller,
    Query(query): Query<ReceiptsQuery>,
) -> Result<Json<ledger_api::wire::Page<ReceiptView>>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    let retailer = readable_retailer(&caller, query.retailer_id.as_deref())?;
    let window = window(query.since, query.until, Duration::days(1))?;
    let page = PageParams::<platform::TimeIdCursor>::new(query.after, query.limit);
    let limit = page.limit()?;
    // The one (time, id) cursor every such list uses.
    let after = page.after()?.map(|c| (c.at, c.id));
    let rows = receipts::list(&state.pool, retailer.as_deref(), window, after, limit).await?;
    let next = page
        .next_cursor(rows.len(), rows.last().map(|r| platform::TimeIdCursor { at: r.created_at, id: r.id }));
    let items = rows.into_iter().map(|r| receipt_view(&state, r)).collect();
    Ok(Json(ledger_api::wire::Page { items, next }))
}

#[utoipa::path(
    get, path = "/v1/instant/retailers/{id}/statement", tag = "instant", params(("id" = String, Path, description = "the retailer"), PeriodQuery),
    responses((status = 200, description = "the retailer's instant account for the period: packs settled, prizes paid, what it owes", body = StatementView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/retailers/{id}/statement`: the retailer's own terminals; operators, auditors
/// and services.
pub async fn statement(
    State(state): State<InstantState>,
    caller: Caller,
    Path(retailer): Path<String>,
    Query(query): Query<PeriodQuery>,
) -> Result<Json<StatementView>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    readable_retailer(&caller, Some(&retailer))?;
    let (since, until) = window(query.since, query.until, Duration::days(30))?;
    let settled = packs::settled_for(&state.pool, &retailer, since, until).await?;
    let (prizes_paid, prizes_paid_cents) = receipts::paid_in(&state.pool, &retailer, since, until).await?;
    let settlements: Vec<StatementSettlement> = settled
        .into_iter()
        .map(|(game, book, sales_cents, commission_cents, owed_cents, settled_at)| StatementSettlement {
            game,
            book,
            sales_cents,
            commission_cents,
            owed_cents,
            settled_at,
        })
        .collect();
    let sum = |f: fn(&StatementSettlement) -> i64| settlements.iter().map(f).fold(0i64, i64::saturating_add);
    let (sales_cents, commission_cents, owed_cents) =
        (sum(|s| s.sales_cents), sum(|s| s.commission_cents), sum(|s| s.owed_cents));
    // The settlement account is debited by what the retailer owes and credited with what it paid
    // out, so what it owes is minus its balance; an account never opened owes nothing.
    let balance = match state.ledger.balance(ledger_api::retailer_account(&retailer)).await {
        Ok(balance) => balance,
        Err(e) if e.code() == "account_not_found" => 0,
        Err(e) => return Err(e),
    };
    Ok(Json(StatementView {
        retailer_id: retailer.clone(),
        since,
        until,
        settlements,
        sales_cents,
        commission_cents,
        owed_cents,
        prizes_paid,
        prizes_paid_cents,
        net_owed_cents: owed_cents.saturating_sub(prizes_paid_cents),
        balance_owed_cents: balance.saturating_neg(),
        packs: packs::count_by_state(&state.pool, &retailer)
            .await?
            .into_iter()
            .map(|(s, n)| (s.as_str().to_owned(), n))
            .collect(),
    }))
}
