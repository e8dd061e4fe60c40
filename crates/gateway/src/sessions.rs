//! Logging in and out, and the session check every gateway request passes.
//!
//! A login opens a session row and returns a short-lived token that names it (`sid`), and a
//! refresh token that renews it (`crate::renewal`, which also ends idle sessions). Logging
//! out, self-excluding or revoking a terminal ends sessions; the gateway then refuses their
//! tokens at once. Every replica keeps the ended sessions whose tokens could still be valid in
//! memory, refreshed from the database every second, so the check costs a hash lookup.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use chrono::{DateTime, Utc};
use platform::auth::{Caller, Claims, Role, unauthenticated};
use platform::openapi::Refused;
use platform::{AppError, Json};
use serde::Deserialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::GatewayState;
use crate::credentials::{api_key_prefix, digest_api_key, digests_equal, verify_password};
use crate::rate_limit::VerifiedClaims;
use crate::renewal::{self, LoginResponse};
use crate::store::sessions::{self as store, Credentials};

/// Failed logins in a row that lock an account.
pub const LOCKOUT_AFTER_FAILURES: i32 = 5;
/// How long a locked account stays locked.
pub const LOCKOUT_MINUTES: i64 = 15;

/// Sessions ended early whose tokens have not yet expired.
#[derive(Debug, Clone, Default)]
pub struct EndedSessions(Arc<RwLock<HashSet<Uuid>>>);

impl EndedSessions {
    pub fn contains(&self, sid: &Uuid) -> bool {
        self.0.read().map(|set| set.contains(sid)).unwrap_or(true)
    }

    pub(crate) fn insert_all(&self, sids: &[Uuid]) {
        if let Ok(mut set) = self.0.write() {
            set.extend(sids.iter().copied());
        }
    }

    /// Reloads the set from the database.
    pub async fn refresh(&self, pool: &PgPool) -> Result<(), sqlx::Error> {
        let ended = store::ended_ids(pool).await?;
        if let Ok(mut set) = self.0.write() {
            *set = ended.into_iter().collect();
        }
        Ok(())
    }

    /// Refreshes every `interval` until the process ends.
    pub fn spawn_refresher(&self, pool: PgPool, interval: Duration) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(interval);
            loop {
                ticker.tick().await;
                if let Err(e) = this.refresh(&pool).await {
                    tracing::warn!(error = %e, "could not refresh ended sessions");
                }
            }
        })
    }
}

/// Ends the open sessions of `subject` (all of them when `only` is None) and refuses their tokens now.
pub async fn end_sessions(
    state: &GatewayState,
    subject: &str,
    only: Option<Uuid>,
    reason: &str,
) -> Result<(), AppError> {
    let ended = store::end(&state.pool, subject, only, reason).await?;
    state.ended_sessions.insert_all(&ended);
    Ok(())
}

/// A caller whose token is valid and whose session has not ended.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Claims);

impl Authenticated {
    pub fn require(&self, roles: &[Role]) -> Result<(), AppError> {
        Caller(self.0.clone()).require(roles)
    }

    /// The subject as a UUID (players, staff and terminals are identified by one).
    pub fn subject_id(&self) -> Result<Uuid, AppError> {
        self.0.sub.parse().map_err(|_| platform::auth::forbidden())
    }
}

impl FromRequestParts<GatewayState> for Authenticated {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &GatewayState) -> Result<Self, Self::Rejection> {
        let claims = match parts.extensions.get::<VerifiedClaims>() {
            Some(VerifiedClaims(claims)) => claims.clone(),
            None => Caller::from_request_parts(parts, state).await?.0,
        };
        check_session(state, &claims)?;
        if let Some(sid) = claims.sid {
            state.activity.seen(sid);
        }
        Ok(Authenticated(claims))
    }
}

/// An authenticated player, checked before the body is read: any other role gets 403 whatever
/// it sends (the `/v1/me/...` routes that take a body).
#[derive(Debug, Clone)]
pub struct PlayerSession(pub Authenticated);

impl FromRequestParts<GatewayState> for PlayerSession {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &GatewayState) -> Result<Self, Self::Rejection> {
        let caller = Authenticated::from_request_parts(parts, state).await?;
        caller.require(&[Role::Player])?;
        Ok(PlayerSession(caller))
    }
}

/// Refuses a token whose session has ended.
pub fn check_session(state: &GatewayState, claims: &Claims) -> Result<(), AppError> {
    match claims.sid {
        Some(sid) if state.ended_sessions.contains(&sid) => {
            Err(unauthenticated("session_ended", "this session has ended; log in again"))
        }
        _ => Ok(()),
    }
}

