//! Deposits, withdrawals and the provider's webhook ([`crate::saga::payments`]).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use ledger_api::wire::Page;
use platform::openapi::Refused;
use platform::page::{PageParams, TimeIdCursor};
use platform::{AppError, IdempotencyKey, Json, Path, Query};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, PlayerSession};
use crate::saga::payments as saga;
use crate::store::payments::PaymentKind;
use crate::views::payments::{PaymentEvent, PaymentRequest, PaymentView, WebhookReceipt};

/// 202 with the payment's `Location` when taken in now, 200 when the key took it before.
fn answer((created, view): (bool, PaymentView)) -> Response {
    let location = format!("/v1/me/payments/{}", view.id);
    platform::http::accepted_or_replayed(view, created, Some(&location))
}

/// `POST /v1/me/deposits` (Idempotency-Key required): a deposit intent, within the player's limits.
#[utoipa::path(
    post, path = "/v1/me/deposits", tag = "players", operation_id = "deposit_to_wallet", request_body = PaymentRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key is the same deposit")),
    responses((status = 202, description = "recorded and sent to the payment provider; the wallet is credited when the provider confirms it", body = PaymentView),
              (status = 200, description = "a replay: the deposit as it stands", body = PaymentView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn deposit(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    key: IdempotencyKey,
    Json(request): Json<PaymentRequest>,
) -> Result<Response, AppError> {
    Ok(answer(saga::make_intent(&state, &caller, key, &request, PaymentKind::Deposit).await?))
}

/// `POST /v1/me/withdrawals` (Idempotency-Key required): cash out, held until the provider pays.
#[utoipa::path(
    post, path = "/v1/me/withdrawals", tag = "players", operation_id = "withdraw_from_wallet", request_body = PaymentRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key is the same withdrawal")),
    responses((status = 202, description = "held in the wallet and sent to the payment provider", body = PaymentView),
              (status = 200, description = "a replay: the withdrawal as it stands", body = PaymentView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn withdraw(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    key: IdempotencyKey,
    Json(request): Json<PaymentRequest>,
) -> Result<Response, AppError> {
    Ok(answer(saga::make_intent(&state, &caller, key, &request, PaymentKind::Withdrawal).await?))
}

/// `GET /v1/me/payments?after=&limit=`: the player's deposits and withdrawals, newest first,
/// each with its state: a declined deposit stays here with the provider's reason.
#[utoipa::path(
    get, path = "/v1/me/payments", tag = "players", params(PageParams<TimeIdCursor>),
    responses((status = 200, description = "a page of the player's payments, newest first", body = Page<PaymentView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn list_payments(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(page): Query<PageParams<TimeIdCursor>>,
) -> Result<Json<Page<PaymentView>>, AppError> {
    Ok(Json(saga::payments_of(&state, &caller, &page).await?))
}

/// `GET /v1/me/payments/{id}`: one of the player's deposits or withdrawals.
#[utoipa::path(
    get, path = "/v1/me/payments/{id}", tag = "players", params(("id" = Uuid, Path, description = "payment id")),
    responses((status = 200, description = "the payment", body = PaymentView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn get_payment(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<PaymentView>, AppError> {
    Ok(Json(saga::payment_of(&state, &caller, id).await?))
}

#[utoipa::path(
    post, path = "/v1/payments/webhook", tag = "players", request_body = PaymentEvent,
    params(("Lotto-Signature" = String, Header, description = "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">")),
    responses((status = 200, description = "applied, or a replay of an event already applied", body = WebhookReceipt),
              (status = "4XX", response = Refused)),
    security(())
)]
/// `POST /v1/payments/webhook`: the provider reports a payment's outcome. Authenticated by its
/// signature, not a token: the HMAC-SHA256 of `"<t>.<body>"` in `Lotto-Signature`.
pub async fn webhook(
    State(state): State<GatewayState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<WebhookReceipt>, AppError> {
    let taken = saga::take_event(&state, &headers, &body).await;
    platform::metrics::count_webhook("payments", taken.as_ref().map(|r| r.replayed));
    Ok(Json(taken?))
}
