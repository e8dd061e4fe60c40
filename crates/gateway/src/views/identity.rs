//! The player file on the wire, and the identity provider's own messages.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::store::identity::{FileRow, IdentityState};

/// A residential address (no PO box).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Address {
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub line1: String,
    /// Empty or absent when there is none.
    #[schema(
        max_length = 200,
        pattern = "^$|^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub line2: Option<String>,
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub city: String,
    /// The state or region, as its postal abbreviation (`KS`).
    #[schema(
        min_length = 2,
        max_length = 50,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub region: String,
    #[schema(
        min_length = 3,
        max_length = 12,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub postal_code: String,
}

/// `PUT /v1/me/identity`: who the player is, to be verified.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentitySubmission {
    /// The name on the player's identity documents.
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub legal_name: String,
    pub address: Address,
    /// 7 to 20 of digits (at least one), spaces, `+`, `-`, `(` and `)`.
    #[schema(min_length = 7, max_length = 20, pattern = "^[ +()-]*[0-9][0-9 +()-]*$")]
    pub phone: String,
    /// The last four digits of the Social Security number, where the player gives them (kept
    /// encrypted; never shown again).
    #[schema(pattern = "^[0-9]{4}$")]
    pub ssn_last4: Option<String>,
}

/// The player file as the player (and operators) see it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IdentityView {
    pub player_id: Uuid,
    /// `pending` (open `verification_url` to finish), `verified`, `refused`, `review` (an
    /// operator decides), `resubmission_requested` (submit it again), `unverified`.
    #[schema(schema_with = IdentityState::schema)]
    pub state: IdentityState,
    pub legal_name: String,
    pub address: Address,
    pub phone: String,
    /// Whether the last four of the SSN were given (they are never shown).
    pub ssn_last4_given: bool,
    /// The provider's page where the player finishes the check, while it is pending.
    pub verification_url: Option<String>,
    pub submitted_at: DateTime<Utc>,
    /// `provider`, or the member of staff who decided by hand.
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
    pub reason: Option<String>,
    /// What the player does next, in words.
    pub next: String,
}

impl TryFrom<FileRow> for IdentityView {
    type Error = platform::AppError;

    fn try_from(row: FileRow) -> Result<Self, Self::Error> {
        let state = IdentityState::parse(&row.state)?;
        let next = match state {
            IdentityState::Pending => "Open the verification page to finish the check.",
            IdentityState::Verified => "Your identity is verified: you may deposit and play.",
            IdentityState::Refused => "Your identity could not be verified. Call us to find out why.",
            IdentityState::Review => "A member of our staff is checking your details; we will write to you.",
            IdentityState::ResubmissionRequested => "Please check your details and submit them again.",
            IdentityState::Unverified => {
                "Your check expired before it was finished: submit your details again."
            }
        }
        .to_owned();
        Ok(IdentityView {
            player_id: row.player_id,
            state,
            legal_name: row.legal_name,
            address: Address {
                line1: row.address_line1,
                line2: row.address_line2,
                city: row.city,
                region: row.region,
                postal_code: row.postal_code,
            },
            phone: row.phone,
            ssn_last4_given: row.ssn_last4.is_some(),
            verification_url: (state == IdentityState::Pending).then_some(row.verification_url).flatten(),
            submitted_at: row.submitted_at,
            decided_by: row.decided_by,
            decided_at: row.decided_at,
            reason: row.reason,
            next,
        })
    }
}

/// The states an operator may decide a file in review to.
fn decisions() -> utoipa::openapi::schema::Object {
    platform::openapi::one_of_texts(&[
        IdentityState::Verified.as_str(),
        IdentityState::Refused.as_str(),
        IdentityState::ResubmissionRequested.as_str(),
    ])
}

/// `POST /v1/players/{id}/identity/decision`: an operator's decision on a file in review.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentityDecision {
    /// `verified`, `refused` or `resubmission_requested`.
    #[schema(schema_with = decisions)]
    pub decision: IdentityState,
    /// Why (1 to 2,000 characters, not all spaces; lines and tabs allowed): recorded with the
    /// decision.
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"
    )]
    pub reason: String,
}

/// What the gateway sends the provider to open a verification session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProviderSessionRequest {
    /// The player, as the provider calls us back about them.
    pub reference: Uuid,
    pub legal_name: String,
    pub date_of_birth: NaiveDate,
    pub address: Address,
    pub phone: String,
}

/// A verification session as the provider answers it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProviderSession {
    pub id: String,
    /// The provider's hosted page where the player finishes the check.
    pub url: String,
    /// `created`, `approved`, `declined`, `review`, `resubmission_requested` or `expired`.
    pub status: String,
    pub reason: Option<String>,
    /// When the provider made its decision.
    pub decided_at: Option<DateTime<Utc>>,
}

/// The provider's signed notice that a session was decided (the decision itself is fetched).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IdentityEvent {
    /// The delivery's id: one taken twice is taken once.
    #[schema(min_length = 1, max_length = 200)]
    pub id: String,
    /// `identity.decided`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The provider's session.
    #[schema(min_length = 1, max_length = 200)]
    pub session: String,
    /// When the event happened at the provider.
    pub occurred_at: DateTime<Utc>,
}
