//! Staff log in with a second factor (issue 49 §Staff): after the password, a six-digit code
//! from an authenticator app (TOTP, RFC 6238) or one of ten recovery codes. A code is never
//! taken twice (each time step once: RFC 6238 §5.2); wrong codes are counted apart from wrong
//! passwords and lock the second factor for a while after [`TRIES`] in a row. A staff member
//! without one enrols at the first login: the secret is shown once (as a QR code and as text),
//! confirmed with a code from the app, and the recovery codes are shown then, once.

use axum::http::{HeaderValue, StatusCode, header};
use chrono::{DateTime, Utc};
use platform::{AppError, codes};
use uuid::Uuid;

use crate::GatewayState;
use crate::sealing::{open, seal};
use crate::second_factor::{new_recovery_codes, new_secret, qr_svg, recovery_digest, step_of, totp};
use crate::store::second_factor as store;
use crate::views::sessions::{EnrolmentView, StaffLogin};

/// Wrong codes in a row that lock the second factor.
pub const TRIES: i32 = 5;
/// How long a locked second factor stays locked.
const LOCKED_MINUTES: i32 = 15;
/// How long a secret shown may wait for its confirmation.
const ENROLMENT_MINUTES: i64 = 10;

fn now_seconds() -> u64 {
    u64::try_from(Utc::now().timestamp()).unwrap_or(0)
}

fn locked(until: DateTime<Utc>) -> AppError {
    let seconds = (until - Utc::now()).num_seconds().max(1);
    AppError::new(
        StatusCode::FORBIDDEN,
        codes::SECOND_FACTOR_LOCKED,
        format!(
            "too many wrong codes: the second factor is locked until {}",
            domain::text::lottery_time(until)
        ),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
}

fn wrong_code() -> AppError {
    AppError::new(StatusCode::UNAUTHORIZED, codes::SECOND_FACTOR_INVALID, "that code is not the one expected")
}

fn enrolment_required() -> AppError {
    AppError::new(
        StatusCode::FORBIDDEN,
        codes::SECOND_FACTOR_ENROLMENT_REQUIRED,
        "staff log in with a second factor: enrol an authenticator app first \
         (POST /v1/staff/second-factor/enrolment with your username and password, then confirm it with a code)",
    )
}

/// After staff member `staff`'s password: the code or recovery code of `login` taken, or the
/// login refused.
pub(crate) async fn check(state: &GatewayState, staff: Uuid, login: &StaffLogin) -> Result<(), AppError> {
    if !state.sessions.staff_second_factor {
        return Ok(());
    }
    let mut tx = state.pool.begin().await?;
    let row = store::lock(&mut tx, staff).await?.ok_or_else(|| AppError::internal("staff row gone"))?;
    if let Some(until) = row.locked_until.filter(|u| *u > Utc::now()) {
        return Err(locked(until));
    }
    let Some(sealed) = row.secret else { return Err(enrolment_required()) };
    let taken = match (login.code.as_deref(), login.recovery_code.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(AppError::unprocessable(
                codes::CODE_AND_RECOVERY_CODE,
                "give a code or a recovery code, not both",
            ));
        }
        (None, None) => {
            return Err(AppError::new(
                StatusCode::UNAUTHORIZED,
                codes::SECOND_FACTOR_REQUIRED,
                "give the six-digit code your authenticator app shows (code), or one of your recovery codes \
                 (recovery_code)",
            ));
        }
        (Some(code), None) => {
            let secret = open(&state.identity.key, &sealed)
                .ok_or_else(|| AppError::internal("a TOTP secret does not open under LOTTO_IDENTITY_KEY"))?;
            match step_of(&totp(&secret, &row.username)?, code, now_seconds()) {
                Some(step) => {
                    let step = i64::try_from(step).unwrap_or(i64::MAX);
                    if row.last_step.is_some_and(|last| step <= last) {
                        return Err(AppError::new(
                            StatusCode::UNAUTHORIZED,
                            codes::CODE_ALREADY_USED,
                            "that code was used already: wait for the app's next one",
                        ));
                    }
                    store::code_taken(&mut tx, staff, Some(step)).await?;
                    true
                }
                None => false,
            }
        }
        (None, Some(recovery)) => {
            let used = store::use_recovery_code(&mut tx, staff, &recovery_digest(recovery)).await?;
            if used {
                store::code_taken(&mut tx, staff, None).await?;
            }
            used
        }
    };
    if !taken {
        let locked_until = store::code_refused(&mut tx, staff, TRIES, LOCKED_MINUTES).await?;
        tx.commit().await?;
        return Err(locked_until.map_or_else(wrong_code, locked));
    }
    tx.commit().await?;
    Ok(())
}

