//! Players verified before money moves (issue 49 §KYC; UK Gambling Commission LCCP 17.1.1,
//! N.J.A.C. 13:69O-1.3): the player file, the identity provider's check, and the gate every
//! deposit and every online stake passes.
//!
//! The provider is reached as a real one is: the gateway opens a **session** with the file
//! (`POST /v1/identity/sessions`), the player finishes the check on the provider's **hosted
//! page**, and the provider's **signed webhook** (HMAC-SHA256 over `"{t}.{raw body}"`, a replay
//! window, either of two secrets during a rotation) says a session was decided; the decision
//! itself is then **fetched** from the provider, never read from the webhook. Deliveries that
//! come twice are taken once (by the event's id); decisions are ordered by the provider's own
//! time, so an older one arriving late never overrides a newer one, nor an operator's.
//!
//! A file the provider sends to **review** is decided by an operator in the console with a
//! written reason, recorded as a manual decision with the staff action. A verified identity on
//! a state's or the operator's exclusion list is refused and the match recorded. The last four
//! of the SSN are sealed with ChaCha20-Poly1305 before they are stored.

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode};
use chrono::Utc;
use platform::events::{self, Event, Kind};
use platform::webhook::SIGNATURE_HEADER;
use platform::{AppError, codes};
use serde_json::json;
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::saga::players::the_player;
use crate::store::identity::{self as store, IdentityState, NewFile};
use crate::store::staff::{StaffAction, record_action};
use crate::views::identity::{
    IdentityDecision, IdentityEvent, IdentitySubmission, IdentityView, ProviderSession,
    ProviderSessionRequest,
};

/// Who decided, when the provider did.
const PROVIDER: &str = "provider";

fn invalid(why: &str) -> AppError {
    AppError::unprocessable(codes::INVALID_IDENTITY, why.to_owned())
}

/// A text field of `min..=max` characters, not all spaces and with no control characters (as
/// the contract's pattern says, reading spaces as it does), trimmed.
fn field<'a>(name: &str, text: &'a str, min: usize, max: usize) -> Result<&'a str, AppError> {
    let n = text.chars().count();
    let trimmed = text.trim_matches(domain::text::is_space);
    if n < min || n > max || trimmed.is_empty() || text.chars().any(char::is_control) {
        return Err(invalid(&format!("{name} has {min} to {max} characters, not all spaces")));
    }
    Ok(trimmed)
}

/// Whether an address line names a post office box (`PO Box 12`, `P.O. Box`, `Post Office
/// Box`, `POB 7`): a residential address is required.
pub(crate) fn is_po_box(line: &str) -> bool {
    let squeezed: String = line.to_lowercase().chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    squeezed.starts_with("pobox")
        || squeezed.contains("postofficebox")
        || (squeezed.starts_with("pob") && squeezed[3..].starts_with(|c: char| c.is_ascii_digit()))
        || line.to_lowercase().split_whitespace().any(|w| w.trim_matches('.') == "p.o.box")
}

/// The file checked: every field in form, no PO box.
fn checked(submission: &IdentitySubmission) -> Result<(), AppError> {
    field("legal_name", &submission.legal_name, 1, 200)?;
    let address = &submission.address;
    field("address.line1", &address.line1, 1, 200)?;
    if let Some(line2) = address.line2.as_deref().filter(|l| !l.is_empty()) {
        field("address.line2", line2, 1, 200)?;
    }
    field("address.city", &address.city, 1, 100)?;
    field("address.region", &address.region, 2, 50)?;
    field("address.postal_code", &address.postal_code, 3, 12)?;
    let phone = field("phone", &submission.phone, 7, 20)?;
    if !phone.chars().all(|c| c.is_ascii_digit() || " +-()".contains(c))
        || !phone.contains(|c: char| c.is_ascii_digit())
    {
        return Err(invalid("phone holds digits, spaces, +, -, ( and ) only"));
    }
    if submission.ssn_last4.as_deref().is_some_and(|s| s.len() != 4 || !s.chars().all(|c| c.is_ascii_digit()))
    {
        return Err(invalid("ssn_last4 is the last four digits of the Social Security number"));
    }
    if [Some(&address.line1), address.line2.as_ref()].into_iter().flatten().any(|l| is_po_box(l)) {
        return Err(AppError::unprocessable(
            codes::PO_BOX_ADDRESS,
            "give the address where you live: a PO box cannot be verified as a residence",
        ));
    }
    Ok(())
}

