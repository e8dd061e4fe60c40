//! Location checks on the wire, and the geolocation provider's own messages.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `POST /v1/me/location-checks`: what the geolocation provider's device kit collected on the
/// player's device, passed to the provider as it is.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LocationCheckRequest {
    /// The device kit's packet (letters, digits and `_ . : / + = -`). The sandbox reads
    /// `sandbox_outside` as a device outside the jurisdiction, `sandbox_blocked` as one behind a
    /// VPN or proxy, anything else as one inside.
    #[schema(min_length = 1, max_length = 4096, pattern = "^[A-Za-z0-9_.:/+=-]+$")]
    pub packet: String,
}

/// What a check found: the device in the jurisdiction, outside it, or hidden (a VPN, a proxy,
/// a location the provider could not establish).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocationResult {
    Inside,
    Outside,
    Blocked,
}

impl LocationResult {
    pub fn as_str(self) -> &'static str {
        match self {
            LocationResult::Inside => "inside",
            LocationResult::Outside => "outside",
            LocationResult::Blocked => "blocked",
        }
    }

    pub fn parse(text: &str) -> Option<LocationResult> {
        [LocationResult::Inside, LocationResult::Outside, LocationResult::Blocked]
            .into_iter()
            .find(|r| r.as_str() == text)
    }
}

/// A location check, as recorded.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LocationCheckView {
    pub id: Uuid,
    /// The login the check stands for.
    pub session_id: Uuid,
    pub result: LocationResult,
    /// The jurisdiction asked about (`US-KS`).
    pub jurisdiction: String,
    /// The provider's words for what it found.
    pub reason: String,
    /// The network address the check was taken from; `null` when it was not known.
    pub ip: Option<String>,
    pub checked_at: DateTime<Utc>,
    /// Until when an online stake may rely on it (from this address, in this login).
    pub expires_at: DateTime<Utc>,
}

/// What the gateway asks the provider (`POST /v1/location/checks`).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProviderLocationRequest {
    /// The login the check is for.
    pub reference: Uuid,
    /// The address the player's requests come from.
    pub ip: Option<String>,
    pub packet: String,
    pub jurisdiction: String,
}

/// The provider's answer.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProviderLocation {
    /// The provider's id of the check.
    pub id: String,
    pub result: LocationResult,
    pub reason: String,
}
