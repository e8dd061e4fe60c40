//! Players: registration (18 or older, with a wallet opened in the ledger), their own profile,
//! wallet and history, deposit limits, and responsible gaming (deposits themselves are
//! [`crate::payments`]).

use axum::extract::State;
use chrono::{DateTime, Months, NaiveDate, Utc};
use domain::eligibility::{MAXIMUM_AGE_YEARS, MINIMUM_AGE_YEARS, is_of_playing_age, is_plausible_birth_date};
use platform::auth::Role;
use platform::openapi::Refused;
use platform::{AppError, Json, PageParams, Path, Query};
use serde::{Deserialize, Serialize};

use crate::store::players::{self as store, NewPlayer};
use uuid::Uuid;

use crate::GatewayState;
use crate::credentials::{hash_password, validate_password};
use crate::sessions::{Authenticated, PlayerSession, end_sessions};

/// Namespace of ids the gateway derives (deposit transfer ids from a player's idempotency key).
pub const GATEWAY_NAMESPACE: Uuid = Uuid::from_u128(0x6761_7465_7761_7940_8000_6c6f_7474_6f21);

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    pub email: String,
    pub password: String,
    pub date_of_birth: NaiveDate,
}

/// A player as they (and operators) see themselves.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Player {
    pub id: Uuid,
    pub email: String,
    pub date_of_birth: NaiveDate,
    pub wallet_account_id: Uuid,
    pub last_login_at: Option<DateTime<Utc>>,
    pub self_excluded_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

fn valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && email.len() <= 254
        && !email.chars().any(char::is_whitespace)
}

/// `POST /v1/players`: anyone may register; K.A.R. 111-5-24(c) refuses those under 18.
#[utoipa::path(
    post, path = "/v1/players", tag = "players", request_body = Registration,
    responses((status = 201, description = "registered, with a wallet", body = Player), (status = "4XX", response = Refused))
)]
pub async fn register(
    State(state): State<GatewayState>,
    Json(request): Json<Registration>,
) -> Result<axum::response::Response, AppError> {
    let email = request.email.trim().to_lowercase();
    if !valid_email(&email) {
        return Err(AppError::unprocessable("invalid_email", "that is not an email address"));
    }
    validate_password(&request.password, &email)?;
    let today = Utc::now().date_naive();
    if !is_plausible_birth_date(request.date_of_birth, today) {
        return Err(AppError::unprocessable(
            "invalid_date_of_birth",
            format!("a date of birth is in the past and at most {MAXIMUM_AGE_YEARS} years ago"),
        ));
    }
    if !is_of_playing_age(request.date_of_birth, today) {
        return Err(AppError::unprocessable(
            "under_age",
            format!("players must be {MINIMUM_AGE_YEARS} or older (K.A.R. 111-5-24(c))"),
        ));
    }
    if store::email_taken(&state.pool, &email).await? {
        return Err(email_taken());
    }
    let id = Uuid::now_v7();
    let wallet_id = Uuid::now_v7();
    let password_hash = hash_password(request.password).await?;
    // The player first, then the wallet: of concurrent registrations of one email only the one
    // whose row went in opens a wallet, and a wallet that cannot be opened takes its player back
    // out, so there is never a wallet without a player nor a player without a wallet.
    let new = NewPlayer {
        id,
        email: &email,
        password_hash: &password_hash,
        date_of_birth: request.date_of_birth,
        wallet: wallet_id,
    };
    if !store::insert(&state.pool, &new).await? {
        return Err(email_taken());
    }
    let opened = state
        .ledger
        .open_accounts(&id.to_string(), &[(wallet_id, ledger_api::AccountKind::PlayerWallet)])
        .await;
    if let Err(e) = opened {
        store::delete(&state.pool, id).await?;
        return Err(e);
    }
    let location = format!("/v1/players/{id}");
    Ok(platform::http::created(load_player(&state, id).await?, &location))
}

fn email_taken() -> AppError {
    AppError::conflict("email_taken", "an account with that email already exists")
}

pub async fn load_player(state: &GatewayState, id: Uuid) -> Result<Player, AppError> {
    let row = store::get(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found("player_not_found", format!("player {id} does not exist")))?;
    Ok(Player {
        id: row.id,
        email: row.email,
        date_of_birth: row.date_of_birth,
        wallet_account_id: row.wallet_account_id,
        last_login_at: row.last_login_at,
        self_excluded_until: row.self_excluded_until,
        created_at: row.created_at,
    })
}

/// `GET /v1/me`: who the caller is; a player also gets their profile.
#[utoipa::path(
    get, path = "/v1/me", tag = "players",
    responses((status = 200, description = "the caller's subject and role; a player's profile under `player`", body = Me), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn me(State(state): State<GatewayState>, caller: Authenticated) -> Result<Json<Me>, AppError> {
    let player = match caller.0.role {
        Role::Player => Some(load_player(&state, caller.subject_id()?).await?),
        _ => None,
    };
    Ok(Json(Me { subject: caller.0.sub.clone(), role: caller.0.role, player }))
}

/// Who the caller is.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Me {
    /// A player id, terminal id, staff id or service name.
    pub subject: String,
    pub role: Role,
    /// A player's own profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<Player>,
}

/// A self-exclusion in force.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SelfExclusion {
    pub self_excluded_until: DateTime<Utc>,
}

/// The caller as a player, or 403.
pub(crate) async fn the_player(state: &GatewayState, caller: &Authenticated) -> Result<Player, AppError> {
    caller.require(&[Role::Player])?;
    load_player(state, caller.subject_id()?).await
}

