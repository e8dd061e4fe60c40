//! One-time links sent by mail: an address proved, a password reset (issue 49 §Email).
//!
//! A link's token is 32 random bytes, written only in the message; the platform keeps its
//! SHA-256. It is good once, for [`LINK_MINUTES`]; using one ends every other link of its kind
//! for that player. A reset ends every session and refresh token of the player and logs no one
//! in. Asking for a link answers the same whether or not the address has an account (nothing
//! tells a stranger who plays): what happened is told to the address.

use axum::http::StatusCode;
use chrono::Utc;
use platform::AppError;
use platform::codes;
use sha2::{Digest, Sha256};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::credentials::validate_password;
use crate::saga::mail::{self, Letter};
use crate::store::mail::{self as store, LinkPurpose};
use crate::store::players as players_store;
use crate::views::players::{AddressVerified, PasswordReset};

/// How long a link is good for.
pub const LINK_MINUTES: i32 = 30;

/// The longest token text read (a real one is 64 hex digits after its prefix).
const MAX_TOKEN_CHARS: usize = 100;

fn digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// A new link for `player` to `purpose`, kept as its hash: the URL the message holds.
pub(crate) async fn new_link(
    state: &GatewayState,
    conn: &mut PgConnection,
    purpose: LinkPurpose,
    player: Uuid,
) -> Result<String, AppError> {
    let token = format!("ol_{}", hex::encode(platform::auth::random_bytes::<32>()));
    store::keep_link(conn, &digest(&token), purpose, player, LINK_MINUTES).await?;
    let page = match purpose {
        LinkPurpose::VerifyEmail => "verify-email",
        LinkPurpose::ResetPassword => "reset-password",
    };
    Ok(format!("{}/#/{page}?token={token}", state.mail.site))
}

/// Writes the link that proves `email` to it, in `conn`'s transaction.
pub(crate) async fn send_verification(
    state: &GatewayState,
    conn: &mut PgConnection,
    player: Uuid,
    email: &str,
) -> Result<(), AppError> {
    let link = new_link(state, conn, LinkPurpose::VerifyEmail, player).await?;
    mail::write(state, conn, email, Some(player), &Letter::verify_email(&link, LINK_MINUTES)).await
}

/// The link presented, for `purpose`: its player, once (marking it and its kind used), or why not.
async fn use_link(conn: &mut PgConnection, token: &str, purpose: LinkPurpose) -> Result<Uuid, AppError> {
    let unknown = || {
        AppError::not_found(codes::LINK_UNKNOWN, "this link is not one the lottery sent; ask for a new one")
    };
    if token.len() > MAX_TOKEN_CHARS {
        return Err(unknown());
    }
    let hash = digest(token);
    let link = store::lock_link(conn, &hash, purpose).await?.ok_or_else(unknown)?;
    if link.used_at.is_some() {
        return Err(AppError::new(
            StatusCode::GONE,
            codes::LINK_USED,
            "this link was used already (each link works once); ask for a new one",
        ));
    }
    if link.expires_at <= Utc::now() {
        return Err(AppError::new(
            StatusCode::GONE,
            codes::LINK_EXPIRED,
            format!("this link was good for {LINK_MINUTES} minutes and has run out; ask for a new one"),
        ));
    }
    store::use_link(conn, &hash, purpose, link.player_id).await?;
    Ok(link.player_id)
}

/// Proves a player's address with the link mailed to it. A caller logged in as another player
/// is refused (`link_for_another_account`): the link is not theirs.
pub(crate) async fn verify_email(
    state: &GatewayState,
    caller: Option<&Authenticated>,
    token: &str,
) -> Result<AddressVerified, AppError> {
    let mut tx = state.pool.begin().await?;
    let player = use_link(&mut tx, token, LinkPurpose::VerifyEmail).await?;
    if let Some(caller) = caller
        && caller.subject_id().ok() != Some(player)
    {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            codes::LINK_FOR_ANOTHER_ACCOUNT,
            "this link confirms another account's address; log out, or open it where that account is used",
        ));
    }
    let (email, verified_at) = players_store::verify_email(&mut tx, player).await?;
    tx.commit().await?;
    Ok(AddressVerified { email, email_verified_at: verified_at })
}

