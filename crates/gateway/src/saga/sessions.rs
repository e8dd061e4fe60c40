//! Sessions that last as long as their user plays, and no longer (architecture §7, issue 32 §2).
//!
//! A login (a player's or staff member's password, with a lockout after repeated failures, or
//! a terminal's API key) opens a session and answers two tokens: a short access token (signed,
//! verified by every service, naming its session as `sid`) and an opaque refresh token, kept
//! here only as its SHA-256. A renewal trades a refresh token for a new pair; each refresh token
//! is good once, and one presented a second time means two holders, one of them a thief: the
//! whole session ends (theft detection).
//!
//! **Idle sessions end.** A player's or staff member's session ends after `idle_timeout` without a
//! request (900 s by default: the New Jersey and Pennsylvania rules). Every request through the
//! gateway is noted ([`crate::auth::Activity`]) and written to the session's row every second or
//! so; a renewal writes this replica's notes first. An access token never outlives the idle
//! window as known when it is issued: its expiry is the earliest of its own lifetime, the last
//! request plus the idle timeout, and the session's end. So a session nobody uses cannot be kept
//! alive by renewing it: renewals do not count as requests, and a renewal after the idle window
//! ends the session (`session_idle`). Another replica's notes may be up to a flush late, so a
//! session may end that much early, never late. A terminal at a till is not idle-limited (a
//! shop waits for customers); its key can be revoked.

use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use chrono::{DateTime, Utc};
use platform::AppError;
use platform::auth::{Place, Role, unauthenticated};
use platform::codes;
use platform::events::{self, Event, Kind};
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::GatewayState;
use crate::credentials::{api_key_prefix, digest_api_key, digests_equal};
use crate::saga::mail::Letter;
use crate::store::sessions::{self as store, CredentialRow, Credentials};
use crate::views::sessions::{
    EnrolmentConfirmation, EnrolmentRequest, EnrolmentView, LoginRequest, PlayerLogin, TerminalLogin,
};

/// A session's tokens, as a login or a renewal answers them.
#[derive(Debug)]
pub struct Issued {
    pub access_token: String,
    pub expires_in: u64,
    pub refresh_token: String,
    pub session_expires_at: DateTime<Utc>,
    pub idle_timeout_seconds: Option<u64>,
    pub role: Role,
    pub subject: String,
    /// When this identity logged in before this login; `None` on a renewal.
    pub previous_login_at: Option<DateTime<Utc>>,
    /// A terminal's shop and label, as its tokens carry them.
    pub place: Option<Place>,
}

