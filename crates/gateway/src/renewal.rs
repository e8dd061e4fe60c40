//! Sessions that last as long as their user plays, and no longer (DESIGN §7, issue 32 §2).
//!
//! A login opens a session and answers two tokens: a short access token (signed, verified by every
//! service) and an opaque refresh token, kept here only as its SHA-256. `POST /v1/sessions/refresh`
//! trades a refresh token for a new pair; each refresh token is good once, and one presented a
//! second time means two holders, one of them a thief: the whole session ends (theft detection).
//!
//! **Idle sessions end.** A player's or staff member's session ends after `idle_timeout` without a
//! request (900 s by default: the New Jersey and Pennsylvania rules). Every request through the
//! gateway is noted in this replica's memory ([`Activity`]) and written to the session's row in
//! batches every second or so; a refresh writes this replica's notes first. An access token never
//! outlives the idle window as known when it is issued: its expiry is the earliest of its own
//! lifetime, the last request plus the idle timeout, and the session's end. So a session nobody
//! uses cannot be kept alive by renewing it: renewals do not count as requests, and a renewal
//! after the idle window ends the session (`session_idle`). Another replica's notes may be up to
//! a flush late, so a session may end that much early, never late. A terminal at a till is not
//! idle-limited (a shop waits for customers); its key can be revoked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use chrono::{DateTime, Utc};
use platform::auth::{Place, Role, unauthenticated};
use platform::openapi::Refused;
use platform::{AppError, Json};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::GatewayState;
use crate::store::sessions as store;

/// How long sessions and their tokens last.
#[derive(Debug, Clone, Copy)]
pub struct SessionPolicy {
    /// An access token's longest life (`LOTTO_ACCESS_TOKEN_TTL_S`).
    pub access_ttl: Duration,
    /// A player's or staff member's session ends after this long without a request.
    pub idle_timeout: Duration,
    /// Any session ends this long after its login, however used (a new login starts another).
    pub lifetime: Duration,
}

impl SessionPolicy {
    /// The idle timeout of a session of `role`: none for terminals and services.
    pub fn idle_timeout_of(&self, role: Role) -> Option<Duration> {
        matches!(role, Role::Player | Role::Operator | Role::Auditor).then_some(self.idle_timeout)
    }
}

/// The requests each session made through this replica since they were last written.
#[derive(Debug, Clone, Default)]
pub struct Activity(Arc<Mutex<HashMap<Uuid, DateTime<Utc>>>>);

impl Activity {
    /// Notes a request of session `sid` now.
    pub fn seen(&self, sid: Uuid) {
        if let Ok(mut seen) = self.0.lock() {
            seen.insert(sid, Utc::now());
        }
    }

    /// Writes the notes to the sessions' rows (a note is put back if the write fails).
    pub async fn flush(&self, pool: &PgPool) -> Result<(), sqlx::Error> {
        let taken: Vec<(Uuid, DateTime<Utc>)> = match self.0.lock() {
            Ok(mut seen) => seen.drain().collect(),
            Err(_) => return Ok(()),
        };
        if taken.is_empty() {
            return Ok(());
        }
        let (ids, at): (Vec<Uuid>, Vec<DateTime<Utc>>) = taken.iter().copied().unzip();
        let written = store::note_last_seen(pool, &ids, &at).await;
        if written.is_err()
            && let Ok(mut seen) = self.0.lock()
        {
            for (sid, when) in taken {
                let kept = seen.entry(sid).or_insert(when);
                *kept = (*kept).max(when);
            }
        }
        written.map(|_| ())
    }

    /// Flushes every `interval` until the process ends.
    pub fn spawn_flusher(&self, pool: PgPool, interval: Duration) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(interval);
            loop {
                ticker.tick().await;
                if let Err(e) = this.flush(&pool).await {
                    tracing::warn!(error = %e, "could not write the sessions' last requests");
                }
            }
        })
    }
}

/// A session's tokens, as a login or a renewal answers them.
#[derive(Debug)]
pub struct Issued {
    pub access_token: String,
    pub expires_in: u64,
    pub refresh_token: String,
    pub session_expires_at: DateTime<Utc>,
    pub idle_timeout_seconds: Option<u64>,
    /// A terminal's shop and label, as its tokens carry them.
    pub place: Option<Place>,
}