fn provider(state: &GatewayState) -> Result<&platform::upstream::Upstream, AppError> {
    state
        .identity
        .provider
        .as_ref()
        .ok_or_else(|| AppError::unavailable("no identity provider is configured here"))
}

/// Submits the caller's player file to the provider: answers it `pending`, with the provider's
/// page where the player finishes the check. The address must be confirmed first; a file being
/// checked or decided is not submitted again (only one asked for again, or expired).
pub(crate) async fn submit(
    state: &GatewayState,
    caller: &Authenticated,
    submission: IdentitySubmission,
) -> Result<IdentityView, AppError> {
    let player = the_player(state, caller).await?;
    checked(&submission)?;
    if player.email_verified_at.is_none() {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            codes::EMAIL_NOT_VERIFIED,
            "confirm your email address first: open the link we sent you (or ask for a new one)",
        ));
    }
    if let Some(file) = store::get(&state.pool, player.id).await?
        && !matches!(
            IdentityState::parse(&file.state)?,
            IdentityState::ResubmissionRequested | IdentityState::Unverified
        )
    {
        return Err(AppError::conflict(
            codes::IDENTITY_IN_PROGRESS,
            format!("your identity check is {}: it is not submitted again", file.state.replace('_', " ")),
        ));
    }
    let address = &submission.address;
    let request = ProviderSessionRequest {
        reference: player.id,
        legal_name: submission.legal_name.trim_matches(domain::text::is_space).to_owned(),
        date_of_birth: player.date_of_birth,
        address: address.clone(),
        phone: submission.phone.trim_matches(domain::text::is_space).to_owned(),
    };
    let session: ProviderSession = provider(state)?
        .call(Method::POST, "/v1/identity/sessions", &state.identity.api_key, Some(&request), None)
        .await?;
    let ssn = submission
        .ssn_last4
        .as_deref()
        .map(|s| crate::sealing::seal(&state.identity.key, s.as_bytes()))
        .transpose()?;
    let file = NewFile {
        player: player.id,
        legal_name: &request.legal_name,
        address_line1: address.line1.trim_matches(domain::text::is_space),
        address_line2: address
            .line2
            .as_deref()
            .map(|l| l.trim_matches(domain::text::is_space))
            .filter(|l| !l.is_empty()),
        city: address.city.trim_matches(domain::text::is_space),
        region: address.region.trim_matches(domain::text::is_space),
        postal_code: address.postal_code.trim_matches(domain::text::is_space),
        phone: &request.phone,
        ssn_last4: ssn,
        name_key: domain::text::name_match_key(&request.legal_name),
        ssn_digest: submission.ssn_last4.as_deref().map(|s| ssn_digest(&state.identity.key, s)),
    };
    let mut tx = state.pool.begin().await?;
    store::submit(&mut tx, &file, &session.id, &session.url).await?;
    tx.commit().await?;
    mine(state, player.id).await
}

/// Player `player`'s file, or 404.
pub(crate) async fn mine(state: &GatewayState, player: Uuid) -> Result<IdentityView, AppError> {
    let row = store::get(&state.pool, player).await?.ok_or_else(|| {
        AppError::not_found(codes::IDENTITY_NOT_FOUND, "no player file yet: submit it (PUT /v1/me/identity)")
    })?;
    IdentityView::try_from(row)
}

/// The provider's state as ours; `None` for a session not yet decided.
fn state_of_status(status: &str) -> Option<IdentityState> {
    Some(match status {
        "approved" => IdentityState::Verified,
        "declined" => IdentityState::Refused,
        "review" => IdentityState::Review,
        "resubmission_requested" => IdentityState::ResubmissionRequested,
        "expired" => IdentityState::Unverified,
        _ => return None,
    })
}

