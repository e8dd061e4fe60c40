//! Logging in, renewing and logging out ([`crate::saga::sessions`]).

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, Json};

use crate::GatewayState;
use crate::auth::{Authenticated, end_sessions};
use crate::saga::sessions as saga;
use crate::views::sessions::{
    EnrolmentConfirmation, EnrolmentConfirmed, EnrolmentRequest, EnrolmentView, LoginRequest, LoginResponse,
    RefreshRequest,
};

/// A session's tokens: 201, never stored by a cache.
type Tokens = (StatusCode, [(HeaderName, HeaderValue); 2], Json<LoginResponse>);

fn tokens(issued: saga::Issued) -> Tokens {
    let response = LoginResponse {
        access_token: issued.access_token,
        token_type: "Bearer".to_owned(),
        expires_in: issued.expires_in,
        refresh_token: issued.refresh_token,
        session_expires_at: issued.session_expires_at,
        idle_timeout_seconds: issued.idle_timeout_seconds,
        role: issued.role,
        subject: issued.subject,
        previous_login_at: issued.previous_login_at,
        place: issued.place,
    };
    (StatusCode::CREATED, platform::http::no_store(), Json(response))
}

#[utoipa::path(
    post, path = "/v1/sessions", tag = "sessions", request_body = LoginRequest,
    responses((status = 201, description = "logged in", body = LoginResponse), (status = "4XX", response = Refused))
)]
/// `POST /v1/sessions`: logs in a player (email and password), a staff member (username and
/// password) or a terminal (its API key); answers an access token.
pub async fn login(
    State(state): State<GatewayState>,
    Json(request): Json<LoginRequest>,
) -> Result<Tokens, AppError> {
    Ok(tokens(saga::login(&state, request).await?))
}

#[utoipa::path(
    post, path = "/v1/sessions/refresh", tag = "sessions", request_body = RefreshRequest,
    responses((status = 201, description = "renewed: a new access token and the next refresh token (the one sent is used up)", body = LoginResponse),
              (status = "4XX", response = Refused))
)]
/// `POST /v1/sessions/refresh`: a refresh token traded for a new access token and the next
/// refresh token. Refused with `session_idle` after the idle timeout without a request,
/// `session_expired` at the session's end, `session_ended` after a logout or an exclusion, and
/// `refresh_token_reused` (ending the session) when the token was used before.
pub async fn refresh(
    State(state): State<GatewayState>,
    Json(request): Json<RefreshRequest>,
) -> Result<Tokens, AppError> {
    Ok(tokens(saga::renew(&state, &request.refresh_token).await?))
}

/// `DELETE /v1/sessions/current`: logs out the session of the token presented.
#[utoipa::path(
    delete, path = "/v1/sessions/current", tag = "sessions",
    responses((status = 204, description = "logged out: the token no longer works"), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn logout(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<StatusCode, AppError> {
    let sid =
        caller.0.sid.ok_or_else(|| AppError::bad_request(codes::NO_SESSION, "this token has no session"))?;
    end_sessions(&state, &caller.0.sub, Some(sid), "logout").await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /v1/staff/second-factor/enrolment`: a staff member's second factor begun, with their
/// username and password: the secret, shown this once (a QR code for an authenticator app).
#[utoipa::path(
    post, path = "/v1/staff/second-factor/enrolment", tag = "sessions", operation_id = "begin_second_factor", request_body = EnrolmentRequest,
    responses((status = 201, description = "the secret, shown once: confirm it with a code within ten minutes", body = EnrolmentView), (status = "4XX", response = Refused))
)]
pub async fn begin_enrolment(
    State(state): State<GatewayState>,
    Json(request): Json<EnrolmentRequest>,
) -> Result<(StatusCode, [(HeaderName, HeaderValue); 2], Json<EnrolmentView>), AppError> {
    let shown = saga::begin_enrolment(&state, request).await?;
    Ok((StatusCode::CREATED, platform::http::no_store(), Json(shown)))
}

/// `POST /v1/staff/second-factor/enrolment/confirm`: the secret shown confirmed with the app's
/// code: enrolled, logged in, and the ten recovery codes answered this once.
#[utoipa::path(
    post, path = "/v1/staff/second-factor/enrolment/confirm", tag = "sessions", operation_id = "confirm_second_factor", request_body = EnrolmentConfirmation,
    responses((status = 201, description = "enrolled and logged in; the recovery codes, shown once", body = EnrolmentConfirmed), (status = "4XX", response = Refused))
)]
pub async fn confirm_enrolment(
    State(state): State<GatewayState>,
    Json(request): Json<EnrolmentConfirmation>,
) -> Result<(StatusCode, [(HeaderName, HeaderValue); 2], Json<EnrolmentConfirmed>), AppError> {
    let (issued, recovery_codes) = saga::confirm_enrolment(&state, request).await?;
    let (_, _, Json(session)) = tokens(issued);
    Ok((
        StatusCode::CREATED,
        platform::http::no_store(),
        Json(EnrolmentConfirmed { recovery_codes, session }),
    ))
}
