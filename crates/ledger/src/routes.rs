//! The ledger's HTTP handlers: thin adapters from requests to [`crate::store`] (the daily
//! reports' to [`crate::daily`]).

pub mod daily;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use platform::auth::{Allowed, Caller, Role, RoleSet};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, PageParams, Path, Query};
use serde::Deserialize;
use uuid::Uuid;

use crate::LedgerState;
use crate::model::{
    Account, ActivityLine, ActivityTotals, BatchRequest, BatchResult, CashRequest, HistoryEntry, LARGE_WIN_FLOOR_CENTS, LargeWins,
    LimitChange, MAX_BATCH, MoneyLimit,
    NewAccountRequest, Page, PostedBalance, StatementEntry, Suspension, Transfer, TransferCommand, TransferRequest, TrialBalance, Validate,
    ValidateTransfer,
};
use crate::store::{self, LEDGER_NAMESPACE};

/// 201 with a `Location` when something was created now, 200 with `Idempotent-Replayed` when it existed.
fn created_or_replayed<T: serde::Serialize>(body: T, created: bool, location: &str) -> Response {
    platform::http::created_or_replayed(body, created, Some(location))
}

/// Who may move money, and who may read the books.
const WRITERS: &[Role] = &[Role::Service, Role::Operator];

/// Who moves money and opens accounts, checked before a body is read.
#[derive(Debug)]
pub struct Writers;

impl RoleSet for Writers {
    const ROLES: &'static [Role] = WRITERS;
}
const READERS: &[Role] = &[Role::Service, Role::Operator, Role::Auditor];

/// Who sets a wallet's money limits: the services (the gateway applies a player's and an
/// operator's rules, and its audit records who asked).
#[derive(Debug)]
pub struct Services;

impl RoleSet for Services {
    const ROLES: &'static [Role] = &[Role::Service];
}

/// Readers see every account; a player sees their own, and others' look absent (no enumeration).
fn may_see(caller: &Caller, owner: &str) -> bool {
    READERS.contains(&caller.role()) || (caller.role() == Role::Player && caller.subject() == owner)
}

fn account_not_found(id: Uuid) -> AppError {
    AppError::not_found(codes::ACCOUNT_NOT_FOUND, format!("account {id} does not exist"))
}