/// The session, as its tokens are cut from it.
struct Session {
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

fn bad_credentials() -> AppError {
    AppError::new(StatusCode::UNAUTHORIZED, codes::INVALID_CREDENTIALS, "those credentials are not valid")
}

fn locked(until: DateTime<Utc>) -> AppError {
    let seconds = (until - Utc::now()).num_seconds().max(1);
    AppError::new(
        StatusCode::FORBIDDEN,
        codes::ACCOUNT_LOCKED,
        format!("too many failed logins; try again after {}", domain::text::lottery_time(until)),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
}

fn invalid_refresh_token() -> AppError {
    unauthenticated(
        codes::INVALID_REFRESH_TOKEN,
        "this refresh token is not one the platform issued; log in again",
    )
}

/// Logs in a player, a staff member or a terminal, and opens its session.
pub(crate) async fn login(state: &GatewayState, request: LoginRequest) -> Result<Issued, AppError> {
    let (subject, role, previous, org, place) = match request {
        LoginRequest::Player(PlayerLogin { email, password }) => {
            let row = checked_password(state, Credentials::Players, &email, password).await?;
            let (subject, role, previous) = logged_in(state, Credentials::Players, row).await?;
            (subject, role, previous, None, None)
        }
        LoginRequest::Staff(login) => {
            let row =
                checked_password(state, Credentials::Staff, &login.username, login.password.clone()).await?;
            // Staff pass their second factor before the login counts (issue 49 §Staff).
            crate::saga::second_factor::check(state, row.id, &login).await?;
            let (subject, role, previous) = logged_in(state, Credentials::Staff, row).await?;
            (subject, role, previous, None, None)
        }
        LoginRequest::Terminal(TerminalLogin { api_key }) => {
            let (subject, previous, retailer) = terminal_login(state, &api_key).await?;
            let place = terminal_place(&state.pool, &subject).await?;
            (subject, Role::Retailer, previous, Some(retailer), place)
        }
    };
    // A terminal's token names its retailer, so services know whose counter it is, and its
    // shop and label by name, so its receipts print them.
    let issued = open(state, &subject, role, org.as_deref(), place).await?;
    Ok(Issued { previous_login_at: previous, ..issued })
}

/// Checks a player's or staff member's password, with lockout after repeated failures; their
/// credentials' row.
async fn checked_password(
    state: &GatewayState,
    whose: Credentials,
    login: &str,
    password: String,
) -> Result<CredentialRow, AppError> {
    let row = store::credentials(&state.pool, whose, login.trim()).await?;
    // The hash is checked even without a row, so an unknown login takes as long as a known one.
    let matches = state.passwords.verify(password, row.as_ref().map(|r| r.password_hash.clone())).await?;
    let Some(row) = row else {
        refused_login(state, LoginRefused::new(whose, None, "unknown")).await?;
        return Err(bad_credentials());
    };
    if let Some(until) = row.locked_until.filter(|u| *u > Utc::now()) {
        refused_login(state, LoginRefused::new(whose, Some(row.id), "locked")).await?;
        return Err(locked(until));
    }
    if !matches {
        let policy = state.sessions;
        let failures = i32::try_from(policy.lockout_after_failures).unwrap_or(i32::MAX);
        let minutes = i32::try_from(policy.lockout.as_secs() / 60).unwrap_or(i32::MAX);
        let mut tx = state.pool.begin().await?;
        let until = store::failed_login(&mut tx, whose, row.id, failures, minutes).await?;
        let refused = LoginRefused::new(whose, Some(row.id), "wrong_password");
        let mut events = vec![refused.event(Kind::LoginFailed)?];
        if until.is_some() {
            events.push(LoginRefused { reason: "too_many_failures", ..refused }.event(Kind::Lockout)?);
        }
        events::record_all(&mut tx, crate::SCHEMA, &events).await?;
        tx.commit().await?;
        return Err(match until {
            Some(until) => locked(until),
            None => bad_credentials(),
        });
    }
    Ok(row)
}

/// A sign-in refused, as the significant-events log records it.
#[derive(Debug, Clone, Copy, serde::Serialize)]
struct LoginRefused {
    /// `player`, `staff` or `terminal`.
    who: &'static str,
    #[serde(skip)]
    id: Option<Uuid>,
    /// `unknown`, `locked`, `wrong_password`, `wrong_key`, `revoked_key`, `too_many_failures`.
    reason: &'static str,
}

impl LoginRefused {
    fn new(whose: Credentials, id: Option<Uuid>, reason: &'static str) -> LoginRefused {
        let who = match whose {
            Credentials::Players => "player",
            Credentials::Staff => "staff",
        };
        LoginRefused { who, id, reason }
    }

    fn event(self, kind: Kind) -> Result<Event, AppError> {
        let event = Event::new(kind, &self)?;
        Ok(match (self.who, self.id) {
            ("player", Some(id)) => event.player(id),
            ("terminal", Some(id)) => event.terminal(id),
            (_, Some(id)) => event.staff(id),
            (_, None) => event,
        })
    }
}

/// Records a sign-in refused without changing anything else.
async fn refused_login(state: &GatewayState, refused: LoginRefused) -> Result<(), AppError> {
    let mut conn = state.pool.acquire().await?;
    events::record(&mut conn, crate::SCHEMA, &refused.event(Kind::LoginFailed)?).await
}

/// `POST /v1/staff/second-factor/enrolment`: the second factor's secret for the staff member
/// whose username and password these are, shown once ([`crate::saga::second_factor::enrol`]).
pub(crate) async fn begin_enrolment(
    state: &GatewayState,
    request: EnrolmentRequest,
) -> Result<EnrolmentView, AppError> {
    let row = checked_password(state, Credentials::Staff, &request.username, request.password).await?;
    crate::saga::second_factor::enrol(state, row.id).await
}

/// `POST /v1/staff/second-factor/enrolment/confirm`: the secret shown confirmed with a code from
/// the app; the staff member logged in, and their ten recovery codes answered, once.
pub(crate) async fn confirm_enrolment(
    state: &GatewayState,
    request: EnrolmentConfirmation,
) -> Result<(Issued, Vec<String>), AppError> {
    let row = checked_password(state, Credentials::Staff, &request.username, request.password).await?;
    let codes = crate::saga::second_factor::confirm(state, row.id, &request.code).await?;
    Ok((staff_logged_in(state, row).await?, codes))
}

/// A staff member whose password and second factor passed, logged in: their session's tokens.
async fn staff_logged_in(state: &GatewayState, row: CredentialRow) -> Result<Issued, AppError> {
    let (subject, role, previous) = logged_in(state, Credentials::Staff, row).await?;
    let issued = open(state, &subject, role, None, None).await?;
    Ok(Issued { previous_login_at: previous, ..issued })
}

/// A player or staff member whose credentials passed, logged in: the login recorded and told.
async fn logged_in(
    state: &GatewayState,
    whose: Credentials,
    row: CredentialRow,
) -> Result<(String, Role, Option<DateTime<Utc>>), AppError> {
    // A player on a break or excluded logs in (ADR 0014 §4): to see when it ends (`GET /v1/me`)
    // and to withdraw. Stakes are refused by the ledger (`play_suspended`), deposits here.
    // The player is told of the login by mail (N.J.A.C. 13:69O-1.4), unless they turned it off.
    let mut tx = state.pool.begin().await?;
    if let Some(email) = store::logged_in(&mut tx, whose, row.id).await? {
        let notice = Letter::login_notice(Utc::now(), row.last_login_at, &state.mail.site);
        crate::saga::mail::write(state, &mut tx, &email, Some(row.id), &notice).await?;
    }
    tx.commit().await?;
    if whose == Credentials::Players {
        crate::saga::protection::sync_at_login(state, row.id).await;
    }
    Ok((row.id.to_string(), row.role, row.last_login_at))
}

/// A terminal's API key checked: its id, when it last logged in, and its retailer.
async fn terminal_login(
    state: &GatewayState,
    api_key: &str,
) -> Result<(String, Option<DateTime<Utc>>, String), AppError> {
    let refused = |id, reason| LoginRefused { who: "terminal", id, reason };
    let Some(prefix) = api_key_prefix(api_key) else {
        refused_login(state, refused(None, "unknown")).await?;
        return Err(bad_credentials());
    };
    let Some(key) = store::terminal_key(&state.pool, prefix).await? else {
        refused_login(state, refused(None, "unknown")).await?;
        return Err(bad_credentials());
    };
    if !digests_equal(&digest_api_key(api_key), &key.key_hash) {
        refused_login(state, refused(Some(key.id), "wrong_key")).await?;
        return Err(bad_credentials());
    }
    if key.revoked_at.is_some() {
        refused_login(state, refused(Some(key.id), "revoked_key")).await?;
        return Err(AppError::new(
            StatusCode::UNAUTHORIZED,
            codes::KEY_REVOKED,
            "this API key has been revoked",
        ));
    }
    let previous = store::last_session_of(&state.pool, &key.id.to_string()).await?;
    Ok((key.id.to_string(), previous, key.retailer_id.to_string()))
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
    session: Session,
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
        role: session.role,
        subject: session.subject,
        previous_login_at: None,
        place: session.place,
    })
}