/// The provider's webhook: signed (either secret), taken once by its id; the session's decision
/// fetched from the provider and applied unless a newer one stands. Answers whether the delivery
/// was a replay.
pub(crate) async fn take_webhook(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<bool, AppError> {
    let signature = headers.get(SIGNATURE_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let now = Utc::now().timestamp();
    let tolerance = state.identity.tolerance_seconds;
    let mut verified = Err(platform::webhook::SignatureError::Malformed);
    for secret in &state.identity.webhook_secrets {
        verified = secret.verify(signature, body, now, tolerance);
        if verified.is_ok() {
            break;
        }
    }
    verified.map_err(|e| AppError::new(StatusCode::UNAUTHORIZED, codes::INVALID_SIGNATURE, e.to_string()))?;
    let event: IdentityEvent = serde_json::from_slice(body)
        .map_err(|e| AppError::unprocessable(codes::INVALID_BODY, format!("not an identity event: {e}")))?;
    if event.kind != "identity.decided" {
        return Err(AppError::unprocessable(
            codes::UNKNOWN_EVENT,
            format!("event type {:?} is not one we handle", event.kind),
        ));
    }
    if !(1..=200).contains(&event.id.len()) || !(1..=200).contains(&event.session.len()) {
        return Err(AppError::unprocessable(
            codes::INVALID_BODY,
            "an event's id and session are 1 to 200 characters",
        ));
    }
    let mut tx = state.pool.begin().await?;
    let fresh = store::take_event(&mut tx, &event.id, &event.session).await?;
    tx.commit().await?;
    if !fresh {
        return Ok(true);
    }
    let path = format!("/v1/identity/sessions/{}", event.session);
    let session: ProviderSession =
        provider(state)?.call::<(), _>(Method::GET, &path, &state.identity.api_key, None, None).await?;
    apply_decision(state, &session).await?;
    Ok(false)
}

/// The provider's decision on `session`, applied to its file unless the file's decision in
/// force is as new or newer (by the provider's time, or an operator's).
async fn apply_decision(state: &GatewayState, session: &ProviderSession) -> Result<(), AppError> {
    let (Some(decided), Some(at)) = (state_of_status(&session.status), session.decided_at) else {
        return Ok(());
    };
    // Compared as stored (Postgres keeps microseconds): the same decision delivered again is
    // not newer than itself.
    let at = chrono::SubsecRound::trunc_subsecs(at, 6);
    // Who the session is about, and whether they are listed, read before the file is locked
    // (one connection at a time: a small pool never waits on itself).
    let Some(file) = store::by_session(&state.pool, &session.id).await? else {
        // A session of a file submitted again since: its decision is about details no longer held.
        return Ok(());
    };
    let (decided, reason) = match decided {
        IdentityState::Verified => match listed(state, file.player_id).await? {
            Some(entry) => (IdentityState::Refused, Some(format!("on an exclusion list (entry {entry})"))),
            None => (decided, session.reason.clone()),
        },
        _ => (decided, session.reason.clone()),
    };
    let mut tx = state.pool.begin().await?;
    let Some(file) = store::lock_by_session(&mut tx, &session.id).await? else { return Ok(()) };
    if file.decided_at.is_some_and(|standing| standing >= at) {
        tracing::info!(player = %file.player_id, session = %session.id, "an older identity decision arrived after a newer one: ignored");
        return Ok(());
    }
    store::decide(&mut tx, file.player_id, decided, PROVIDER, at, reason.as_deref()).await?;
    let event = identity_event(file.player_id, decided, PROVIDER, reason.as_deref())?;
    events::record(&mut tx, crate::SCHEMA, &event).await?;
    tx.commit().await?;
    tracing::info!(player = %file.player_id, state = decided.as_str(), "identity decided by the provider");
    Ok(())
}

/// Hours a check may stay unfinished (the player never finished on the provider's page, and the
/// provider never reported its session expired) before the file goes back to `unverified`, so
/// the player may submit it again.
pub const UNFINISHED_HOURS: i32 = 24;

/// Files left `pending` past [`UNFINISHED_HOURS`], back to `unverified`: how many.
pub(crate) async fn expire_unfinished(state: &GatewayState) -> Result<u64, AppError> {
    let reason = format!("the check was not finished within {UNFINISHED_HOURS} hours: submit the file again");
    store::expire_pending(&state.pool, UNFINISHED_HOURS, &reason).await
}

/// The keyed digest of the SSN's last four `digits` (exclusion lists are matched on it).
pub(crate) fn ssn_digest(key: &platform::config::Secret, digits: &str) -> Vec<u8> {
    crate::sealing::keyed_digest(key, "ssn-last4", digits)
}

/// The exclusion-list entry the player matches, by email or by the file's name, date of birth
/// and SSN digits, if any; the match is logged against it.
async fn listed(state: &GatewayState, player: Uuid) -> Result<Option<Uuid>, AppError> {
    let entry = crate::store::exclusions::matching_player(&state.pool, player).await?;
    if let Some(entry) = entry {
        tracing::warn!(player = %player, "a player's verified identity matched an exclusion list: refused");
        crate::store::exclusions::log_refused_verification(&state.pool, entry, player).await?;
    }
    Ok(entry)
}

/// An identity check's result, as the significant-events log records it.
fn identity_event(
    player: Uuid,
    decided: IdentityState,
    by: &str,
    reason: Option<&str>,
) -> Result<Event, AppError> {
    #[derive(serde::Serialize)]
    struct Decided<'a> {
        state: &'a str,
        /// The provider, or the member of staff who decided a file in review.
        decided_by: &'a str,
        reason: Option<&'a str>,
    }
    Ok(Event::new(Kind::IdentityCheck, &Decided { state: decided.as_str(), decided_by: by, reason })?
        .player(player))
}

/// An operator's decision on a file the provider sent to review, with its reason: recorded as a
/// manual decision and a staff action.
pub(crate) async fn decide_by_hand(
    state: &GatewayState,
    staff: &str,
    player: Uuid,
    decision: IdentityDecision,
) -> Result<IdentityView, AppError> {
    let reason = crate::saga::staff::required_reason(&decision.reason)?;
    if !matches!(
        decision.decision,
        IdentityState::Verified | IdentityState::Refused | IdentityState::ResubmissionRequested
    ) {
        return Err(invalid("a decision is verified, refused or resubmission_requested"));
    }
    let mut tx = state.pool.begin().await?;
    let file = store::lock(&mut tx, player).await?.ok_or_else(|| {
        AppError::not_found(codes::IDENTITY_NOT_FOUND, "this player has not submitted a player file")
    })?;
    if file.state != IdentityState::Review.as_str() {
        return Err(AppError::conflict(
            codes::NOT_IN_REVIEW,
            format!("this player file is {}, not in review", file.state.replace('_', " ")),
        ));
    }
    store::decide(&mut tx, player, decision.decision, staff, Utc::now(), Some(reason)).await?;
    let event = identity_event(player, decision.decision, staff, Some(reason))?.staff(staff);
    events::record(&mut tx, crate::SCHEMA, &event).await?;
    let action = StaffAction {
        staff,
        action: "identity.decide",
        subject: format!("player:{player}"),
        before: json!({"state": file.state}),
        after: json!({"state": decision.decision.as_str()}),
        reason,
    };
    record_action(&mut tx, &action).await?;
    tx.commit().await?;
    mine(state, player).await
}

/// The files in review, oldest first.
pub(crate) async fn reviews(state: &GatewayState) -> Result<Vec<IdentityView>, AppError> {
    store::in_review(&state.pool, 200).await?.into_iter().map(IdentityView::try_from).collect()
}

/// Refuses money in and stakes for a player whose identity is not verified (403
/// `identity_not_verified`, naming the state and where to go). Withdrawals never ask.
/// Nothing is asked while the operator does not require it (`LOTTO_IDENTITY_REQUIRED`).
pub(crate) async fn require_verified(state: &GatewayState, player: Uuid) -> Result<(), AppError> {
    if !state.identity.required {
        return Ok(());
    }
    let now = store::state_of(&state.pool, player).await?;
    if now == Some(IdentityState::Verified) {
        return Ok(());
    }
    let words = match now {
        None => "verify your identity first: submit your details (Play responsibly is one tab away)",
        Some(IdentityState::Pending) => "your identity check is not finished: open the verification page",
        Some(IdentityState::Review) => "your identity is being checked by our staff; we will write to you",
        Some(IdentityState::ResubmissionRequested | IdentityState::Unverified) => {
            "your identity check needs your details again: submit them once more"
        }
        Some(_) => "your identity could not be verified; call us",
    };
    Err(AppError::new(StatusCode::FORBIDDEN, codes::IDENTITY_NOT_VERIFIED, words).with_context(json!({
        "identity": now.map_or("none", IdentityState::as_str),
        "submit_at": "/v1/me/identity",
    })))
}

#[cfg(test)]
mod tests {
    use super::is_po_box;

    #[test]
    fn a_po_box_is_not_a_residence() {
        for line in ["PO Box 12", "P.O. Box 7", "p o box 3", "Post Office Box 9", "POB 44", "pobox 1"] {
            assert!(is_po_box(line), "{line}");
        }
        for line in ["12 Box Elder Road", "400 Post Office Street", "1 Pobst Lane", "Apt 4B"] {
            assert!(!is_po_box(line), "{line}");
        }
    }
}