#[utoipa::path(
    post, path = "/v1/accounts", tag = "ledger", request_body = NewAccountRequest,
    params(("Idempotency-Key" = Option<String>, Header, description = "names the account, so a retry opens it once; or send `id` in the body")),
    responses((status = 201, description = "created", body = Account), (status = 200, description = "it already existed with these fields", body = Account), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/accounts`: opens an account (operators and services); the same fields again answer
/// the account that exists.
pub async fn create_account(
    State(state): State<LedgerState>,
    _writer: Allowed<Writers>,
    key: IdempotencyKey,
    Json(mut request): Json<NewAccountRequest>,
) -> Result<Response, AppError> {
    // The one idempotency convention: a key names the account as a body `id` would.
    if request.id.is_some() || key.0.is_some() {
        request.id = Some(key.resolve(request.id, &LEDGER_NAMESPACE)?);
    }
    let new = request.validate()?;
    let (account, created) = store::create_account(&state.pool, &new).await?;
    let location = format!("/v1/accounts/{}", account.id);
    Ok(created_or_replayed(account, created, &location))
}

#[utoipa::path(
    get, path = "/v1/accounts/{id}", tag = "ledger", params(("id" = Uuid, Path, description = "account id")),
    responses((status = 200, description = "the account and its balances", body = Account), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/accounts/{id}`: one account and its balance.
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

#[utoipa::path(
    get, path = "/v1/accounts/{id}/limits", tag = "ledger", params(("id" = Uuid, Path, description = "a player's wallet")),
    responses((status = 200, description = "the wallet's money limits, with what their windows have used", body = Vec<MoneyLimit>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/accounts/{id}/limits`: a wallet's money limits (ADR 0014), each with what its
/// window has used now.
pub async fn account_limits(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<Vec<MoneyLimit>>, AppError> {
    visible_account(&state, &caller, id).await?;
    Ok(Json(store::limits(&state.pool, id).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TotalsQuery {
    /// From the hour this instant falls in (RFC 3339).
    since: chrono::DateTime<chrono::Utc>,
}

#[utoipa::path(
    get, path = "/v1/accounts/{id}/activity/totals", tag = "ledger", params(("id" = Uuid, Path, description = "a player's wallet"), TotalsQuery),
    responses((status = 200, description = "what the wallet staked, won, deposited and withdrew from that hour to now", body = ActivityTotals), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/accounts/{id}/activity/totals?since=`: a wallet's activity from the hour `since`
/// falls in to now (a game session's figures, ADR 0014 §3).
pub async fn account_activity_totals(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Query(query): Query<TotalsQuery>,
) -> Result<Json<ActivityTotals>, AppError> {
    visible_account(&state, &caller, id).await?;
    Ok(Json(store::activity_totals(&state.pool, id, query.since).await?))
}

#[utoipa::path(
    put, path = "/v1/accounts/{id}/suspension", tag = "ledger", params(("id" = Uuid, Path, description = "a player's wallet")),
    request_body = Suspension,
    responses((status = 200, description = "the wallet's play suspended as asked (replacing any suspension)", body = Suspension), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PUT /v1/accounts/{id}/suspension` (services): no stake is taken from the wallet until the
/// time given (ADR 0014 §4: a break, an exclusion, a closure); the gateway keeps the rules.
pub async fn suspend(
    State(state): State<LedgerState>,
    _service: Allowed<Services>,
    Path(id): Path<Uuid>,
    Json(suspension): Json<Suspension>,
) -> Result<Json<Suspension>, AppError> {
    store::suspend(&state.pool, id, &suspension).await?;
    Ok(Json(suspension))
}

/// The longest statement one request reads: a year and a day.
const MAX_ACTIVITY_DAYS: i64 = 366;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ActivityQuery {
    /// The first day (inclusive), `YYYY-MM-DD`.
    from: chrono::NaiveDate,
    /// The last day (inclusive), at most 366 days after `from`.
    to: chrono::NaiveDate,
    /// The zone the days are in: an IANA name such as `America/Chicago`.
    time_zone: String,
}

#[utoipa::path(
    get, path = "/v1/accounts/{id}/activity", tag = "ledger", params(("id" = Uuid, Path, description = "a player's wallet"), ActivityQuery),
    responses((status = 200, description = "what the wallet staked, won, deposited and withdrew, per day and game", body = Vec<ActivityLine>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/accounts/{id}/activity?from=&to=&time_zone=`: a wallet's activity per day and game,
/// as the money limits count it (ADR 0014): the figures of the player's statement.
pub async fn account_activity(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Query(query): Query<ActivityQuery>,
) -> Result<Json<Vec<ActivityLine>>, AppError> {
    let days = (query.to - query.from).num_days();
    if !(0..=MAX_ACTIVITY_DAYS).contains(&days) {
        return Err(AppError::unprocessable(
            codes::INVALID_WINDOW,
            format!("`to` must be `from` or up to {MAX_ACTIVITY_DAYS} days after it"),
        ));
    }
    visible_account(&state, &caller, id).await?;
    Ok(Json(store::activity(&state.pool, id, query.from, query.to, &query.time_zone).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StatementQuery {
    /// The first day (inclusive), `YYYY-MM-DD`.
    from: chrono::NaiveDate,
    /// The last day (inclusive), at most 366 days after `from`.
    to: chrono::NaiveDate,
    /// The zone the days are in: an IANA name such as `America/Chicago`.
    time_zone: String,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<i64>)]
    after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<i64>,
}

#[utoipa::path(
    get, path = "/v1/accounts/{id}/statement", tag = "ledger", params(("id" = Uuid, Path, description = "account id"), StatementQuery),
    responses((status = 200, description = "the account's transfers in the days asked for, newest first, each with the posted balance after it", body = Page<StatementEntry>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/accounts/{id}/statement?from=&to=&time_zone=`: the account's transfers within those
/// days, newest first, each with its posted balance after it (a wallet's statement).
pub async fn account_statement(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Query(query): Query<StatementQuery>,
) -> Result<Json<Page<StatementEntry>>, AppError> {
    let days = (query.to - query.from).num_days();
    if !(0..=MAX_ACTIVITY_DAYS).contains(&days) {
        return Err(AppError::unprocessable(
            codes::INVALID_WINDOW,
            format!("`to` must be `from` or up to {MAX_ACTIVITY_DAYS} days after it"),
        ));
    }
    let page = PageParams::<i64>::new(query.after, query.limit);
    let limit = page.limit()?;
    // Newest first: the cursor is the journal position the next page ends before.
    let before = page.after()?.unwrap_or(i64::MAX);
    visible_account(&state, &caller, id).await?;
    let window = (query.from, query.to, query.time_zone.as_str());
    let rows = store::statement(&state.pool, id, window, before, limit).await?;
    let next = page.next_cursor(rows.len(), rows.last().map(|(seq, _)| *seq));
    Ok(Json(Page { items: rows.into_iter().map(|(_, entry)| entry).collect(), next }))
}

#[utoipa::path(
    put, path = "/v1/accounts/{id}/limits", tag = "ledger", params(("id" = Uuid, Path, description = "a player's wallet")),
    request_body = LimitChange,
    responses((status = 200, description = "the wallet's money limits after the change", body = Vec<MoneyLimit>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PUT /v1/accounts/{id}/limits` (services): sets one money limit of a wallet; a lowering
/// applies at once, a player's raise or removal after its delay. Setting it again is harmless.
pub async fn set_account_limit(
    State(state): State<LedgerState>,
    _service: Allowed<Services>,
    Path(id): Path<Uuid>,
    Json(request): Json<LimitChange>,
) -> Result<Json<Vec<MoneyLimit>>, AppError> {
    let change = request.validate()?;
    store::set_limit(&state.pool, id, &change).await?;
    Ok(Json(store::limits(&state.pool, id).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AccountListQuery {
    /// Whose accounts (a player id, `casino`, ...).
    owner: String,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<Uuid>)]
    after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<i64>,
}

#[utoipa::path(
    get, path = "/v1/accounts", tag = "ledger", params(AccountListQuery),
    responses((status = 200, description = "an owner's accounts", body = Page<Account>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/accounts?owner=`: an owner's accounts, a page at a time.
pub async fn list_accounts(
    State(state): State<LedgerState>,
    caller: Caller,
    Query(query): Query<AccountListQuery>,
) -> Result<Json<Page<Account>>, AppError> {
    if !may_see(&caller, &query.owner) {
        return Err(platform::auth::forbidden());
    }
    let page = PageParams::<Uuid>::new(query.after, query.limit);
    let limit = page.limit()?;
    let items = store::list_accounts(&state.pool, &query.owner, page.after()?, limit).await?;
    let next = page.next_cursor(items.len(), items.last().map(|a| a.id));
    Ok(Json(Page { items, next }))
}

#[utoipa::path(
    get, path = "/v1/accounts/{id}/transfers", tag = "ledger", params(("id" = Uuid, Path, description = "account id"), PageParams<i64>),
    responses((status = 200, description = "the account's transfers in journal order", body = Page<HistoryEntry>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/accounts/{id}/transfers`: the account's transfers in journal order, a page at a time.
pub async fn account_history(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Query(page): Query<PageParams<i64>>,
) -> Result<Json<Page<HistoryEntry>>, AppError> {
    let limit = page.limit()?;
    let after = page.after()?.unwrap_or(0);
    visible_account(&state, &caller, id).await?;
    let rows = store::history(&state.pool, id, after, limit).await?;
    let next = page.next_cursor(rows.len(), rows.last().map(|(seq, _)| *seq));
    Ok(Json(Page { items: rows.into_iter().map(|(_, entry)| entry).collect(), next }))
}

#[utoipa::path(
    post, path = "/v1/transfers", tag = "ledger", request_body = TransferRequest, params(("Idempotency-Key" = Option<String>, Header, description = "names the request, so a retry applies once; or send `id` in the body")),
    responses((status = 201, description = "applied", body = Transfer), (status = 200, description = "a replay: applied before", body = Transfer), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/transfers`: moves money between two accounts, once per idempotency key.
pub async fn create_transfer(
    State(state): State<LedgerState>,
    _writer: Allowed<Writers>,
    key: IdempotencyKey,
    Json(request): Json<TransferRequest>,
) -> Result<Response, AppError> {
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

#[utoipa::path(
    post, path = "/v1/transfers/batch", tag = "ledger", request_body = BatchRequest, params(("Idempotency-Key" = Option<String>, Header, description = "names the batch: an item without its own `id` gets one from this key and its place, so a retry applies once")),
    responses((status = 201, description = "applied, all together", body = BatchResult), (status = 200, description = "every transfer was a replay", body = BatchResult), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/transfers/batch`: several transfers that apply together or not at all.
pub async fn create_batch(
    State(state): State<LedgerState>,
    _writer: Allowed<Writers>,
    key: IdempotencyKey,
    Json(request): Json<BatchRequest>,
) -> Result<Response, AppError> {
    if request.transfers.is_empty() || request.transfers.len() > MAX_BATCH {
        return Err(AppError::unprocessable(
            codes::INVALID_BATCH,
            format!("a batch holds 1 to {MAX_BATCH} transfers"),
        ));
    }
    let commands = request
        .transfers
        .into_iter()
        .enumerate()
        .map(|(index, transfer)| {
            let id = key.resolve_item(transfer.id, index, &LEDGER_NAMESPACE);
            id.and_then(|id| transfer.validate(id))
                .map_err(|e| e.with_context(serde_json::json!({ "index": index })))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if request.balances_of.len() > MAX_BATCH {
        return Err(AppError::unprocessable(
            codes::INVALID_BATCH,
            format!("a batch answers at most {MAX_BATCH} balances"),
        ));
    }
    let (items, posted) =
        store::create_transfers_reading(&state.pool, &commands, Some(Uuid::now_v7()), &request.balances_of)
            .await?;
    let created = items.iter().any(|item| !item.replayed);
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    let balances = request
        .balances_of
        .iter()
        .zip(posted)
        .map(|(&account_id, posted)| PostedBalance { account_id, posted })
        .collect();
    Ok((status, Json(BatchResult { transfers: items, balances })).into_response())
}

#[utoipa::path(
    get, path = "/v1/transfers/{id}", tag = "ledger", params(("id" = Uuid, Path, description = "transfer id")),
    responses((status = 200, description = "the transfer", body = Transfer), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/transfers/{id}`: one transfer.
pub async fn get_transfer(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<Transfer>, AppError> {
    caller.require(READERS)?;
    store::get_transfer(&state.pool, id).await?.map(Json).ok_or_else(|| {
        AppError::not_found(codes::TRANSFER_NOT_FOUND, format!("transfer {id} does not exist"))
    })
}

/// Money in from the outside world: cash clearing → the account.
#[utoipa::path(
    post, path = "/v1/deposits", tag = "ledger", request_body = CashRequest, params(("Idempotency-Key" = Option<String>, Header, description = "names the request, so a retry applies once; or send `id` in the body")),
    responses((status = 201, description = "applied", body = Transfer), (status = 200, description = "a replay", body = Transfer), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn deposit(
    State(state): State<LedgerState>,
    _writer: Allowed<Writers>,
    key: IdempotencyKey,
    Json(request): Json<CashRequest>,
) -> Result<Response, AppError> {
    cash_movement(&state, &key, request, Direction::In).await
}

/// Money out to the outside world: the account → cash clearing.
#[utoipa::path(
    post, path = "/v1/withdrawals", tag = "ledger", request_body = CashRequest, params(("Idempotency-Key" = Option<String>, Header, description = "names the request, so a retry applies once; or send `id` in the body")),
    responses((status = 201, description = "applied", body = Transfer), (status = 200, description = "a replay", body = Transfer), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn withdraw(
    State(state): State<LedgerState>,
    _writer: Allowed<Writers>,
    key: IdempotencyKey,
    Json(request): Json<CashRequest>,
) -> Result<Response, AppError> {
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
        .map_err(|e: domain::MoneyError| AppError::unprocessable(codes::INVALID_CURRENCY, e.to_string()))?;
    let clearing = store::cash_clearing_account(&state.pool, currency).await?;
    if request.account_id == clearing {
        return Err(AppError::unprocessable(
            codes::SAME_ACCOUNT,
            "cannot deposit to or withdraw from cash clearing",
        ));
    }
    let (debit, credit) = match direction {
        Direction::In if request.pending || request.timeout_seconds.is_some() => {
            return Err(AppError::unprocessable(
                codes::INVALID_TRANSFER,
                "a deposit is posted when the money has arrived; only a withdrawal may be held",
            ));
        }
        Direction::In => (clearing, request.account_id),
        Direction::Out => (request.account_id, clearing),
    };
    let transfer = TransferRequest {
        debit_account_id: Some(debit),
        credit_account_id: Some(credit),
        amount: Some(request.amount),
        currency: Some(request.currency),
        metadata: request.metadata,
        pending: request.pending,
        timeout_seconds: request.timeout_seconds,
        ..TransferRequest::default()
    };
    apply_one(state, &transfer.validate(id)?).await
}

#[utoipa::path(
    get, path = "/v1/reports/trial-balance", tag = "ledger",
    responses((status = 200, description = "debits and credits per currency", body = TrialBalance), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/reports/trial-balance`: each currency's debits and credits over every account, and
/// whether they balance.
pub async fn trial_balance(
    State(state): State<LedgerState>,
    caller: Caller,
) -> Result<Json<TrialBalance>, AppError> {
    caller.require(READERS)?;
    Ok(Json(store::trial_balance(&state.pool).await?))
}

/// Replays the whole journal against the balance counters: an auditor's end-to-end check.
#[utoipa::path(
    get, path = "/v1/reports/journal-check", tag = "ledger",
    responses((status = 200, description = "whether the balances equal a replay of the journal", body = JournalCheck), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn journal_check(
    State(state): State<LedgerState>,
    caller: Caller,
) -> Result<Json<JournalCheck>, AppError> {
    caller.require(READERS)?;
    let mismatched = store::journal_mismatches(&state.pool).await?;
    Ok(Json(JournalCheck { consistent: mismatched.is_empty(), mismatched_accounts: mismatched }))
}

/// `GET /v1/reports/large-wins`: which.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LargeWinsQuery {
    /// The `seq` of the last one read (none: from the start of the journal).
    #[param(minimum = 0)]
    after: Option<i64>,
    /// The least amount, in cents: 60,000 ($600, the default) or more.
    #[param(minimum = 60_000, maximum = 1_000_000_000_000_i64)]
    at_least: Option<i64>,
    /// Page size, 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<i64>,
}

/// Credits of at least `at_least` to players' wallets from games' accounts after a place in the
/// journal, oldest first: what the gateway tells players of as large wins (issue 49 §Email).
#[utoipa::path(
    get, path = "/v1/reports/large-wins", tag = "ledger", params(LargeWinsQuery),
    responses((status = 200, description = "the large wins after `after`, oldest first, and the newest place", body = LargeWins), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn large_wins(
    State(state): State<LedgerState>,
    caller: Caller,
    Query(query): Query<LargeWinsQuery>,
) -> Result<Json<LargeWins>, AppError> {
    caller.require(READERS)?;
    let at_least = query.at_least.unwrap_or(LARGE_WIN_FLOOR_CENTS);
    let limit = query.limit.unwrap_or(100);
    let amounts = LARGE_WIN_FLOOR_CENTS..=1_000_000_000_000;
    if !amounts.contains(&at_least) || !(1..=500).contains(&limit) || query.after.is_some_and(|a| a < 0) {
        return Err(AppError::bad_request(
            codes::INVALID_QUERY,
            "after is 0 or more, at_least $600 to $10,000,000,000 (in cents), limit 1 to 500",
        ));
    }
    Ok(Json(store::large_wins(&state.pool, query.after.unwrap_or(0), at_least, limit).await?))
}

/// The answer of `GET /v1/reports/journal-check`.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct JournalCheck {
    /// True when every account's counters equal the sum of its transfers.
    pub consistent: bool,
    pub mismatched_accounts: Vec<Uuid>,
}