/// A terminal's shop (name and address) and label, by the terminal's id.
async fn terminal_place(pool: &PgPool, terminal: &str) -> Result<Option<Place>, AppError> {
    let Ok(id) = terminal.parse::<Uuid>() else { return Ok(None) };
    store::terminal_place(pool, id).await
}

/// Opens a session for a login that passed, and answers its first tokens.
async fn open(
    state: &GatewayState,
    subject: &str,
    role: Role,
    org: Option<&str>,
    place: Option<Place>,
) -> Result<Issued, AppError> {
    let sid = Uuid::now_v7();
    let mut tx = state.pool.begin().await?;
    let (expires_at, last_seen_at) =
        store::open(&mut tx, sid, subject, role, org, state.sessions.lifetime).await?;
    let refresh = new_refresh_token(&mut tx, sid).await?;
    events::record(&mut tx, crate::SCHEMA, &login_event(sid, subject, role, org)?).await?;
    tx.commit().await?;
    // A player's new login within the idle window continues the game session going on (its
    // clock, its totals and its next reality check, due or not), so that logging in again
    // does not skip a check (ADR 0014 §3).
    if role == Role::Player
        && let Ok(player) = subject.parse::<Uuid>()
    {
        crate::store::play::join_or_start(&state.pool, sid, player, state.sessions.idle_timeout, None)
            .await?;
    }
    let session = Session {
        subject: subject.to_owned(),
        role,
        org: org.map(str::to_owned),
        place,
        expires_at,
        ended_at: None,
        last_seen_at,
    };
    access_token(state, sid, session, refresh)
}