/// `GET /v1/me/wallet`: the ledger account, read with the player's own token, so the ledger
/// itself checks the wallet is theirs.
#[utoipa::path(
    get, path = "/v1/me/wallet", tag = "players",
    responses((status = 200, description = "the player's ledger account", body = ledger_api::wire::Account), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn wallet(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<ledger_api::wire::Account>, AppError> {
    let player = the_player(&state, &caller).await?;
    let token = bearer_of(&caller, &state)?;
    Ok(Json(state.ledger.account_as(&token, player.wallet_account_id).await?))
}

/// `GET /v1/me/wallet/transfers?after=&limit=`.
#[utoipa::path(
    get, path = "/v1/me/wallet/transfers", tag = "players", params(PageParams),
    responses((status = 200, description = "a page of the wallet's transfers, in journal order", body = ledger_api::wire::Page<ledger_api::wire::HistoryEntry>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn wallet_history(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(page): Query<PageParams>,
) -> Result<Json<ledger_api::wire::Page<ledger_api::wire::HistoryEntry>>, AppError> {
    let player = the_player(&state, &caller).await?;
    let (after, limit) = (page.after::<i64>()?, page.limit()?);
    let token = bearer_of(&caller, &state)?;
    Ok(Json(state.ledger.history_as(&token, player.wallet_account_id, after, limit).await?))
}

/// A token for the caller to present downstream (a fresh one, same subject and role).
fn bearer_of(caller: &Authenticated, state: &GatewayState) -> Result<String, AppError> {
    state.tokens.issue(&caller.0.sub, caller.0.role, caller.0.sid, std::time::Duration::from_secs(60))
}

/// The periods a deposit limit can cover; windows are rolling (the last 24 hours, 7 days, 30 days).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitPeriod {
    Daily,
    Weekly,
    Monthly,
}

impl LimitPeriod {
    const ALL: [LimitPeriod; 3] = [LimitPeriod::Daily, LimitPeriod::Weekly, LimitPeriod::Monthly];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LimitPeriod::Daily => "daily",
            LimitPeriod::Weekly => "weekly",
            LimitPeriod::Monthly => "monthly",
        }
    }

    pub(crate) fn window_days(self) -> i32 {
        match self {
            LimitPeriod::Daily => 1,
            LimitPeriod::Weekly => 7,
            LimitPeriod::Monthly => 30,
        }
    }
}

/// How long a raised (or removed) limit waits before it applies.
pub const LIMIT_RAISE_DELAY_HOURS: i64 = 24;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitRequest {
    pub period: LimitPeriod,
    /// Cents; `null` removes the limit (after the delay, as a raise).
    pub amount: Option<i64>,
}

#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DepositLimit {
    pub period: LimitPeriod,
    /// The limit in force now (`null`: none).
    pub amount: Option<i64>,
    /// A raise waiting to apply, and when.
    pub pending_amount: Option<i64>,
    pub pending_removal: bool,
    pub pending_from: Option<DateTime<Utc>>,
}

/// The limits of a player, with raises whose delay has passed already applied.
pub(crate) async fn limits(state: &GatewayState, player: Uuid) -> Result<Vec<DepositLimit>, AppError> {
    let rows = store::deposit_limits(&state.pool, player).await?;
    Ok(LimitPeriod::ALL
        .into_iter()
        .map(|period| match rows.iter().find(|r| r.period == period.as_str()) {
            Some(r) => DepositLimit {
                period,
                amount: r.amount,
                pending_amount: r.pending_amount,
                pending_removal: r.pending_none,
                pending_from: r.pending_from,
            },
            None => DepositLimit {
                period,
                amount: None,
                pending_amount: None,
                pending_removal: false,
                pending_from: None,
            },
        })
        .collect())
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
    let player = the_player(&state, &caller).await?;
    Ok(Json(limits(&state, player.id).await?))
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
    let player = the_player(&state, &caller).await?;
    if request.amount.is_some_and(|a| a <= 0) {
        return Err(AppError::unprocessable("invalid_amount", "a limit is a positive number of cents"));
    }
    let current = limits(&state, player.id).await?;
    let now = current.iter().find(|l| l.period == request.period).and_then(|l| l.amount);
    let lowers = match (now, request.amount) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(old), Some(new)) => new <= old,
    };
    match request.amount {
        // In force now, and it cancels any raise that was waiting.
        Some(amount) if lowers => {
            store::lower_limit(&state.pool, player.id, request.period.as_str(), amount).await?;
        }
        amount => {
            let delay = i32::try_from(LIMIT_RAISE_DELAY_HOURS).unwrap_or(24);
            store::raise_limit(&state.pool, player.id, request.period.as_str(), amount, delay).await?;
        }
    }
    Ok(Json(limits(&state, player.id).await?))
}

/// The self-exclusion periods a player may choose.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
pub enum ExclusionPeriod {
    #[serde(rename = "6_months")]
    SixMonths,
    #[serde(rename = "1_year")]
    OneYear,
    #[serde(rename = "5_years")]
    FiveYears,
}

impl ExclusionPeriod {
    fn months(self) -> u32 {
        match self {
            ExclusionPeriod::SixMonths => 6,
            ExclusionPeriod::OneYear => 12,
            ExclusionPeriod::FiveYears => 60,
        }
    }
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExclusionRequest {
    pub period: ExclusionPeriod,
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
    let player = the_player(&state, &caller).await?;
    let until = Utc::now()
        .checked_add_months(Months::new(request.period.months()))
        .ok_or_else(|| AppError::internal("date overflow"))?;
    // Never shortens an exclusion already in force.
    let until = store::exclude_until(&state.pool, player.id, until).await?;
    end_sessions(&state, &player.id.to_string(), None, "self_exclusion").await?;
    Ok(Json(SelfExclusion { self_excluded_until: until }))
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
    Ok(Json(load_player(&state, id).await?))
}