#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LoginResponse {
    pub access_token: String,
    pub token_type: String,
    /// Seconds the access token lives: at most `LOTTO_ACCESS_TOKEN_TTL_S`, and never past the
    /// idle window (the last request plus `idle_timeout_seconds`) or the session's end.
    pub expires_in: u64,
    /// Trades for the next access token at `POST /v1/sessions/refresh`, once (opaque; keep it
    /// as safe as a password).
    pub refresh_token: String,
    /// When the session ends however it is used (then log in again).
    pub session_expires_at: DateTime<Utc>,
    /// The session ends after this many seconds without a request; `null` for a terminal.
    pub idle_timeout_seconds: Option<u64>,
    pub role: Role,
    pub subject: String,
    /// When this identity last logged in before now; `null` on a first login and on a renewal.
    pub previous_login_at: Option<DateTime<Utc>>,
    /// A terminal's shop (name and address) and its own label, for the till's header; `null`
    /// for players and staff.
    pub place: Option<Place>,
}

impl LoginResponse {
    /// The answer carrying `issued`.
    pub fn of(issued: Issued, role: Role, subject: String, previous_login_at: Option<DateTime<Utc>>) -> Self {
        LoginResponse {
            access_token: issued.access_token,
            token_type: "Bearer".to_owned(),
            expires_in: issued.expires_in,
            refresh_token: issued.refresh_token,
            session_expires_at: issued.session_expires_at,
            idle_timeout_seconds: issued.idle_timeout_seconds,
            role,
            subject,
            previous_login_at,
            place: issued.place,
        }
    }
}

/// The session's row, as a renewal reads it.
struct SessionRow {
    subject: String,
    role: Role,
    org: Option<String>,
    /// A terminal's names, read at each login and renewal (a shop renamed is named so within
    /// an access token's life).
    place: Option<Place>,
    expires_at: DateTime<Utc>,
    ended_at: Option<DateTime<Utc>>,
    last_seen_at: DateTime<Utc>,
}

fn digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// A new refresh token of `session`, stored as its hash; the text is shown once.
async fn new_refresh_token(conn: &mut PgConnection, session: Uuid) -> Result<String, AppError> {
    let token = format!("rt_{}", hex::encode(platform::auth::random_bytes::<32>()));
    store::keep_refresh_token(conn, &digest(&token), session).await?;
    Ok(token)
}

/// The access token of session `sid`, its life cut to the idle window and the session's end.
fn access_token(
    state: &GatewayState,
    sid: Uuid,
    session: &SessionRow,
    refresh_token: String,
) -> Result<Issued, AppError> {
    let policy = &state.sessions;
    let now = Utc::now();
    let idle = policy.idle_timeout_of(session.role);
    let mut ends = session.expires_at.min(now + policy.access_ttl);
    if let Some(idle) = idle {
        ends = ends.min(session.last_seen_at + idle);
    }
    let ttl = (ends - now).to_std().unwrap_or(Duration::ZERO).max(Duration::from_secs(1));
    let access_token = state.tokens.issue_at(
        &session.subject,
        session.role,
        Some(sid),
        session.org.as_deref(),
        session.place.as_ref(),
        ttl,
    )?;
    Ok(Issued {
        access_token,
        expires_in: ttl.as_secs(),
        refresh_token,
        session_expires_at: session.expires_at,
        idle_timeout_seconds: idle.map(|d| d.as_secs()),
        place: session.place.clone(),
    })
}

/// A terminal's shop (name and address) and label, by the terminal's id.
pub async fn terminal_place(pool: &PgPool, terminal: &str) -> Result<Option<Place>, AppError> {
    let Ok(id) = terminal.parse::<Uuid>() else { return Ok(None) };
    store::terminal_place(pool, id).await
}

