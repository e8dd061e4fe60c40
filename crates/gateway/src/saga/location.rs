//! Where the player is (issue 49 §Location; the US iLottery and iGaming geolocation rules): the
//! geolocation provider checks the device the player plays from, and an online stake passes only
//! on a check of this login that placed it in the jurisdiction, taken from the address the
//! login's requests come from now, not older than `LOTTO_LOCATION_MAX_AGE_S` (20 minutes). A
//! new address needs a new check. Every check is kept with its result. Sales at a till are not
//! checked: the till is the location.

use std::net::IpAddr;

use axum::http::{Method, StatusCode};
use chrono::{DateTime, Utc};
use platform::AppError;
use platform::codes;
use platform::events::{self, Event, Kind};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::store::location::{self as store, CheckRow, NewCheck};
use crate::views::location::{
    LocationCheckRequest, LocationCheckView, LocationResult, ProviderLocation, ProviderLocationRequest,
};

/// Checks the caller's device through the provider, from `ip`; the check, kept whatever it found.
pub(crate) async fn check(
    state: &GatewayState,
    caller: &Authenticated,
    ip: Option<IpAddr>,
    request: LocationCheckRequest,
) -> Result<LocationCheckView, AppError> {
    let player = caller.subject_id()?;
    let session = login_of(caller)?;
    let packet = &request.packet;
    if packet.is_empty()
        || packet.len() > 4096
        || !packet.chars().all(|c| c.is_ascii_alphanumeric() || "_.:/+=-".contains(c))
    {
        return Err(AppError::unprocessable(
            codes::INVALID_LOCATION_PACKET,
            "a location packet is 1 to 4096 letters, digits and _ . : / + = -",
        ));
    }
    let location = &state.location;
    let provider = location
        .provider
        .as_ref()
        .ok_or_else(|| AppError::unavailable("no geolocation provider is configured here"))?;
    let ip = ip.map(|ip| ip.to_string());
    let asked = ProviderLocationRequest {
        reference: session,
        ip: ip.clone(),
        packet: packet.clone(),
        jurisdiction: location.jurisdiction.clone(),
    };
    let found: ProviderLocation =
        provider.call(Method::POST, "/v1/location/checks", &location.api_key, Some(&asked), None).await?;
    let reason: String = found.reason.chars().take(500).collect();
    let provider_ref: String = found.id.chars().take(200).collect();
    let check = NewCheck {
        session,
        player,
        ip: ip.as_deref(),
        result: found.result.as_str(),
        jurisdiction: &location.jurisdiction,
        reason: &reason,
        provider_ref: &provider_ref,
    };
    let mut tx = state.pool.begin().await?;
    let row = store::insert(&mut tx, &check).await?;
    let event = Event::new(Kind::LocationCheck, &check)?.player(player);
    events::record(&mut tx, crate::SCHEMA, &event).await?;
    tx.commit().await?;
    view(state, row)
}

/// The last check of the caller's login, or 404.
pub(crate) async fn mine(
    state: &GatewayState,
    caller: &Authenticated,
) -> Result<LocationCheckView, AppError> {
    let row = store::last_of_session(&state.pool, login_of(caller)?).await?.ok_or_else(|| {
        AppError::not_found(
            codes::LOCATION_NOT_CHECKED,
            "no location check in this login yet (POST /v1/me/location-checks)",
        )
    })?;
    view(state, row)
}

/// Player `player`'s last 100 checks, newest first (operators and auditors).
pub(crate) async fn of_player(
    state: &GatewayState,
    player: Uuid,
) -> Result<Vec<LocationCheckView>, AppError> {
    store::of_player(&state.pool, player, 100).await?.into_iter().map(|row| view(state, row)).collect()
}

/// Before an online stake in login `session`, from `ip`: passes on a check of this login, from
/// this address, that placed the device in the jurisdiction and is not older than the limit;
/// refuses 403 otherwise, saying why and what to do.
pub(crate) async fn require_located(
    state: &GatewayState,
    session: Uuid,
    ip: Option<IpAddr>,
) -> Result<(), AppError> {
    let location = &state.location;
    if !location.required {
        return Ok(());
    }
    let refuse = |code, why: String| Err(AppError::new(StatusCode::FORBIDDEN, code, why));
    let Some(last) = store::last_of_session(&state.pool, session).await? else {
        return refuse(
            codes::LOCATION_REQUIRED,
            format!(
                "online play needs a location check that places you in {}: allow the check on this device \
                 (POST /v1/me/location-checks), then play",
                location.jurisdiction
            ),
        );
    };
    if last.ip != ip.map(|ip| ip.to_string()) {
        return refuse(
            codes::LOCATION_REQUIRED,
            "your network address changed since your last location check (a new Wi-Fi or mobile network): \
             check your location again, then play"
                .to_owned(),
        );
    }
    if LocationResult::parse(&last.result) != Some(LocationResult::Inside) {
        return refuse(
            codes::LOCATION_OUTSIDE,
            format!(
                "your last location check did not place you in {}: {}. Online play is only open there; \
                 check again once you are (without a VPN or proxy)",
                location.jurisdiction, last.reason
            ),
        );
    }
    if expires_at(state, last.checked_at) <= Utc::now() {
        return refuse(
            codes::LOCATION_EXPIRED,
            format!(
                "your last location check is more than {} minutes old: check your location again, then play",
                location.max_age.as_secs() / 60
            ),
        );
    }
    Ok(())
}

/// The login a player's token stands for (a location check is for one login).
fn login_of(caller: &Authenticated) -> Result<Uuid, AppError> {
    caller.0.sid.ok_or_else(|| {
        AppError::new(
            StatusCode::FORBIDDEN,
            codes::LOCATION_REQUIRED,
            "a location check is for a player's login: log in first",
        )
    })
}

fn expires_at(state: &GatewayState, checked_at: DateTime<Utc>) -> DateTime<Utc> {
    checked_at + chrono::Duration::from_std(state.location.max_age).unwrap_or(chrono::Duration::zero())
}

fn view(state: &GatewayState, row: CheckRow) -> Result<LocationCheckView, AppError> {
    let result = LocationResult::parse(&row.result)
        .ok_or_else(|| AppError::internal(format!("a location check's result is {:?}", row.result)))?;
    Ok(LocationCheckView {
        id: row.id,
        session_id: row.session_id,
        result,
        jurisdiction: row.jurisdiction,
        reason: row.reason,
        ip: row.ip,
        expires_at: expires_at(state, row.checked_at),
        checked_at: row.checked_at,
    })
}