/// `POST /v1/sessions`: one of three ways to log in.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LoginRequest {
    Player { email: String, password: String },
    Staff { username: String, password: String },
    Terminal { api_key: String },
}

fn bad_credentials() -> AppError {
    AppError::new(StatusCode::UNAUTHORIZED, "invalid_credentials", "those credentials are not valid")
}

fn locked(until: DateTime<Utc>) -> AppError {
    let seconds = (until - Utc::now()).num_seconds().max(1);
    AppError::new(
        StatusCode::FORBIDDEN,
        "account_locked",
        format!("too many failed logins; try again after {}", until.to_rfc3339()),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
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
) -> Result<(StatusCode, [(HeaderName, HeaderValue); 2], Json<LoginResponse>), AppError> {
    let (subject, role, previous, org, place) = match request {
        LoginRequest::Player { email, password } => {
            let (subject, role, previous) =
                password_login(&state, Credentials::Players, &email, password).await?;
            (subject, role, previous, None, None)
        }
        LoginRequest::Staff { username, password } => {
            let (subject, role, previous) =
                password_login(&state, Credentials::Staff, &username, password).await?;
            (subject, role, previous, None, None)
        }
        LoginRequest::Terminal { api_key } => {
            let (subject, previous, retailer) = terminal_login(&state, &api_key).await?;
            let place = renewal::terminal_place(&state.pool, &subject).await?;
            (subject, Role::Retailer, previous, Some(retailer), place)
        }
    };
    // A terminal's token names its retailer, so services know whose counter it is, and its
    // shop and label by name, so its receipts print them.
    let issued = renewal::open(&state, &subject, role, org.as_deref(), place).await?;
    Ok((
        StatusCode::CREATED,
        platform::http::no_store(),
        Json(LoginResponse::of(issued, role, subject, previous)),
    ))
}

/// Checks a player's or staff member's password, with lockout after repeated failures.
async fn password_login(
    state: &GatewayState,
    whose: Credentials,
    login: &str,
    password: String,
) -> Result<(String, Role, Option<DateTime<Utc>>), AppError> {
    let row = store::credentials(&state.pool, whose, login.trim()).await?;
    // The hash is checked even without a row, so an unknown login takes as long as a known one.
    let matches = verify_password(password, row.as_ref().map(|r| r.password_hash.clone())).await?;
    let Some(row) = row else { return Err(bad_credentials()) };
    if let Some(until) = row.locked_until.filter(|u| *u > Utc::now()) {
        return Err(locked(until));
    }
    if !matches {
        let minutes = i32::try_from(LOCKOUT_MINUTES).unwrap_or(15);
        return Err(
            match store::failed_login(&state.pool, whose, row.id, LOCKOUT_AFTER_FAILURES, minutes).await? {
                Some(until) => locked(until),
                None => bad_credentials(),
            },
        );
    }
    if let Some(until) = row.self_excluded_until.filter(|u| *u > Utc::now()) {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            "self_excluded",
            format!("this account is self-excluded until {}", until.to_rfc3339()),
        ));
    }
    store::logged_in(&state.pool, whose, row.id).await?;
    let role = match row.role.as_str() {
        "player" => Role::Player,
        "operator" => Role::Operator,
        "auditor" => Role::Auditor,
        other => return Err(AppError::internal(format!("unknown staff role {other}"))),
    };
    Ok((row.id.to_string(), role, row.last_login_at))
}

/// A terminal's API key checked: its id, when it last logged in, and its retailer.
async fn terminal_login(
    state: &GatewayState,
    api_key: &str,
) -> Result<(String, Option<DateTime<Utc>>, String), AppError> {
    let prefix = api_key_prefix(api_key).ok_or_else(bad_credentials)?;
    let key = store::terminal_key(&state.pool, prefix).await?.ok_or_else(bad_credentials)?;
    if !digests_equal(&digest_api_key(api_key), &key.key_hash) {
        return Err(bad_credentials());
    }
    if key.revoked_at.is_some() {
        return Err(AppError::new(StatusCode::UNAUTHORIZED, "key_revoked", "this API key has been revoked"));
    }
    let previous = store::last_session_of(&state.pool, &key.id.to_string()).await?;
    Ok((key.id.to_string(), previous, key.retailer_id.to_string()))
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
    let sid = caller.0.sid.ok_or_else(|| AppError::bad_request("no_session", "this token has no session"))?;
    end_sessions(&state, &caller.0.sub, Some(sid), "logout").await?;
    Ok(StatusCode::NO_CONTENT)
}