/// A new secret for staff member `staff` (their password checked), shown once (as an
/// `otpauth://` address, its QR code and its text), to be confirmed within ten minutes. Refused
/// once enrolled, and while a secret shown waits.
pub(crate) async fn enrol(state: &GatewayState, staff: Uuid) -> Result<EnrolmentView, AppError> {
    let mut tx = state.pool.begin().await?;
    let row = store::lock(&mut tx, staff).await?.ok_or_else(|| AppError::internal("staff row gone"))?;
    if row.secret.is_some() {
        return Err(AppError::conflict(
            codes::SECOND_FACTOR_ENROLLED,
            "a second factor is enrolled already: log in with its code (or a recovery code)",
        ));
    }
    if let Some(until) = row.pending_until.filter(|u| *u > Utc::now()) {
        return Err(AppError::conflict(
            codes::ENROLMENT_ALREADY_SHOWN,
            format!(
                "the secret was shown already and is not shown again: confirm it with a code from the app, \
                 or begin again after {}",
                domain::text::lottery_time(until)
            ),
        ));
    }
    let secret = new_secret();
    let until = Utc::now() + chrono::Duration::minutes(ENROLMENT_MINUTES);
    store::begin_enrolment(&mut tx, staff, &seal(&state.identity.key, &secret)?, until).await?;
    tx.commit().await?;
    let totp = totp(&secret, &row.username)?;
    let url = totp.to_url().map_err(|e| AppError::internal(format!("an otpauth address: {e}")))?;
    Ok(EnrolmentView {
        qr_svg: qr_svg(&url)?,
        secret: totp.secret().to_base32(),
        otpauth_url: url,
        confirm_before: until,
    })
}

/// The secret shown to staff member `staff` (their password checked) confirmed with `code` from
/// the app: their ten recovery codes, to be answered once.
pub(crate) async fn confirm(state: &GatewayState, staff: Uuid, code: &str) -> Result<Vec<String>, AppError> {
    let mut tx = state.pool.begin().await?;
    let row = store::lock(&mut tx, staff).await?.ok_or_else(|| AppError::internal("staff row gone"))?;
    if row.secret.is_some() {
        return Err(AppError::conflict(codes::SECOND_FACTOR_ENROLLED, "a second factor is enrolled already"));
    }
    if let Some(until) = row.locked_until.filter(|u| *u > Utc::now()) {
        return Err(locked(until));
    }
    let (Some(pending), true) = (row.pending, row.pending_until.is_some_and(|u| u > Utc::now())) else {
        return Err(AppError::conflict(
            codes::NO_ENROLMENT,
            "no enrolment waits for a code (none was begun, or it lapsed): begin one",
        ));
    };
    let secret = open(&state.identity.key, &pending)
        .ok_or_else(|| AppError::internal("a TOTP secret does not open under LOTTO_IDENTITY_KEY"))?;
    let Some(step) = step_of(&totp(&secret, &row.username)?, code, now_seconds()) else {
        let locked_until = store::code_refused(&mut tx, staff, TRIES, LOCKED_MINUTES).await?;
        tx.commit().await?;
        return Err(locked_until.map_or_else(wrong_code, locked));
    };
    let codes = new_recovery_codes();
    let digests: Vec<Vec<u8>> = codes.iter().map(|c| recovery_digest(c)).collect();
    store::confirm_enrolment(&mut tx, staff, i64::try_from(step).unwrap_or(i64::MAX), &digests).await?;
    tx.commit().await?;
    Ok(codes)
}
