//! Players: registration, their own profile, wallet and history, deposit limits and
//! self-exclusion ([`crate::saga::players`]).

use axum::extract::State;
use axum::http::StatusCode;
use ledger_api::wire::{Account, HistoryEntry, Page, StatementEntry};
use platform::auth::Role;
use platform::openapi::Refused;
use platform::{AppError, Json, PageParams, Path, Query, codes};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, PlayerSession};
use crate::saga::players as saga;
use crate::views::players::{
    AddressVerified, DepositLimit, EmailVerification, ExclusionRequest, LimitRequest, LinkRequest,
    LinkRequested, LoginNotices, Me, PasswordReset, Player, PlayerLookup, PlayerMatch, PlayerMatches,
    PlayerSearch, Registration, RegistrationAccepted, SelfExclusion,
};
use crate::views::protection::WalletEntriesQuery;

/// `POST /v1/players`: anyone may register; K.A.R. 111-5-24(c) refuses those under 18. The
/// answer is the same whether or not the address has an account: the address is told by mail.
#[utoipa::path(
    post, path = "/v1/players", tag = "players", request_body = Registration,
    responses((status = 202, description = "a message went to the address: a link to confirm it (a new account), or word that it has one", body = RegistrationAccepted), (status = "4XX", response = Refused))
)]
pub async fn register(
    State(state): State<GatewayState>,
    Json(request): Json<Registration>,
) -> Result<(StatusCode, Json<RegistrationAccepted>), AppError> {
    Ok((StatusCode::ACCEPTED, Json(saga::register(&state, request).await?)))
}

/// `POST /v1/email-verifications`: the link mailed to an address, opened. A player logged in
/// as someone else is refused (`link_for_another_account`).
#[utoipa::path(
    post, path = "/v1/email-verifications", tag = "players", request_body = EmailVerification,
    responses((status = 200, description = "the address is confirmed", body = AddressVerified), (status = "4XX", response = Refused))
)]
pub async fn verify_email(
    State(state): State<GatewayState>,
    caller: Option<Authenticated>,
    Json(request): Json<EmailVerification>,
) -> Result<Json<AddressVerified>, AppError> {
    Ok(Json(crate::saga::links::verify_email(&state, caller.as_ref(), &request.token).await?))
}

/// `POST /v1/email-verifications/resend`: a new confirmation link to the address; the answer is
/// the same whether or not it has an account.
#[utoipa::path(
    post, path = "/v1/email-verifications/resend", tag = "players", request_body = LinkRequest,
    responses((status = 202, description = "if the address has an account, a message went to it", body = LinkRequested), (status = "4XX", response = Refused))
)]
pub async fn resend_verification(
    State(state): State<GatewayState>,
    Json(request): Json<LinkRequest>,
) -> Result<(StatusCode, Json<LinkRequested>), AppError> {
    crate::saga::links::resend_verification(&state, &request.email).await?;
    Ok(link_requested(&request.email))
}

/// `POST /v1/password-resets`: a link to choose a new password, to the address; the answer is
/// the same whether or not it has an account.
#[utoipa::path(
    post, path = "/v1/password-resets", tag = "players", request_body = LinkRequest,
    responses((status = 202, description = "if the address has an account, a message went to it", body = LinkRequested), (status = "4XX", response = Refused))
)]
pub async fn request_reset(
    State(state): State<GatewayState>,
    Json(request): Json<LinkRequest>,
) -> Result<(StatusCode, Json<LinkRequested>), AppError> {
    crate::saga::links::request_reset(&state, &request.email).await?;
    Ok(link_requested(&request.email))
}

fn link_requested(email: &str) -> (StatusCode, Json<LinkRequested>) {
    let message = format!(
        "If {} has an account, a message with a link went to it. The link works once, within 30 minutes.",
        email.trim()
    );
    (StatusCode::ACCEPTED, Json(LinkRequested { message }))
}

