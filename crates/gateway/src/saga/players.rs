//! Players: registration (18 or older, with a wallet opened in the ledger) and deposit limits
//! (self-exclusion is [`super::protection`]). Deposits themselves are [`super::payments`].

use chrono::Utc;
use domain::eligibility::{MAXIMUM_AGE_YEARS, MINIMUM_AGE_YEARS, is_of_playing_age, is_plausible_birth_date};
use platform::AppError;
use platform::auth::Role;
use platform::codes;
use platform::events::{self, Event, Kind};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::credentials::{checked_email, validate_password};
use crate::saga::mail::Letter;
use crate::store::players::{self as store, LimitKind, NewPlayer};
use crate::views::players::{
    DepositLimit, LimitPeriod, LimitRequest, Player, Registration, RegistrationAccepted,
};

/// How long a raised (or removed) limit waits before it applies.
pub const LIMIT_RAISE_DELAY_HOURS: i64 = 24;

/// A date of birth in the past, plausible, and of playing age (K.A.R. 111-5-24(c)).
fn check_birth_date(born: chrono::NaiveDate) -> Result<(), AppError> {
    let today = Utc::now().date_naive();
    if !is_plausible_birth_date(born, today) {
        return Err(AppError::unprocessable(
            codes::INVALID_DATE_OF_BIRTH,
            format!("a date of birth is in the past and at most {MAXIMUM_AGE_YEARS} years ago"),
        ));
    }
    if !is_of_playing_age(born, today) {
        return Err(AppError::unprocessable(
            codes::UNDER_AGE,
            format!("players must be {MINIMUM_AGE_YEARS} or older (K.A.R. 111-5-24(c))"),
        ));
    }
    Ok(())
}

/// A person who may not open an account: on a state's or the operator's exclusion list (the
/// refusal logged against the entry, ADR 0014 §5), or a player on a break, excluded, closed or
/// listed, under another way of writing the same address (issue 47 §3: the same person is the
/// same address as a person reads it, born the same day).
async fn refuse_a_suspended_person(
    state: &GatewayState,
    email: &str,
    email_key: &str,
    born: chrono::NaiveDate,
) -> Result<(), AppError> {
    if let Some(entry) = crate::store::exclusions::matching(&state.pool, email_key, born).await? {
        crate::store::exclusions::log_refused_registration(&state.pool, entry, email).await?;
        return Err(AppError::new(
            axum::http::StatusCode::FORBIDDEN,
            codes::EXCLUDED_BY_LIST,
            "this person is on an exclusion list and cannot open an account",
        ));
    }
    let now = Utc::now();
    for row in store::same_person(&state.pool, email_key, born).await? {
        let standing = crate::standing::PlayStanding::of(&row, now);
        if let Some(refused) = standing.standing.refusal(standing.resumes_at, "an account of yours is") {
            tracing::warn!(player = %row.id, "a suspended player's address, written another way, was refused a new account");
            return Err(refused);
        }
    }
    Ok(())
}

/// Registers a player with a wallet, and mails the link that proves the address; K.A.R.
/// 111-5-24(c) refuses those under 18. An address that has an account answers the same (so
/// nobody learns who plays from this door) and the address is told instead. Both ways hash the
/// password, and both answer no sooner than [`REGISTRATION_FLOOR`] (a new address also opens a
/// wallet, 1.3 ms more here than a taken one's letter), so both take the same time (ADR 0018).
pub(crate) async fn register(
    state: &GatewayState,
    request: Registration,
) -> Result<RegistrationAccepted, AppError> {
    crate::saga::links::no_sooner_than(REGISTRATION_FLOOR, register_now(state, request)).await
}

/// How long a registration takes at least: above what hashing the password and the rest take
/// here (26-29 ms at the median, 31 ms at the 90th percentile; `cargo bench -p gateway --bench
/// registration`).
const REGISTRATION_FLOOR: std::time::Duration = std::time::Duration::from_millis(60);

async fn register_now(state: &GatewayState, request: Registration) -> Result<RegistrationAccepted, AppError> {
    let email = checked_email(&request.email)?;
    let email_key = domain::text::email_match_key(&email);
    validate_password(&request.password, &email)?;
    check_birth_date(request.date_of_birth)?;
    refuse_a_suspended_person(state, &email, &email_key, request.date_of_birth).await?;
    let accepted = RegistrationAccepted::to(&email);
    let password_hash = state.passwords.hash(request.password).await?;
    let id = Uuid::now_v7();
    let wallet_id = Uuid::now_v7();
    let new = NewPlayer {
        id,
        email: &email,
        email_key: &email_key,
        password_hash: &password_hash,
        date_of_birth: request.date_of_birth,
        wallet: wallet_id,
    };
    // The player, its wallet and its first letter go in together: of concurrent registrations
    // of one address only the one whose row went in opens a wallet, and a wallet that cannot be
    // opened takes its player back out (the transaction is not committed).
    let mut tx = state.pool.begin().await?;
    if !store::insert(&mut tx, &new).await? {
        let letter = Letter::already_registered(Utc::now(), &state.mail.site);
        crate::saga::mail::write(state, &mut tx, &email, None, &letter).await?;
        tx.commit().await?;
        return Ok(accepted);
    }
    state
        .ledger
        .open_accounts(&id.to_string(), &[(wallet_id, ledger_api::AccountKind::PlayerWallet)])
        .await?;
    crate::saga::links::send_verification(state, &mut tx, id, &email).await?;
    #[derive(serde::Serialize)]
    struct Registered {
        wallet: Uuid,
        /// K.A.R. 111-5-24(c): the date of birth given was checked as 18 or over.
        of_age: bool,
    }
    let registered =
        Event::new(Kind::Registration, &Registered { wallet: wallet_id, of_age: true })?.player(id);
    events::record(&mut tx, crate::SCHEMA, &registered).await?;
    tx.commit().await?;
    Ok(accepted)
}

