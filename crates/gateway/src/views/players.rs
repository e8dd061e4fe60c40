//! What a player, their limits and their exclusion look like on the wire.

use chrono::{DateTime, NaiveDate, Utc};
use platform::auth::Role;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use crate::standing::Standing;
use crate::store::identity::IdentityState;
use crate::store::players::{LimitRow, PlayerRow};

/// An email as every field that takes one declares it: the form `valid_email` checks (one `@`, a
/// dot in the domain, no spaces), at most 254 characters.
pub(crate) fn email_schema() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(
            "An address with one `@`, a dot in its domain, and no spaces; at most 254 characters.",
        ))
        .max_length(Some(254))
        .pattern(Some("^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$"))
        .build()
}

// `POST /v1/players`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    /// An address with one `@`, a dot in its domain, and no spaces; at most 254 characters.
    #[schema(schema_with = email_schema)]
    pub email: String,
    /// 10 to 256 characters, hard to guess and without the email in it (refused
    /// `weak_password` otherwise).
    #[schema(min_length = 10, max_length = 256)]
    pub password: String,
    /// At least 18 years before today and at most 120 (refused `under_age` or
    /// `invalid_date_of_birth` otherwise).
    pub date_of_birth: NaiveDate,
}

/// What a registration answers: the same whether or not the address had an account (the
/// address is told which by mail).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RegistrationAccepted {
    pub email: String,
    /// What to do next, in words.
    pub message: String,
}

impl RegistrationAccepted {
    pub fn to(email: &str) -> RegistrationAccepted {
        RegistrationAccepted {
            email: email.to_owned(),
            message: format!(
                "We sent a message to {email}: open its link within 30 minutes to confirm the address, then log in."
            ),
        }
    }
}

/// `POST /v1/email-verifications`: the token from the link mailed to the address.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailVerification {
    #[schema(max_length = 100)]
    pub token: String,
}

/// An address proved.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AddressVerified {
    pub email: String,
    pub email_verified_at: DateTime<Utc>,
}

/// `POST /v1/email-verifications/resend` and `POST /v1/password-resets`: the address to write to.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkRequest {
    #[schema(schema_with = email_schema)]
    pub email: String,
}

/// What asking for a link answers, whether or not the address has an account.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LinkRequested {
    pub message: String,
}

/// `POST /v1/password-resets/complete`: the token from the mailed link, and the new password.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordReset {
    #[schema(max_length = 100)]
    pub token: String,
    /// 10 to 256 characters, hard to guess and without the email in it.
    #[schema(min_length = 10, max_length = 256)]
    pub password: String,
}

/// Why a member of staff overrides what the system decided (a block lifted, a decision made by
/// hand): written down with what they did.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StaffReason {
    /// 1 to 2,000 characters, not all spaces (lines and tabs allowed).
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"
    )]
    pub reason: String,
}

/// `PUT /v1/me/login-notices`.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginNotices {
    /// Whether a message is sent to the player's address at every login.
    pub enabled: bool,
}

/// A player as they (and operators) see themselves.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Player {
    pub id: Uuid,
    pub email: String,
    pub date_of_birth: NaiveDate,
    pub wallet_account_id: Uuid,
    pub last_login_at: Option<DateTime<Utc>>,
    /// The end of the player's fixed-term self-exclusion (play resumes only a day after they
    /// ask, `POST /v1/me/self-exclusion/return`).
    pub self_excluded_until: Option<DateTime<Utc>>,
    pub excluded_permanently: bool,
    pub on_break_until: Option<DateTime<Utc>>,
    /// When the player closed the account (`POST /v1/me/closure`).
    pub closed_at: Option<DateTime<Utc>>,
    /// Whether the player may play now, and if not why: while not `active` stakes and deposits
    /// are refused (the player may log in, and withdraw).
    pub standing: Standing,
    /// When play resumes by itself; `null` while the player may play, or while it waits for
    /// the player's request (after an exclusion's end, to reopen) or never comes.
    pub play_resumes_at: Option<DateTime<Utc>>,
    /// When the player proved the address by the link mailed to it; `null`: not yet.
    pub email_verified_at: Option<DateTime<Utc>>,
    /// Whether the player is told of every login by mail (`PUT /v1/me/login-notices`).
    pub login_notices: bool,
    /// Since when deposits are stopped (five failed within 10 minutes) until an operator clears
    /// it (`POST /v1/players/{id}/deposit-block/clear`); `null`: they are not.
    pub deposits_blocked_at: Option<DateTime<Utc>>,
    /// Where the player's identity check stands (`GET /v1/me/identity`); `null`: no player file
    /// yet.
    #[schema(schema_with = identity_state_or_null)]
    pub identity_state: Option<IdentityState>,
    pub created_at: DateTime<Utc>,
}