/// Opens a session for a login that passed, and answers its first tokens.
pub async fn open(
    state: &GatewayState,
    subject: &str,
    role: Role,
    org: Option<&str>,
    place: Option<Place>,
) -> Result<Issued, AppError> {
    let sid = Uuid::now_v7();
    let mut tx = state.pool.begin().await?;
    let (expires_at, last_seen_at) =
        store::open(&mut tx, sid, subject, role.as_str(), org, state.sessions.lifetime).await?;
    let refresh = new_refresh_token(&mut tx, sid).await?;
    tx.commit().await?;
    let row = SessionRow {
        subject: subject.to_owned(),
        role,
        org: org.map(str::to_owned),
        place,
        expires_at,
        ended_at: None,
        last_seen_at,
    };
    access_token(state, sid, &row, refresh)
}

/// `POST /v1/sessions/refresh`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    /// The refresh token the last login or renewal answered (each is good once).
    #[schema(max_length = 200)]
    pub refresh_token: String,
}

fn invalid_refresh_token() -> AppError {
    unauthenticated(
        "invalid_refresh_token",
        "this refresh token is not one the platform issued; log in again",
    )
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
) -> Result<(StatusCode, [(HeaderName, HeaderValue); 2], Json<LoginResponse>), AppError> {
    if request.refresh_token.len() > 200 {
        return Err(invalid_refresh_token());
    }
    // This replica's notes of requests first: the idle window is judged on them.
    if let Err(e) = state.activity.flush(&state.pool).await {
        tracing::warn!(error = %e, "could not write the sessions' last requests before a renewal");
    }
    let hash = digest(&request.refresh_token);
    let mut tx = state.pool.begin().await?;
    let claimed = store::use_refresh_token(&mut tx, &hash).await?;
    let Some(sid) = claimed else {
        let reused = store::refresh_token_session(&mut tx, &hash).await?;
        tx.rollback().await?;
        return Err(match reused {
            Some((sid, subject)) => {
                end_session(&state, &subject, sid, "refresh_token_reused").await?;
                tracing::warn!(session = %sid, "a refresh token was used twice: its session is ended");
                unauthenticated(
                    "refresh_token_reused",
                    "this refresh token was used before, so another may hold it: the session is ended; log in again",
                )
            }
            None => invalid_refresh_token(),
        });
    };
    let row = store::lock(&mut tx, sid).await?;
    let session = SessionRow {
        role: Role::parse(&row.role)
            .ok_or_else(|| AppError::internal(format!("a session of role {}", row.role)))?,
        subject: row.subject,
        org: row.org,
        place: None,
        expires_at: row.expires_at,
        ended_at: row.ended_at,
        last_seen_at: row.last_seen_at,
    };
    let now = Utc::now();
    let idle_since =
        state.sessions.idle_timeout_of(session.role).filter(|idle| session.last_seen_at + *idle <= now).map(
            |idle| match idle.as_secs() {
                s if s >= 120 => format!("{} minutes", s / 60),
                s => format!("{s} seconds"),
            },
        );
    let refused = if session.ended_at.is_some() {
        Some(unauthenticated("session_ended", "this session has ended; log in again"))
    } else if session.expires_at <= now {
        Some(unauthenticated("session_expired", "this session has reached its end; log in again"))
    } else if let Some(idle) = idle_since {
        store::end_idle(&mut tx, sid).await?;
        Some(unauthenticated(
            "session_idle",
            &format!(
                "you were logged out after {idle} without activity; log in again to continue where you left off"
            ),
        ))
    } else {
        None
    };
    if let Some(refused) = refused {
        tx.commit().await?;
        return Err(refused);
    }
    let next = new_refresh_token(&mut tx, sid).await?;
    tx.commit().await?;
    let place = match session.role {
        Role::Retailer => terminal_place(&state.pool, &session.subject).await?,
        _ => None,
    };
    let session = SessionRow { place, ..session };
    let issued = access_token(&state, sid, &session, next)?;
    Ok((
        StatusCode::CREATED,
        platform::http::no_store(),
        Json(LoginResponse::of(issued, session.role, session.subject, None)),
    ))
}

/// Ends session `sid` of `subject` and refuses its tokens at once (this replica at once, the
/// others within a second, as every ended session).
async fn end_session(state: &GatewayState, subject: &str, sid: Uuid, reason: &str) -> Result<(), AppError> {
    let ended = store::end(&state.pool, subject, Some(sid), reason).await?;
    state.ended_sessions.insert_all(&ended);
    Ok(())
}