/// `POST /v1/password-resets/complete`: a new password set with the mailed link. Every session
/// of the player ends; nobody is logged in (log in with the new password).
#[utoipa::path(
    post, path = "/v1/password-resets/complete", tag = "players", request_body = PasswordReset,
    responses((status = 204, description = "the password is changed and every session ended"), (status = "4XX", response = Refused))
)]
pub async fn complete_reset(
    State(state): State<GatewayState>,
    Json(request): Json<PasswordReset>,
) -> Result<StatusCode, AppError> {
    crate::saga::links::reset_password(&state, request).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `PUT /v1/me/login-notices`: whether the player is told of every login by mail.
#[utoipa::path(
    put, path = "/v1/me/login-notices", tag = "players", request_body = LoginNotices,
    responses((status = 200, description = "the setting now", body = LoginNotices), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn set_login_notices(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<LoginNotices>,
) -> Result<Json<LoginNotices>, AppError> {
    crate::store::players::set_login_notices(&state.pool, caller.subject_id()?, request.enabled).await?;
    Ok(Json(request))
}

/// `GET /v1/me`: who the caller is; a player also gets their profile.
#[utoipa::path(
    get, path = "/v1/me", tag = "players",
    responses((status = 200, description = "the caller's subject and role; a player's profile under `player`", body = Me), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn me(State(state): State<GatewayState>, caller: Authenticated) -> Result<Json<Me>, AppError> {
    let player = match caller.0.role {
        Role::Player => Some(saga::the_player(&state, &caller).await?),
        _ => None,
    };
    let retailer_id = (caller.0.role == Role::Retailer).then(|| caller.0.org.clone()).flatten();
    let username = match caller.0.role {
        Role::Operator | Role::Auditor => {
            crate::store::staff::username_of(&state.pool, &caller.0.sub).await?
        }
        _ => None,
    };
    Ok(Json(Me { subject: caller.0.sub.clone(), role: caller.0.role, player, retailer_id, username }))
}

/// A token for the caller to present downstream (a fresh one, same subject and role), so the
/// ledger itself checks the wallet is theirs.
fn bearer_of(caller: &Authenticated, state: &GatewayState) -> Result<String, AppError> {
    state.tokens.issue(&caller.0.sub, caller.0.role, caller.0.sid, std::time::Duration::from_secs(60))
}

/// `GET /v1/me/wallet`: the ledger account, read with the player's own token, so the ledger
/// itself checks the wallet is theirs.
#[utoipa::path(
    get, path = "/v1/me/wallet", tag = "players",
    responses((status = 200, description = "the player's ledger account", body = Account), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn wallet(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Account>, AppError> {
    let player = saga::the_player(&state, &caller).await?;
    let token = bearer_of(&caller, &state)?;
    Ok(Json(state.ledger.account_as(&token, player.wallet_account_id).await?))
}

/// `GET /v1/me/wallet/transfers?after=&limit=`.
#[utoipa::path(
    get, path = "/v1/me/wallet/transfers", tag = "players", params(PageParams<i64>),
    responses((status = 200, description = "a page of the wallet's transfers, in journal order", body = Page<HistoryEntry>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn wallet_history(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(page): Query<PageParams<i64>>,
) -> Result<Json<Page<HistoryEntry>>, AppError> {
    let player = saga::the_player(&state, &caller).await?;
    let (after, limit) = (page.after()?, page.limit()?);
    let token = bearer_of(&caller, &state)?;
    Ok(Json(state.ledger.history_as(&token, player.wallet_account_id, after, limit).await?))
}

/// `GET /v1/me/wallet/entries?from=&to=&after=&limit=`: the player's statement line by line.
#[utoipa::path(
    get, path = "/v1/me/wallet/entries", tag = "players", params(WalletEntriesQuery),
    responses((status = 200, description = "a page of the wallet's transfers in the days asked for (the last 30 by default, in the operator's time zone), newest first, each with the wallet's posted balance after it", body = Page<StatementEntry>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn wallet_entries(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<WalletEntriesQuery>,
) -> Result<Json<Page<StatementEntry>>, AppError> {
    caller.require(&[Role::Player])?;
    let token = bearer_of(&caller, &state)?;
    Ok(Json(crate::saga::protection::wallet_entries(&state, caller.subject_id()?, &token, query).await?))
}

#[utoipa::path(
    get, path = "/v1/me/deposit-limits", tag = "responsible gaming",
    responses((status = 200, description = "daily, weekly and monthly limits", body = Vec<DepositLimit>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `GET /v1/me/deposit-limits`: the player's own deposit limits, with any raise still waiting.
pub async fn get_limits(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Vec<DepositLimit>>, AppError> {
    let player = saga::the_player(&state, &caller).await?;
    Ok(Json(saga::limits(&state, player.id).await?))
}

/// `PUT /v1/me/deposit-limits`: lowering applies at once; raising or removing after 24 hours.
#[utoipa::path(
    put, path = "/v1/me/deposit-limits", tag = "responsible gaming", request_body = LimitRequest,
    responses((status = 200, description = "the limits now: lowering applies at once, raising after 24 hours", body = Vec<DepositLimit>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn set_limit(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<LimitRequest>,
) -> Result<Json<Vec<DepositLimit>>, AppError> {
    Ok(Json(saga::set_limit(&state, &caller, request).await?))
}

/// `POST /v1/me/self-exclusion`: at once, every session ends and logins are refused until the end.
#[utoipa::path(
    post, path = "/v1/me/self-exclusion", tag = "responsible gaming", request_body = ExclusionRequest,
    responses((status = 200, description = "excluded until `self_excluded_until`; every session has ended", body = SelfExclusion), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn self_exclude(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<ExclusionRequest>,
) -> Result<Json<SelfExclusion>, AppError> {
    Ok(Json(crate::saga::protection::self_exclude(&state, &caller, request.period).await?))
}

/// `GET /v1/players?email=`: operators and auditors find a player by email.
#[utoipa::path(
    get, path = "/v1/players", tag = "players", params(PlayerLookup),
    responses((status = 200, description = "the player with that email (compared without case)", body = Player), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn find_player(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<PlayerLookup>,
) -> Result<Json<Player>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    let id = crate::store::players::id_by_email(&state.pool, query.email.trim())
        .await?
        .ok_or_else(|| AppError::not_found(codes::PLAYER_NOT_FOUND, "no player has that email"))?;
    Ok(Json(saga::load_player(&state, id).await?))
}

/// `GET /v1/players/matches?part=`: operators and auditors find players by any part of their
/// email (the first 20 by email; `more` says there are others).
#[utoipa::path(
    get, path = "/v1/players/matches", tag = "players", params(PlayerSearch),
    responses((status = 200, description = "players whose email holds `part` (compared without case), by email", body = PlayerMatches), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn match_players(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<PlayerSearch>,
) -> Result<Json<PlayerMatches>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    let part = query.part.as_str();
    if part.chars().count() < 2 || part.chars().count() > 254 {
        return Err(AppError::bad_request(codes::INVALID_QUERY, "give 2 to 254 characters of the email"));
    }
    let most = PlayerMatches::MOST;
    let rows = crate::store::players::matching_email(&state.pool, part, i64::from(most) + 1).await?;
    let mut items: Vec<PlayerMatch> = rows
        .into_iter()
        .map(|r| PlayerMatch { id: r.id, email: r.email, created_at: r.created_at })
        .collect();
    let more = items.len() > most as usize;
    items.truncate(most as usize);
    Ok(Json(PlayerMatches { items, more }))
}

/// `GET /v1/players/{id}`: operators and auditors look a player up.
#[utoipa::path(
    get, path = "/v1/players/{id}", tag = "players", params(("id" = Uuid, Path, description = "player id")),
    responses((status = 200, description = "the player", body = Player), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn get_player(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<Player>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(saga::load_player(&state, id).await?))
}
