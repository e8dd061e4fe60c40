//! The services' routes, passed through once the caller's role may use them (each service
//! checks the token again itself), and the live-results streams counted per address.

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use platform::AppError;
use platform::auth::Role;
use platform::codes;

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::{LEDGER_ROLES, rate_limit, store};

/// The game services the gateway routes to, as const parameters of the handlers below.
pub(super) const DRAWS: u8 = 0;
pub(super) const TABLES: u8 = 1;
pub(super) const INSTANT: u8 = 2;

/// Passes a request to game service `S`.
pub(super) async fn to_service<const S: u8>(state: &GatewayState, request: Request) -> Response {
    let (upstream, name) = match S {
        DRAWS => (&state.draws, "draw-games"),
        TABLES => (&state.tables, "table-games"),
        _ => (&state.instant, "instant"),
    };
    match upstream {
        Some(service) => service.forward(request, state.body_limit).await,
        None => AppError::unavailable(format!("the {name} service is not configured here")).into_response(),
    }
}

/// Playing, and listing one's own tickets or rounds: players.
pub(super) async fn for_players<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A stake (a ticket bought, a round dealt, a craps roll or bet): players, once the game
/// session's reality check, when due, is answered ([`crate::saga::protection::before_stake`]).
pub(super) async fn for_stakes<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player])?;
    let ip = rate_limit::client_address(&request);
    crate::saga::protection::before_stake(&state, &caller, ip).await.inspect_err(held_back)?;
    Ok(to_service::<S>(&state, request).await)
}

/// A decision within a round (a blackjack action, an I Luv Suits decision): players. One that
/// stakes more (a double, a split, insurance; the play wager) passes only as any stake does
/// ([`crate::saga::protection::before_stake`]: a due reality check answered first), while one
/// that finishes the round without new money (hit, stand, fold...) always passes (ADR 0014 §3).
pub(super) async fn for_round_decisions<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player])?;
    let ip = rate_limit::client_address(&request);
    let (parts, body) = request.into_parts();
    let bytes = read_body(&state, body).await?;
    if stakes_more(&bytes) {
        crate::saga::protection::before_stake(&state, &caller, ip).await.inspect_err(held_back)?;
    }
    Ok(to_service::<S>(&state, Request::from_parts(parts, axum::body::Body::from(bytes))).await)
}

/// Whether a round decision's body names one that stakes more; a body that is not one is the
/// service's to refuse.
fn stakes_more(body: &[u8]) -> bool {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(body) else { return false };
    let named = |field: &str| body.get(field).and_then(serde_json::Value::as_str);
    named("action").is_some_and(|a| domain::blackjack::round::STAKING_ACTIONS.contains(&a))
        || named("decision").is_some_and(|d| domain::i_luv_suits::round::STAKING_DECISIONS.contains(&d))
}

/// A request's body, at most the body limit (413 beyond).
async fn read_body(state: &GatewayState, body: axum::body::Body) -> Result<axum::body::Bytes, AppError> {
    axum::body::to_bytes(body, state.body_limit).await.map_err(|_| {
        AppError::new(
            axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            codes::BODY_TOO_LARGE,
            "the body is too large",
        )
    })
}

