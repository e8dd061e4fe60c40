//! What staff, retailers and terminals look like on the wire.

use chrono::{DateTime, Utc};
use platform::auth::Role;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::store::staff::{RetailerRow, StaffRow};

// `POST /v1/staff`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewStaff {
    pub username: String,
    pub password: String,
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
    pub name: String,
    /// The shop's address, printed under its name on its tills' receipts (1 to 300 characters).
    #[serde(default)]
    #[schema(min_length = 1, max_length = 300)]
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
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    /// The new address; `null` takes the address away.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 300)]
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
    pub label: String,
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
