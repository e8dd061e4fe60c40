//! Operators' work: staff accounts, retailers and their terminals' API keys.

use platform::AppError;
use platform::auth::Role;
use platform::codes;
use sqlx::PgPool;
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::end_sessions;
use crate::credentials::{PasswordWork, new_api_key, validate_password};
use crate::store::staff as store;
use crate::views::staff::{NewTerminalView, Retailer, RetailerChange};

/// Creates an operator or auditor; `created_by` is None only for the first, made by `lotto admin`.
pub async fn create_staff(
    pool: &PgPool,
    passwords: &PasswordWork,
    username: &str,
    password: String,
    role: Role,
    created_by: Option<Uuid>,
) -> Result<Uuid, AppError> {
    // Checked as sent, then in small letters: exactly the contract's pattern.
    let valid = (3..=64).contains(&username.len())
        && username.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    let username = username.to_ascii_lowercase();
    if !valid {
        return Err(AppError::unprocessable(
            codes::INVALID_USERNAME,
            "a username is 3 to 64 of a-z, 0-9, '.', '-', '_'",
        ));
    }
    if !matches!(role, Role::Operator | Role::Auditor) {
        return Err(AppError::unprocessable(codes::INVALID_ROLE, "staff are operators or auditors"));
    }
    validate_password(&password, &username)?;
    let hash = passwords.hash(password).await?;
    let id = Uuid::now_v7();
    if !store::insert_staff(pool, id, &username, &hash, role, created_by).await? {
        return Err(AppError::conflict(codes::USERNAME_TAKEN, "that username is taken"));
    }
    Ok(id)
}

/// A shop's name: at most 200 characters, not all spaces (kept trimmed).
fn checked_name(name: &str) -> Result<&str, AppError> {
    let (sent, name) = (name.chars().count(), domain::text::trim(name));
    if name.is_empty() || sent > 200 {
        return Err(AppError::unprocessable(codes::INVALID_NAME, "a name is 1 to 200 characters"));
    }
    Ok(name)
}

/// A shop's address: at most 300 characters, not all spaces (kept trimmed).
fn checked_address(address: &str) -> Result<&str, AppError> {
    let (sent, address) = (address.chars().count(), domain::text::trim(address));
    if address.is_empty() || sent > 300 {
        return Err(AppError::unprocessable(codes::INVALID_ADDRESS, "an address is 1 to 300 characters"));
    }
    Ok(address)
}

/// A new retailer.
pub(crate) async fn add_retailer(
    pool: &PgPool,
    name: &str,
    address: Option<&str>,
) -> Result<Retailer, AppError> {
    let name = checked_name(name)?;
    let address = address.map(checked_address).transpose()?;
    Ok(Retailer::from(store::insert_retailer(pool, Uuid::now_v7(), name, address).await?))
}

/// Renames retailer `id` or changes its address (receipts printed before keep their names).
pub(crate) async fn change_retailer(
    pool: &PgPool,
    id: Uuid,
    change: &RetailerChange,
) -> Result<Retailer, AppError> {
    let name = change.name.as_deref().map(checked_name).transpose()?;
    let address =
        change.address.as_ref().map(|a| a.as_deref().map(checked_address).transpose()).transpose()?;
    let row = store::change_retailer(pool, id, name, address).await?.ok_or_else(|| {
        AppError::not_found(codes::RETAILER_NOT_FOUND, format!("retailer {id} does not exist"))
    })?;
    Ok(Retailer::from(row))
}

/// A new terminal of `retailer`, with its API key (kept here only as its digest).
pub(crate) async fn add_terminal(
    pool: &PgPool,
    retailer: Uuid,
    label: &str,
) -> Result<NewTerminalView, AppError> {
    let (sent, label) = (label.chars().count(), domain::text::trim(label));
    if label.is_empty() || sent > 200 {
        return Err(AppError::unprocessable(codes::INVALID_LABEL, "a label is 1 to 200 characters"));
    }
    if !store::retailer_exists(pool, retailer).await? {
        return Err(AppError::not_found(
            codes::RETAILER_NOT_FOUND,
            format!("retailer {retailer} does not exist"),
        ));
    }
    let (api_key, prefix, digest) = new_api_key();
    let id = Uuid::now_v7();
    store::insert_terminal(pool, id, retailer, label, &prefix, &digest).await?;
    Ok(NewTerminalView { id, retailer_id: retailer, label: label.to_owned(), key_prefix: prefix, api_key })
}

/// Revokes terminal `id`'s key and ends its sessions now.
pub(crate) async fn revoke_terminal(state: &GatewayState, id: Uuid) -> Result<(), AppError> {
    if !store::revoke_terminal(&state.pool, id).await? {
        return Err(AppError::not_found(codes::TERMINAL_NOT_FOUND, format!("terminal {id} does not exist")));
    }
    end_sessions(state, &id.to_string(), None, "key_revoked").await
}

/// The reason a member of staff gives for an override: required, in words.
pub(crate) fn required_reason(reason: &str) -> Result<&str, AppError> {
    let sent = reason.chars().count();
    let control = reason.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'));
    let reason = reason.trim_matches(domain::text::is_space);
    if reason.is_empty() || sent > 2000 || control {
        return Err(AppError::unprocessable(
            codes::INVALID_REASON,
            "say why (1 to 2,000 characters, not all spaces): it is recorded with what you did",
        ));
    }
    Ok(reason)
}

/// Lifts the stop on a player's deposits (five failed within 10 minutes), recording who, when
/// it was set, and why it is lifted.
pub(crate) async fn clear_deposit_block(
    state: &GatewayState,
    staff: &str,
    player: Uuid,
    reason: &str,
) -> Result<(), AppError> {
    let reason = required_reason(reason)?;
    crate::saga::players::load_player(state, player).await?;
    let mut tx = state.pool.begin().await?;
    let Some(since) = crate::store::players::clear_deposit_block(&mut tx, player).await? else {
        return Err(AppError::conflict(codes::NOT_BLOCKED, "this player's deposits are not stopped"));
    };
    let action = store::StaffAction {
        staff,
        action: "deposit_block.clear",
        subject: format!("player:{player}"),
        before: serde_json::json!({"deposits_blocked_at": since}),
        after: serde_json::json!({"deposits_blocked_at": null}),
        reason,
    };
    store::record_action(&mut tx, &action).await?;
    tx.commit().await?;
    Ok(())
}
