//! The ledger's HTTP handlers: thin adapters from requests to [`crate::store`].

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use platform::auth::{Caller, Role};
use platform::{AppError, IdempotencyKey, Json, PageParams, Path, Query};
use serde::Deserialize;
use uuid::Uuid;

use crate::LedgerState;
use crate::model::{
    Account, BatchRequest, BatchResult, CashRequest, HistoryEntry, MAX_BATCH, NewAccountRequest, Page,
    Transfer, TransferCommand, TransferRequest, TrialBalance,
};
use crate::store::{self, LEDGER_NAMESPACE};

/// Set on a response that repeats the answer of an earlier request with the same idempotency key.
const REPLAYED_HEADER: HeaderName = HeaderName::from_static("idempotent-replayed");

/// 201 with a `Location` when something was created now, 200 with `Idempotent-Replayed` when it existed.
fn created_or_replayed<T: serde::Serialize>(body: T, created: bool, location: &str) -> Response {
    let mut response = Json(body).into_response();
    if created {
        *response.status_mut() = StatusCode::CREATED;
        if let Ok(value) = HeaderValue::from_str(location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    } else {
        response.headers_mut().insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
    }
    response
}

/// Who may move money, and who may read the books.
const WRITERS: &[Role] = &[Role::Service, Role::Operator];
const READERS: &[Role] = &[Role::Service, Role::Operator, Role::Auditor];

/// Readers see every account; a player sees their own, and others' look absent (no enumeration).
fn may_see(caller: &Caller, owner: &str) -> bool {
    READERS.contains(&caller.role()) || (caller.role() == Role::Player && caller.subject() == owner)
}

fn account_not_found(id: Uuid) -> AppError {
    AppError::not_found("account_not_found", format!("account {id} does not exist"))
}

pub async fn create_account(
    State(state): State<LedgerState>,
    caller: Caller,
    Json(request): Json<NewAccountRequest>,
) -> Result<Response, AppError> {
    caller.require(WRITERS)?;
    let new = request.validate()?;
    let (account, created) = store::create_account(&state.pool, &new).await?;
    let location = format!("/v1/accounts/{}", account.id);
    Ok(created_or_replayed(account, created, &location))
}

pub async fn get_account(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<Account>, AppError> {
    visible_account(&state, &caller, id).await.map(Json)
}

async fn visible_account(state: &LedgerState, caller: &Caller, id: Uuid) -> Result<Account, AppError> {
    match store::get_account(&state.pool, id).await? {
        Some(account) if may_see(caller, &account.owner) => Ok(account),
        _ => Err(account_not_found(id)),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountListQuery {
    owner: String,
    after: Option<String>,
    limit: Option<i64>,
}

pub async fn list_accounts(
    State(state): State<LedgerState>,
    caller: Caller,
    Query(query): Query<AccountListQuery>,
) -> Result<Json<Page<Account>>, AppError> {
    if !may_see(&caller, &query.owner) {
        return Err(platform::auth::forbidden());
    }
    let page = PageParams { after: query.after, limit: query.limit };
    let limit = page.limit()?;
    let items = store::list_accounts(&state.pool, &query.owner, page.after::<Uuid>()?, limit).await?;
    let next = page.next_cursor(items.len(), items.last().map(|a| a.id));
    Ok(Json(Page { items, next }))
}

pub async fn account_history(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Query(page): Query<PageParams>,
) -> Result<Json<Page<HistoryEntry>>, AppError> {
    let limit = page.limit()?;
    let after = page.after::<i64>()?.unwrap_or(0);
    visible_account(&state, &caller, id).await?;
    let rows = store::history(&state.pool, id, after, limit).await?;
    let next = page.next_cursor(rows.len(), rows.last().map(|(seq, _)| *seq));
    Ok(Json(Page { items: rows.into_iter().map(|(_, entry)| entry).collect(), next }))
}

pub async fn create_transfer(
    State(state): State<LedgerState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<TransferRequest>,
) -> Result<Response, AppError> {
    caller.require(WRITERS)?;
    let id = key.resolve(request.id, &LEDGER_NAMESPACE)?;
    let command = request.validate(id)?;
    apply_one(&state, &command).await
}

async fn apply_one(state: &LedgerState, command: &TransferCommand) -> Result<Response, AppError> {
    let mut items = store::create_transfers(&state.pool, std::slice::from_ref(command), None).await?;
    let item = items.pop().ok_or_else(|| AppError::internal("create_transfers returned nothing"))?;
    let location = format!("/v1/transfers/{}", item.transfer.id);
    Ok(created_or_replayed(item.transfer, !item.replayed, &location))
}

pub async fn create_batch(
    State(state): State<LedgerState>,
    caller: Caller,
    Json(request): Json<BatchRequest>,
) -> Result<Response, AppError> {
    caller.require(WRITERS)?;
    if request.transfers.is_empty() || request.transfers.len() > MAX_BATCH {
        return Err(AppError::unprocessable(
            "invalid_batch",
            format!("a batch holds 1 to {MAX_BATCH} transfers"),
        ));
    }
    let commands = request
        .transfers
        .into_iter()
        .enumerate()
        .map(|(index, transfer)| {
            let id = transfer.id.ok_or_else(|| {
                AppError::unprocessable("missing_field", "every transfer of a batch needs its own `id`")
            });
            id.and_then(|id| transfer.validate(id))
                .map_err(|e| e.with_context(serde_json::json!({ "index": index })))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let items = store::create_transfers(&state.pool, &commands, Some(Uuid::now_v7())).await?;
    let created = items.iter().any(|item| !item.replayed);
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(BatchResult { transfers: items })).into_response())
}

pub async fn get_transfer(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<Transfer>, AppError> {
    caller.require(READERS)?;
    store::get_transfer(&state.pool, id)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::not_found("transfer_not_found", format!("transfer {id} does not exist")))
}

/// Money in from the outside world: cash clearing → the account.
pub async fn deposit(
    State(state): State<LedgerState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<CashRequest>,
) -> Result<Response, AppError> {
    caller.require(WRITERS)?;
    cash_movement(&state, &key, request, Direction::In).await
}

/// Money out to the outside world: the account → cash clearing.
pub async fn withdraw(
    State(state): State<LedgerState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<CashRequest>,
) -> Result<Response, AppError> {
    caller.require(WRITERS)?;
    cash_movement(&state, &key, request, Direction::Out).await
}

enum Direction {
    In,
    Out,
}

async fn cash_movement(
    state: &LedgerState,
    key: &IdempotencyKey,
    request: CashRequest,
    direction: Direction,
) -> Result<Response, AppError> {
    let id = key.resolve(request.id, &LEDGER_NAMESPACE)?;
    let currency = request
        .currency
        .parse()
        .map_err(|e: domain::MoneyError| AppError::unprocessable("invalid_currency", e.to_string()))?;
    let clearing = store::cash_clearing_account(&state.pool, currency).await?;
    if request.account_id == clearing {
        return Err(AppError::unprocessable(
            "same_account",
            "cannot deposit to or withdraw from cash clearing",
        ));
    }
    let (debit, credit) = match direction {
        Direction::In => (clearing, request.account_id),
        Direction::Out => (request.account_id, clearing),
    };
    let transfer = TransferRequest {
        debit_account_id: Some(debit),
        credit_account_id: Some(credit),
        amount: Some(request.amount),
        currency: Some(request.currency),
        metadata: request.metadata,
        ..TransferRequest::default()
    };
    apply_one(state, &transfer.validate(id)?).await
}

pub async fn trial_balance(
    State(state): State<LedgerState>,
    caller: Caller,
) -> Result<Json<TrialBalance>, AppError> {
    caller.require(READERS)?;
    Ok(Json(store::trial_balance(&state.pool).await?))
}

/// Replays the whole journal against the balance counters: an auditor's end-to-end check.
pub async fn journal_check(
    State(state): State<LedgerState>,
    caller: Caller,
) -> Result<Json<serde_json::Value>, AppError> {
    caller.require(READERS)?;
    let mismatched = store::journal_mismatches(&state.pool).await?;
    Ok(Json(serde_json::json!({ "consistent": mismatched.is_empty(), "mismatched_accounts": mismatched })))
}
