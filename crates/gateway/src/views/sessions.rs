//! What logging in and renewing a session look like on the wire.

use chrono::{DateTime, Utc};
use platform::auth::{Place, Role};
use serde::{Deserialize, Serialize};

/// `POST /v1/sessions`: one of three ways to log in, told apart by their fields. Each is a
/// named schema, so a generated client has a type for each.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LoginRequest {
    Player(PlayerLogin),
    Staff(StaffLogin),
    Terminal(TerminalLogin),
}

/// A player logs in with the email they registered.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct PlayerLogin {
    pub email: String,
    pub password: String,
}

/// An operator or an auditor logs in with their username, their password, and their second
/// factor: the code their authenticator app shows, or one of their recovery codes.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct StaffLogin {
    pub username: String,
    pub password: String,
    /// The six digits the authenticator app shows (each is taken once).
    #[serde(default)]
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: Option<String>,
    /// One of the recovery codes shown at enrolment, in place of a code (each is taken once).
    #[serde(default)]
    #[schema(max_length = 40, pattern = "^[A-Za-z0-9 -]+$")]
    pub recovery_code: Option<String>,
}

/// A retailer's terminal logs in with its API key.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct TerminalLogin {
    pub api_key: String,
}

// A session's tokens, answered by a login and by each renewal.
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

/// `POST /v1/sessions/refresh`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    /// The refresh token the last login or renewal answered (each is good once).
    #[schema(max_length = 200)]
    pub refresh_token: String,
}

/// `POST /v1/staff/second-factor/enrolment`: the staff member enrolling, by their password.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnrolmentRequest {
    pub username: String,
    pub password: String,
}

/// A second factor's secret, shown once: scan the QR code (or type the secret) into an
/// authenticator app, then confirm with the code it shows.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EnrolmentView {
    /// The secret, in base32 (for an app that cannot scan).
    pub secret: String,
    /// The `otpauth://totp/...` address the QR code holds (SHA-1, six digits, 30 seconds).
    pub otpauth_url: String,
    /// The QR code, as an SVG image.
    pub qr_svg: String,
    /// Confirm before this, or begin again.
    pub confirm_before: DateTime<Utc>,
}

/// `POST /v1/staff/second-factor/enrolment/confirm`: the code the app shows for the secret shown.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnrolmentConfirmation {
    pub username: String,
    pub password: String,
    /// The six digits the app shows.
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: String,
}

/// Enrolled and logged in: the session, and the ten recovery codes, shown this once (each logs
/// in once in place of a code; keep them apart from the device).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EnrolmentConfirmed {
    pub recovery_codes: Vec<String>,
    pub session: LoginResponse,
}
