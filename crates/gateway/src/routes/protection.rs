//! Player protection: the limits a player sets on their own play, and those an operator
//! imposes; the player's activity statement ([`crate::saga::protection`]).

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use ledger_api::wire::LimitSource;
use platform::auth::Role;
use platform::codes;
use platform::openapi::Refused;
use platform::page::{PageParams, TimeIdCursor};
use platform::{AppError, Json, Path, Query};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, PlayerSession};
use crate::saga::exclusion_lists as lists;
use crate::saga::protection as saga;
use crate::views::protection::{
    DormantAccounts, ExclusionEntry, ExclusionEntryRequest, ExclusionImport, ExclusionImportRequest,
    ExclusionRemoval, ImposedLimitRequest, Limits, MoneyLimitRequest, PlaySession, RealityCheckAnswer,
    RealityCheckInterval, ResponsibleGaming, StandingView, Statement, StatementQuery, TimeLimitRequest,
    TimeOut, TimeOutRequest,
};

/// `GET /v1/me/limits`: the player's deposit and money limits, with what each has left.
#[utoipa::path(
    get, path = "/v1/me/limits", tag = "responsible gaming",
    responses((status = 200, description = "deposit limits, and loss, wager and single-stake limits with what their windows have used", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn my_limits(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Limits>, AppError> {
    caller.require(&[Role::Player])?;
    Ok(Json(saga::limits(&state, caller.subject_id()?).await?))
}

/// `PUT /v1/me/limits`: sets a loss, wager or single-stake limit; lowering applies at once,
/// raising or removing after 24 hours.
#[utoipa::path(
    put, path = "/v1/me/limits", tag = "responsible gaming", request_body = MoneyLimitRequest,
    responses((status = 200, description = "every limit after the change", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn set_my_limit(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<MoneyLimitRequest>,
) -> Result<Json<Limits>, AppError> {
    Ok(Json(saga::set_money_limit(&state, caller.subject_id()?, request, LimitSource::Player).await?))
}

/// `GET /v1/players/{id}/limits`: operators and auditors read a player's limits.
#[utoipa::path(
    get, path = "/v1/players/{id}/limits", tag = "responsible gaming", params(("id" = Uuid, Path, description = "player id")),
    responses((status = 200, description = "the player's limits, their own and the operator's", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn player_limits(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<Limits>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(saga::limits(&state, id).await?))
}

/// `PUT /v1/players/{id}/limits`: an operator imposes a limit on a player, or lowers the one
/// imposed, at once and with the reason (never raises or lifts it); the player's own limits
/// stay, and the lower binds.
#[utoipa::path(
    put, path = "/v1/players/{id}/limits", tag = "responsible gaming", params(("id" = Uuid, Path, description = "player id")),
    request_body = ImposedLimitRequest,
    responses((status = 200, description = "the player's limits after the change", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn impose_limit(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Json(request): Json<ImposedLimitRequest>,
) -> Result<Json<Limits>, AppError> {
    caller.require(&[Role::Operator])?;
    Ok(Json(saga::impose_money_limit(&state, &caller.0.sub, id, request).await?))
}

/// `GET /v1/me/statement?from=&to=`: what the player deposited, withdrew, staked and won, per
/// day and game, with today's, the last 7 days' and the last 30 days' totals.
#[utoipa::path(
    get, path = "/v1/me/statement", tag = "responsible gaming", params(StatementQuery),
    responses((status = 200, description = "the player's activity statement, days in the operator's time zone", body = Statement), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn my_statement(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<StatementQuery>,
) -> Result<Json<Statement>, AppError> {
    caller.require(&[Role::Player])?;
    Ok(Json(saga::statement(&state, caller.subject_id()?, &query).await?.0))
}

/// `GET /v1/me/statement.csv?from=&to=`: the statement's days and games as a CSV download.
#[utoipa::path(
    get, path = "/v1/me/statement.csv", tag = "responsible gaming", params(StatementQuery),
    responses((status = 200, description = "`date,game,deposited,withdrawn,staked,won,net`, one row per day and game (the game empty for deposits and withdrawals), in dollars", content_type = "text/csv", body = String), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn my_statement_csv(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<StatementQuery>,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player])?;
    let (statement, lines) = saga::statement(&state, caller.subject_id()?, &query).await?;
    let file = format!("attachment; filename=\"statement-{}-{}.csv\"", statement.from, statement.to);
    Ok((
        [(header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()), (header::CONTENT_DISPOSITION, file)],
        saga::statement_csv(&lines),
    )
        .into_response())
}

/// `GET /v1/players/{id}/statement?from=&to=`: operators and auditors read a player's statement.
#[utoipa::path(
    get, path = "/v1/players/{id}/statement", tag = "responsible gaming", params(("id" = Uuid, Path, description = "player id"), StatementQuery),
    responses((status = 200, description = "the player's activity statement", body = Statement), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn player_statement(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Query(query): Query<StatementQuery>,
) -> Result<Json<Statement>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(saga::statement(&state, id, &query).await?.0))
}

/// `POST /v1/me/time-out`: a break of 24 or 72 hours, 7, 30 or 90 days, at once: every session
/// ends, no stake or deposit is taken until it ends; the player may log in to withdraw.
#[utoipa::path(
    post, path = "/v1/me/time-out", tag = "responsible gaming", request_body = TimeOutRequest,
    responses((status = 200, description = "on a break until `on_break_until`; every session has ended", body = TimeOut), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn take_time_out(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<TimeOutRequest>,
) -> Result<Json<TimeOut>, AppError> {
    let until = saga::take_time_out(&state, caller.subject_id()?, request.period).await?;
    Ok(Json(TimeOut { on_break_until: until }))
}

/// `GET /v1/me/play-session`: this login's game session: when play started, how long it has
/// lasted, what it staked and won, and when the next reality check falls.
#[utoipa::path(
    get, path = "/v1/me/play-session", tag = "responsible gaming",
    responses((status = 200, description = "the session clock and figures", body = PlaySession), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn my_play_session(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<PlaySession>, AppError> {
    caller.require(&[Role::Player])?;
    let sid =
        caller.0.sid.ok_or_else(|| AppError::bad_request(codes::NO_SESSION, "this token has no session"))?;
    Ok(Json(saga::play_session(&state, sid, caller.subject_id()?).await?))
}

/// `POST /v1/me/reality-check`: the player's answer to a reality check: `continue` (the next
/// comes an interval from now) or `stop` (this session ends).
#[utoipa::path(
    post, path = "/v1/me/reality-check", tag = "responsible gaming", request_body = RealityCheckAnswer,
    responses((status = 200, description = "the session's figures as the player saw them", body = PlaySession), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn answer_reality_check(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(answer): Json<RealityCheckAnswer>,
) -> Result<Json<PlaySession>, AppError> {
    Ok(Json(saga::answer_reality_check(&state, &caller, answer.decision).await?))
}

/// `PUT /v1/me/reality-check`: how often a reality check comes: every 15, 30 or 60 minutes.
#[utoipa::path(
    put, path = "/v1/me/reality-check", tag = "responsible gaming", request_body = RealityCheckInterval,
    responses((status = 200, description = "the interval now", body = RealityCheckInterval), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn set_reality_check_interval(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(interval): Json<RealityCheckInterval>,
) -> Result<Json<RealityCheckInterval>, AppError> {
    saga::set_reality_check_interval(&state, caller.subject_id()?, interval.interval_minutes).await?;
    Ok(Json(interval))
}

/// `PUT /v1/me/time-limits`: sets a limit on minutes played per 24 hours, 7 days or 30 days;
/// lowering applies at once, raising or removing after 24 hours.
#[utoipa::path(
    put, path = "/v1/me/time-limits", tag = "responsible gaming", request_body = TimeLimitRequest,
    responses((status = 200, description = "every limit after the change", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn set_my_time_limit(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<TimeLimitRequest>,
) -> Result<Json<Limits>, AppError> {
    Ok(Json(saga::set_time_limit(&state, caller.subject_id()?, request).await?))
}

/// `POST /v1/me/self-exclusion/return`: after a fixed-term self-exclusion has ended, the player
/// asks to play again; play resumes 24 hours later.
#[utoipa::path(
    post, path = "/v1/me/self-exclusion/return", tag = "responsible gaming",
    responses((status = 200, description = "the standing: play resumes at `play_resumes_at`", body = StandingView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn request_return(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<StandingView>, AppError> {
    Ok(Json(standing_view(saga::request_return(&state, &caller).await?)))
}

/// `POST /v1/me/closure`: the player closes their account: no play or deposits, every session
/// ends, tickets for future draws are voided and refunded; the balance stays theirs to withdraw.
#[utoipa::path(
    post, path = "/v1/me/closure", tag = "responsible gaming",
    responses((status = 200, description = "closed; every session has ended", body = StandingView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn close_account(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
) -> Result<Json<StandingView>, AppError> {
    Ok(Json(standing_view(saga::close_account(&state, &caller).await?)))
}

/// `POST /v1/me/reopening`: the player asks to reopen their closed account; play resumes 24
/// hours later.
#[utoipa::path(
    post, path = "/v1/me/reopening", tag = "responsible gaming",
    responses((status = 200, description = "the standing: play resumes at `play_resumes_at`", body = StandingView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn request_reopen(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<StandingView>, AppError> {
    Ok(Json(standing_view(saga::request_reopen(&state, &caller).await?)))
}

fn standing_view(standing: crate::standing::PlayStanding) -> StandingView {
    StandingView { standing: standing.standing, play_resumes_at: standing.resumes_at }
}

/// `GET /v1/responsible-gaming`: the help line and the tools' choices, for the "play
/// responsibly" page (public: it is shown before login too).
#[utoipa::path(
    get, path = "/v1/responsible-gaming", tag = "responsible gaming",
    responses((status = 200, description = "the operator's help line and the periods a player may choose", body = ResponsibleGaming), (status = "4XX", response = Refused))
)]
pub async fn responsible_gaming(State(state): State<GatewayState>) -> Json<ResponsibleGaming> {
    let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
    Json(ResponsibleGaming {
        help_line: state.protection.help_line,
        time_out_periods: names(&["24_hours", "72_hours", "7_days", "30_days", "90_days"]),
        self_exclusion_periods: names(&["6_months", "1_year", "5_years", "permanent"]),
        cooling_off_hours: crate::standing::COOLING_OFF_HOURS,
    })
}

/// `POST /v1/exclusion-list`: an operator puts one person on a list; players matching are
/// excluded at once (each match logged).
#[utoipa::path(
    post, path = "/v1/exclusion-list", tag = "responsible gaming", request_body = ExclusionEntryRequest,
    responses((status = 201, description = "on the list; `players_excluded` matched now", body = ExclusionImport), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn add_to_exclusion_list(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Json(request): Json<ExclusionEntryRequest>,
) -> Result<(StatusCode, Json<ExclusionImport>), AppError> {
    caller.require(&[Role::Operator])?;
    Ok((StatusCode::CREATED, Json(lists::add(&state, &caller.0.sub, request).await?)))
}

/// `POST /v1/exclusion-list/import`: a list as a CSV file (`source,reference,email,date_of_birth,ends_on`)
/// or the same rows as JSON, taken whole or not at all; players matching are excluded at once
/// (each match logged).
#[utoipa::path(
    post, path = "/v1/exclusion-list/import", tag = "responsible gaming",
    request_body(
        description = "`text/csv`: a header line `source,reference,email,date_of_birth,ends_on`, then one person a line (dates `YYYY-MM-DD` or empty), UTF-8; or `application/json`: the same rows as objects",
        content((String = "text/csv"), (ExclusionImportRequest = "application/json"))
    ),
    responses((status = 201, description = "imported", body = ExclusionImport), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn import_exclusion_list(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: axum::extract::Request,
) -> Result<(StatusCode, Json<ExclusionImport>), AppError> {
    caller.require(&[Role::Operator])?;
    // The body is read once the caller may import: anyone else is refused 403 whatever they sent.
    let body = <platform::extract::CsvOrJson<ExclusionImportRequest> as axum::extract::FromRequest<()>>::from_request(
        request,
        &(),
    )
    .await?;
    let entries = match body {
        platform::extract::CsvOrJson::Csv(text) => lists::parse_csv(&text, &state.identity.key)?,
        platform::extract::CsvOrJson::Json(rows) => lists::parse_rows(rows.entries, &state.identity.key)?,
    };
    Ok((StatusCode::CREATED, Json(lists::import(&state, &caller.0.sub, entries).await?)))
}

/// `DELETE /v1/exclusion-list/{id}`: an operator takes an entry off the lists (it stays on the
/// record, with who took it off); the players it held may play again unless something else
/// holds them.
#[utoipa::path(
    delete, path = "/v1/exclusion-list/{id}", tag = "responsible gaming", params(("id" = Uuid, Path, description = "entry id")),
    responses((status = 200, description = "taken off the lists", body = ExclusionRemoval), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn remove_from_exclusion_list(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<ExclusionRemoval>, AppError> {
    caller.require(&[Role::Operator])?;
    Ok(Json(lists::remove(&state, &caller.0.sub, id).await?))
}

/// `GET /v1/exclusion-list`: the entries on the lists, with how many matches each has logged.
#[utoipa::path(
    get, path = "/v1/exclusion-list", tag = "responsible gaming",
    responses((status = 200, description = "the entries, newest first", body = Vec<ExclusionEntry>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn exclusion_list(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Vec<ExclusionEntry>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(lists::entries(&state).await?))
}

/// `GET /v1/dormant-accounts?after=&limit=`: accounts without a login for
/// `LOTTO_DORMANT_AFTER_DAYS` days, a page at a time, with their balances (still their players').
#[utoipa::path(
    get, path = "/v1/dormant-accounts", tag = "responsible gaming", params(PageParams<TimeIdCursor>),
    responses((status = 200, description = "a page of the dormant accounts, longest dormant first", body = DormantAccounts), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn dormant_accounts(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(page): Query<PageParams<TimeIdCursor>>,
) -> Result<Json<DormantAccounts>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(lists::dormant(&state, &page).await?))
}
