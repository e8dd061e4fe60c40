//! Who is calling, and whether their session still stands: the extractors every gateway handler
//! takes ([`Authenticated`], [`PlayerSession`]), the sessions ended early, and each session's
//! last request.
//!
//! Logging out, self-excluding or revoking a terminal ends sessions; the gateway then refuses
//! their tokens at once. Every replica keeps the ended sessions whose tokens could still be
//! valid in memory, refreshed from the database every second, so the check costs a hash lookup.
//! Every request is noted in this replica's memory ([`Activity`]) and written to its session's
//! row every second or so: the idle timeout judges on it ([`crate::saga::sessions`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;
use chrono::{DateTime, Utc};
use platform::AppError;
use platform::auth::{Caller, Claims, Role, unauthenticated};
use platform::codes;
use sqlx::PgPool;
use uuid::Uuid;

use crate::GatewayState;
use crate::rate_limit::VerifiedClaims;
use crate::store::sessions as store;

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
        platform::auth::record_caller(&claims);
        if let Some(sid) = claims.sid {
            state.activity.seen(sid);
        }
        Ok(Authenticated(claims))
    }
}

/// A caller who may or may not have logged in (a mailed link opened in a browser): `None`
/// without an `Authorization` header; a header that does not verify is refused as always.
impl OptionalFromRequestParts<GatewayState> for Authenticated {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &GatewayState,
    ) -> Result<Option<Self>, Self::Rejection> {
        if !parts.headers.contains_key(axum::http::header::AUTHORIZATION) {
            return Ok(None);
        }
        <Authenticated as FromRequestParts<GatewayState>>::from_request_parts(parts, state).await.map(Some)
    }
}

/// An authenticated player, checked before the body is read: any other role gets 403 whatever
/// it sends (the `/v1/me/...` routes that take a body).
#[derive(Debug, Clone)]
pub struct PlayerSession(pub Authenticated);

impl FromRequestParts<GatewayState> for PlayerSession {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &GatewayState) -> Result<Self, Self::Rejection> {
        let caller =
            <Authenticated as FromRequestParts<GatewayState>>::from_request_parts(parts, state).await?;
        caller.require(&[Role::Player])?;
        Ok(PlayerSession(caller))
    }
}

/// Refuses a token whose session has ended.
pub fn check_session(state: &GatewayState, claims: &Claims) -> Result<(), AppError> {
    match claims.sid {
        Some(sid) if state.ended_sessions.contains(&sid) => {
            Err(unauthenticated(codes::SESSION_ENDED, "this session has ended; log in again"))
        }
        _ => Ok(()),
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