fn identity_state_or_null() -> utoipa::openapi::schema::Object {
    platform::openapi::one_of_texts_or_null(IdentityState::TEXTS)
}

impl From<PlayerRow> for Player {
    fn from(row: PlayerRow) -> Self {
        // A state the schema allows but this build does not know reads as none.
        let identity_state = row.identity_state.as_deref().and_then(|s| IdentityState::parse(s).ok());
        let standing = crate::standing::PlayStanding::of(&row, Utc::now());
        Player {
            id: row.id,
            email: row.email,
            date_of_birth: row.date_of_birth,
            wallet_account_id: row.wallet_account_id,
            last_login_at: row.last_login_at,
            self_excluded_until: row.self_excluded_until,
            excluded_permanently: row.excluded_permanently,
            on_break_until: row.on_break_until,
            closed_at: row.closed_at,
            standing: standing.standing,
            play_resumes_at: standing.resumes_at,
            email_verified_at: row.email_verified_at,
            login_notices: row.login_notices,
            deposits_blocked_at: row.deposits_blocked_at,
            identity_state,
            created_at: row.created_at,
        }
    }
}

/// `GET /v1/players?email=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayerLookup {
    /// The player's email, as they registered it (case does not matter).
    #[param(max_length = 254)]
    pub email: String,
}

/// `GET /v1/players/matches?part=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayerSearch {
    /// Any part of the player's email (case does not matter): `smith`, `@example.com`.
    #[param(min_length = 2, max_length = 254)]
    pub part: String,
}

/// A player whose email holds the part asked for.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerMatch {
    pub id: Uuid,
    pub email: String,
    pub created_at: DateTime<Utc>,
}

/// The players found, by email, at most [`PlayerMatches::MOST`].
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerMatches {
    pub items: Vec<PlayerMatch>,
    /// More players match than are listed: ask with a longer part.
    pub more: bool,
}

impl PlayerMatches {
    pub const MOST: u16 = 20;
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
    /// A terminal's retailer (its statement: `GET /v1/instant/retailers/{id}/statement`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retailer_id: Option<String>,
    /// A staff member's username, as the console names who is logged in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

/// A self-exclusion in force.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SelfExclusion {
    /// The end of its term (`null` for a permanent one); play resumes only a day after the
    /// player asks, after it.
    pub self_excluded_until: Option<DateTime<Utc>>,
    pub permanent: bool,
}

/// The periods a deposit limit can cover; windows are rolling (the last 24 hours, 7 days, 30 days),
/// as those of the money limits the ledger keeps.
pub use ledger_api::wire::LimitPeriod;

// `PUT /v1/me/deposit-limits`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitRequest {
    pub period: LimitPeriod,
    /// Cents, at least 1; `null` removes the limit (after the delay, as a raise).
    #[schema(minimum = 1)]
    pub amount: Option<i64>,
}

// One of a player's deposit limits.
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

impl DepositLimit {
    /// The limit of `period` as stored, or none when nothing is stored for it.
    pub(crate) fn of(period: LimitPeriod, row: Option<&LimitRow>) -> Self {
        match row {
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
        }
    }
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
    /// For good: it never ends.
    #[serde(rename = "permanent")]
    Permanent,
}

impl ExclusionPeriod {
    /// The term in months; `None` for a permanent exclusion.
    pub(crate) fn months(self) -> Option<u32> {
        match self {
            ExclusionPeriod::SixMonths => Some(6),
            ExclusionPeriod::OneYear => Some(12),
            ExclusionPeriod::FiveYears => Some(60),
            ExclusionPeriod::Permanent => None,
        }
    }
}

// `POST /v1/me/self-exclusion`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExclusionRequest {
    pub period: ExclusionPeriod,
}