/// A sign-in that passed, as the significant-events log records it: the session it opened.
fn login_event(sid: Uuid, subject: &str, role: Role, org: Option<&str>) -> Result<Event, AppError> {
    #[derive(serde::Serialize)]
    struct Login<'a> {
        who: &'a str,
        session: Uuid,
    }
    let event = Event::new(Kind::Login, &Login { who: role.as_str(), session: sid })?;
    let id = subject.parse::<Uuid>().ok();
    Ok(match (role, id) {
        (Role::Player, Some(id)) => event.player(id),
        (Role::Retailer, _) => {
            let event = event.terminal(subject);
            match org.and_then(|o| o.parse::<Uuid>().ok()) {
                Some(retailer) => event.retailer(retailer),
                None => event,
            }
        }
        _ => event.staff(subject),
    })
}

/// A refresh token traded for a new access token and the next refresh token. Refused with
/// `session_idle` after the idle timeout without a request, `session_expired` at the session's
/// end, `session_ended` after a logout or an exclusion, and `refresh_token_reused` (ending the
/// session) when the token was used before.
pub(crate) async fn renew(state: &GatewayState, refresh_token: &str) -> Result<Issued, AppError> {
    if refresh_token.len() > 200 {
        return Err(invalid_refresh_token());
    }
    // This replica's notes of requests first: the idle window is judged on them.
    if let Err(e) = state.activity.flush(&state.pool).await {
        tracing::warn!(error = %e, "could not write the sessions' last requests before a renewal");
    }
    let hash = digest(refresh_token);
    let mut tx = state.pool.begin().await?;
    let Some(sid) = store::use_refresh_token(&mut tx, &hash).await? else {
        let reused = store::refresh_token_session(&mut tx, &hash).await?;
        tx.rollback().await?;
        return Err(match reused {
            Some((sid, subject)) => {
                crate::auth::end_sessions(state, &subject, Some(sid), "refresh_token_reused").await?;
                tracing::warn!(session = %sid, "a refresh token was used twice: its session is ended");
                unauthenticated(
                    codes::REFRESH_TOKEN_REUSED,
                    "this refresh token was used before, so another may hold it: the session is ended; log in again",
                )
            }
            None => invalid_refresh_token(),
        });
    };
    let row = store::lock(&mut tx, sid).await?;
    let session = Session {
        role: row.role,
        subject: row.subject,
        org: row.org,
        place: None,
        expires_at: row.expires_at,
        ended_at: row.ended_at,
        last_seen_at: row.last_seen_at,
    };
    if let Some(refused) = refusal(state, &mut tx, sid, &session).await? {
        tx.commit().await?;
        return Err(refused);
    }
    let next = new_refresh_token(&mut tx, sid).await?;
    tx.commit().await?;
    let place = match session.role {
        Role::Retailer => terminal_place(&state.pool, &session.subject).await?,
        _ => None,
    };
    access_token(state, sid, Session { place, ..session }, next)
}

/// Why session `sid` may not be renewed, if it may not: ended, at its end, or idle (which ends it).
async fn refusal(
    state: &GatewayState,
    tx: &mut PgConnection,
    sid: Uuid,
    session: &Session,
) -> Result<Option<AppError>, AppError> {
    let now = Utc::now();
    let idle_since =
        state.sessions.idle_timeout_of(session.role).filter(|idle| session.last_seen_at + *idle <= now).map(
            |idle| match idle.as_secs() {
                s if s >= 120 => format!("{} minutes", s / 60),
                s => format!("{s} seconds"),
            },
        );
    Ok(if session.ended_at.is_some() {
        Some(unauthenticated(codes::SESSION_ENDED, "this session has ended; log in again"))
    } else if session.expires_at <= now {
        Some(unauthenticated(codes::SESSION_EXPIRED, "this session has reached its end; log in again"))
    } else if let Some(idle) = idle_since {
        store::end_idle(tx, sid).await?;
        Some(unauthenticated(
            codes::SESSION_IDLE,
            &format!(
                "you were logged out after {idle} without activity; log in again to continue where you left off"
            ),
        ))
    } else {
        None
    })
}