/// Player `id`, or 404.
pub(crate) async fn load_player(state: &GatewayState, id: Uuid) -> Result<Player, AppError> {
    store::get(&state.pool, id)
        .await?
        .map(Player::from)
        .ok_or_else(|| AppError::not_found(codes::PLAYER_NOT_FOUND, format!("player {id} does not exist")))
}

/// The caller as a player, or 403.
pub(crate) async fn the_player(state: &GatewayState, caller: &Authenticated) -> Result<Player, AppError> {
    caller.require(&[Role::Player])?;
    load_player(state, caller.subject_id()?).await
}

/// The deposit limits of a player, with raises whose delay has passed already applied.
pub(crate) async fn limits(state: &GatewayState, player: Uuid) -> Result<Vec<DepositLimit>, AppError> {
    let rows = store::limits(&state.pool, player, LimitKind::Deposit).await?;
    Ok(LimitPeriod::ALL
        .into_iter()
        .map(|period| DepositLimit::of(period, rows.iter().find(|r| r.period == period.as_str())))
        .collect())
}

/// Sets one of the caller's deposit limits: lowering applies at once (and cancels a raise
/// waiting), raising or removing after [`LIMIT_RAISE_DELAY_HOURS`]. Answers the limits now.
pub(crate) async fn set_limit(
    state: &GatewayState,
    caller: &Authenticated,
    request: LimitRequest,
) -> Result<Vec<DepositLimit>, AppError> {
    let player = the_player(state, caller).await?;
    if request.amount.is_some_and(|a| a <= 0) {
        return Err(AppError::unprocessable(codes::INVALID_AMOUNT, "a limit is a positive number of cents"));
    }
    set_player_limit(state, player.id, LimitKind::Deposit, request.period, request.amount).await?;
    let words = match request.amount {
        Some(cents) => {
            format!("a {} deposit limit of {}", request.period.as_str(), domain::money::dollars(cents))
        }
        None => format!("no {} deposit limit", request.period.as_str()),
    };
    let letter = Letter::limit_changed(&words, false, &state.protection.help_line);
    crate::saga::mail::tell(state, player.id, &player.email, &letter).await?;
    limits(state, player.id).await
}

/// Sets `player`'s `kind` limit of `period` to `amount` (`None`: removes it) by the player's
/// rule: a lowering (or a first limit) at once, cancelling a raise waiting; a raise or removal
/// after [`LIMIT_RAISE_DELAY_HOURS`].
pub(crate) async fn set_player_limit(
    state: &GatewayState,
    player: Uuid,
    kind: LimitKind,
    period: LimitPeriod,
    amount: Option<i64>,
) -> Result<(), AppError> {
    let rows = store::limits(&state.pool, player, kind).await?;
    let now = rows.iter().find(|r| r.period == period.as_str()).and_then(|r| r.amount);
    let lowers = match (now, amount) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(old), Some(new)) => new <= old,
    };
    let delay = i32::try_from(LIMIT_RAISE_DELAY_HOURS).unwrap_or(24);
    let mut tx = state.pool.begin().await?;
    match amount {
        Some(amount) if lowers => store::lower_limit(&mut tx, player, kind, period.as_str(), amount).await?,
        amount => store::raise_limit(&mut tx, player, kind, period.as_str(), amount, delay).await?,
    }
    #[derive(serde::Serialize)]
    struct LimitChanged<'a> {
        kind: &'a str,
        period: &'a str,
        source: &'a str,
        before: Option<i64>,
        after: Option<i64>,
        applies_in_seconds: i64,
    }
    let changed = LimitChanged {
        kind: kind.as_str(),
        period: period.as_str(),
        source: "player",
        before: now,
        after: amount,
        applies_in_seconds: if lowers { 0 } else { i64::from(delay) * 3600 },
    };
    events::record(&mut tx, crate::SCHEMA, &Event::new(Kind::LimitChange, &changed)?.player(player)).await?;
    tx.commit().await?;
    Ok(())
}
