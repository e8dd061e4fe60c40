//! What staff, retailers and terminals look like on the wire.

use chrono::{DateTime, Utc};
use platform::auth::Role;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::store::mail::MailState;
use crate::store::staff::{RetailerRow, StaffRow, TerminalRow};

// `POST /v1/staff`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewStaff {
    /// 3 to 64 of a-z, 0-9, `.`, `-`, `_` (capitals are taken as small letters).
    #[schema(pattern = "^[A-Za-z0-9._-]{3,64}$")]
    pub username: String,
    /// 10 to 256 characters, hard to guess (refused `weak_password` otherwise).
    #[schema(min_length = 10, max_length = 256)]
    pub password: String,
    #[schema(schema_with = staff_roles)]
    pub role: Role,
}

/// A staff member just created.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NewStaffView {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
}

/// A staff member as listed.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StaffMember {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
    pub last_login_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<StaffRow> for StaffMember {
    fn from(row: StaffRow) -> Self {
        StaffMember {
            id: row.id,
            username: row.username,
            role: row.role,
            last_login_at: row.last_login_at,
            created_at: row.created_at,
        }
    }
}

// `POST /v1/retailers`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRetailer {
    /// The shop's name: at most 200 characters, not all spaces.
    #[schema(max_length = 200, pattern = "\\S")]
    pub name: String,
    /// The shop's address, printed under its name on its tills' receipts (at most 300
    /// characters, not all spaces).
    #[serde(default)]
    #[schema(max_length = 300, pattern = "\\S")]
    pub address: Option<String>,
}

// A retailer (a shop).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Retailer {
    pub id: Uuid,
    pub name: String,
    pub address: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<RetailerRow> for Retailer {
    fn from(row: RetailerRow) -> Self {
        Retailer { id: row.id, name: row.name, address: row.address, created_at: row.created_at }
    }
}

/// `PATCH /v1/retailers/{id}`: what changes; a field left out stays as it is.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RetailerChange {
    #[schema(max_length = 200, pattern = "\\S")]
    pub name: Option<String>,
    /// The new address; `null` takes the address away.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 300, pattern = "\\S")]
    pub address: Option<Option<String>>,
}

/// A field that is present, even as `null`, is `Some`: `null` means "no address" here.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

// `POST /v1/retailers/{id}/terminals`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTerminal {
    /// The till's name in the shop: at most 200 characters, not all spaces.
    #[schema(max_length = 200, pattern = "\\S")]
    pub label: String,
}

/// A retailer's terminal as the console lists it: never its key, only the key's first
/// characters, by which a till's key is recognised.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TerminalView {
    pub id: Uuid,
    pub label: String,
    pub key_prefix: String,
    /// When its key was revoked; `null` while it works.
    pub revoked_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<TerminalRow> for TerminalView {
    fn from(row: TerminalRow) -> Self {
        TerminalView {
            id: row.id,
            label: row.label,
            key_prefix: row.key_prefix,
            revoked_at: row.revoked_at,
            created_at: row.created_at,
        }
    }
}

/// A terminal just created, with its API key: shown in this answer and nowhere else, ever.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NewTerminalView {
    pub id: Uuid,
    pub retailer_id: Uuid,
    pub label: String,
    /// The key's first characters, by which it is found and shown later.
    pub key_prefix: String,
    pub api_key: String,
}

/// The roles a staff account may have.
fn staff_roles() -> utoipa::openapi::schema::Object {
    platform::openapi::one_of_texts(&["operator", "auditor"])
}

/// `GET /v1/mail`: the messages to one address, or all, and the page.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct MailQuery {
    /// Only the messages to this address (compared lower-cased).
    pub recipient: Option<String>,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<Uuid>)]
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// A message to a player, as the outbox holds it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MailView {
    pub id: Uuid,
    pub recipient: String,
    pub player_id: Option<Uuid>,
    /// What it tells: `verify_email`, `already_registered`, `already_verified`,
    /// `reset_password`, `password_changed`, `login_notice`, ...
    pub kind: String,
    pub subject: String,
    pub body: String,
    /// `queued` (waiting for the relay, or to be tried again), `sent` (the relay took it),
    /// `kept` (no relay configured: delivered here), `failed` (given up).
    #[schema(schema_with = MailState::schema)]
    pub state: MailState,
    pub attempts: i32,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    pub sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<crate::store::mail::MailRow> for MailView {
    type Error = platform::AppError;

    fn try_from(row: crate::store::mail::MailRow) -> Result<Self, Self::Error> {
        Ok(MailView {
            id: row.id,
            recipient: row.recipient,
            player_id: row.player_id,
            kind: row.kind,
            subject: row.subject,
            body: row.body,
            state: MailState::parse(&row.state)?,
            attempts: row.attempts,
            last_error: row.last_error,
            sent_at: row.sent_at,
            created_at: row.created_at,
        })
    }
}