/// A new link for `email`, if it has an account whose address is not yet proved; an address
/// already proved is told so. Answers the same in every case.
pub(crate) async fn resend_verification(state: &GatewayState, email: &str) -> Result<(), AppError> {
    no_sooner_than(ANSWER_FLOOR, resend_or_not(state, email)).await
}

/// How long a request for a link takes at least, whatever the address: the work for an address
/// with an account (a link kept, a letter written) takes about 0.2 ms more than for one without
/// (measured: `cargo bench -p gateway --bench registration`), which enough requests would tell
/// apart; answered no sooner than this, both take the same time.
const ANSWER_FLOOR: std::time::Duration = std::time::Duration::from_millis(30);

/// `work`'s answer, given no sooner than `floor` after it began (issue 49 §Email: the doors that
/// must not tell who has an account answer in the same time either way, however the work
/// differs underneath).
pub(crate) async fn no_sooner_than<T>(
    floor: std::time::Duration,
    work: impl Future<Output = Result<T, AppError>>,
) -> Result<T, AppError> {
    let answer_at = tokio::time::Instant::now() + floor;
    let answer = work.await;
    tokio::time::sleep_until(answer_at).await;
    answer
}

async fn resend_or_not(state: &GatewayState, email: &str) -> Result<(), AppError> {
    let email = crate::credentials::checked_email(email)?;
    let contact = players_store::contact(&state.pool, &email).await?;
    let mut tx = state.pool.begin().await?;
    let digest = Sha256::digest(email.as_bytes());
    store::record_link_request(&mut tx, LinkPurpose::VerifyEmail, &digest, contact.is_some()).await?;
    let Some(contact) = contact else {
        // One committed row, as for a known address: the answer takes the same time.
        tx.commit().await?;
        return Ok(());
    };
    if contact.email_verified_at.is_some() {
        mail::write(
            state,
            &mut tx,
            &contact.email,
            Some(contact.id),
            &Letter::already_verified(&state.mail.site),
        )
        .await?;
    } else {
        send_verification(state, &mut tx, contact.id, &contact.email).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Mails a reset link to `email` if it has an account. Answers the same whether or not.
pub(crate) async fn request_reset(state: &GatewayState, email: &str) -> Result<(), AppError> {
    no_sooner_than(ANSWER_FLOOR, reset_or_not(state, email)).await
}

async fn reset_or_not(state: &GatewayState, email: &str) -> Result<(), AppError> {
    let email = crate::credentials::checked_email(email)?;
    let contact = players_store::contact(&state.pool, &email).await?;
    let mut tx = state.pool.begin().await?;
    let digest = Sha256::digest(email.as_bytes());
    store::record_link_request(&mut tx, LinkPurpose::ResetPassword, &digest, contact.is_some()).await?;
    let Some(contact) = contact else {
        // One committed row, as for a known address: the answer takes the same time.
        tx.commit().await?;
        return Ok(());
    };
    let link = new_link(state, &mut tx, LinkPurpose::ResetPassword, contact.id).await?;
    mail::write(
        state,
        &mut tx,
        &contact.email,
        Some(contact.id),
        &Letter::reset_password(&link, LINK_MINUTES),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Sets a new password with a reset link: the lock of failed logins lifted, every session and
/// refresh token of the player ended, the player told by mail; nobody is logged in.
pub(crate) async fn reset_password(state: &GatewayState, request: PasswordReset) -> Result<(), AppError> {
    let mut tx = state.pool.begin().await?;
    let player = use_link(&mut tx, &request.token, LinkPurpose::ResetPassword).await?;
    let email = players_store::email_of(&mut tx, player).await?;
    validate_password(&request.password, &email)?;
    // Hashed outside the transaction's lock would let two resets race; the link's row lock
    // makes the second wait and then find it used.
    let hash = state.passwords.hash(request.password).await?;
    players_store::set_password(&mut tx, player, &hash).await?;
    let letter = Letter::password_changed(Utc::now(), &state.protection.help_line);
    mail::write(state, &mut tx, &email, Some(player), &letter).await?;
    tx.commit().await?;
    crate::auth::end_sessions(state, &player.to_string(), None, "password_reset").await?;
    Ok(())
}