/// One ticket or round: its player (the service checks it is theirs), staff and services.
pub(super) async fn for_readers<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A ticket read by its serial: its online player, the retailer whose terminal sold it (the
/// service checks either), staff and services.
pub(super) async fn for_ticket_holders<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player, Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A retailer's records (packs, receipts, statement): its own terminals (the service keeps each
/// to its own retailer's), staff and services.
pub(super) async fn for_counter_readers<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// Draws, pay tables, meters and the math: public.
pub(super) async fn for_anyone<const S: u8>(State(state): State<GatewayState>, request: Request) -> Response {
    to_service::<S>(&state, request).await
}

/// Live results: public, at most `LOTTO_MAX_STREAMS_PER_ADDRESS` streams open from one client
/// address (429 `too_many_streams` beyond), each counted until its answer's body is dropped,
/// which is when the client goes or the stream ends.
pub(super) async fn live_stream(State(state): State<GatewayState>, request: Request) -> Response {
    let permit = match rate_limit::client_address(&request) {
        Some(address) => match state.streams.open(address) {
            Some(permit) => Some(permit),
            None => {
                return AppError::new(
                    axum::http::StatusCode::TOO_MANY_REQUESTS,
                    codes::TOO_MANY_STREAMS,
                    format!(
                        "this address has {} live streams open, the most it may; close one first",
                        state.streams.per_address
                    ),
                )
                .with_header(axum::http::header::RETRY_AFTER, axum::http::HeaderValue::from_static("15"))
                .into_response();
            }
        },
        // Not over a socket (a test's in-process call): nothing to count by.
        None => None,
    };
    let response = to_service::<DRAWS>(&state, request).await;
    response.map(|body| {
        axum::body::Body::new(http_body_util::BodyExt::map_frame(body, move |frame| {
            let _held = &permit;
            frame
        }))
    })
}

/// Running the games (print runs): operators.
pub(super) async fn for_operators<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Operator])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A pack shipped: operators, to a retailer that exists (retailers are the gateway's).
pub(super) async fn ship_pack(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Operator])?;
    let (parts, body) = request.into_parts();
    let bytes = read_body(&state, body).await?;
    // A body that is not an assignment is the service's to refuse, with its own problem.
    if let Some(retailer) = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|body| body.get("retailer_id").and_then(|r| r.as_str()).map(str::to_owned))
    {
        let known = match retailer.parse::<uuid::Uuid>() {
            Ok(id) => store::staff::retailer_exists(&state.pool, id).await?,
            Err(_) => false,
        };
        if !known {
            return Err(AppError::unprocessable(codes::RETAILER_NOT_FOUND, "no retailer has that id"));
        }
    }
    let request = Request::from_parts(parts, axum::body::Body::from(bytes));
    Ok(to_service::<INSTANT>(&state, request).await)
}

/// The counter (packs, validation): retailers' terminals.
pub(super) async fn for_retailers<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Retailer])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A pack's settlement: its retailer's terminal (the service checks it is theirs) or operators.
pub(super) async fn for_pack_holders<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Retailer, Role::Operator])?;
    Ok(to_service::<S>(&state, request).await)
}

/// The audit chains and the operators' reports: operators, auditors and services.
pub(super) async fn for_staff<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// Passes a request to the ledger once its caller is known and allowed there.
pub(crate) async fn pass_to_ledger(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(LEDGER_ROLES)?;
    // An operator's cash deposit into a player's wallet meets the player's standing as the
    // player's own deposit does (issue 47 §4): refused while play is suspended. The ledger's
    // route stays open to services (a provider's confirmed deposit is credited whatever came
    // after it).
    let request = if request.method() == axum::http::Method::POST
        && request.uri().path() == ledger_api::CASH_DEPOSITS_PATH
        && caller.0.role == Role::Operator
    {
        let (parts, body) = request.into_parts();
        let bytes = read_body(&state, body).await?;
        let wallet = serde_json::from_slice::<serde_json::Value>(&bytes).ok().and_then(|b| {
            b.get("account_id").and_then(|a| a.as_str()).and_then(|a| a.parse::<uuid::Uuid>().ok())
        });
        if let Some(wallet) = wallet
            && let Some(player) = store::players::by_wallet(&state.pool, wallet).await?
        {
            let standing = crate::standing::PlayStanding::of(&player, chrono::Utc::now());
            if let Some(refused) = standing.standing.refusal(standing.resumes_at, "this player is") {
                return Err(refused);
            }
        }
        Request::from_parts(parts, axum::body::Body::from(bytes))
    } else {
        request
    };
    Ok(state.ledger.upstream().forward(request, state.body_limit).await.into_response())
}

/// Counts a stake the gateway's checks held back (`stakes_held_back_total`).
fn held_back(refusal: &AppError) {
    if refusal.status().is_client_error() {
        platform::metrics::count_stake_held_back(refusal.code());
    }
}
