//! What a payment looks like on the wire: the player's request and view, the provider's payment
//! and webhook event, and what a webhook did (the flows are [`crate::saga::payments`]).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::store::payments::{PaymentKind, PaymentRow, Stage};

/// Where a payment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaymentState {
    /// Waiting for the provider.
    Pending,
    /// The provider confirmed it: a deposit is in the wallet, a withdrawal has left it.
    Succeeded,
    /// The provider refused it: a deposit never arrived, a withdrawal's hold was released.
    Failed,
}

/// `POST /v1/me/deposits` and `POST /v1/me/withdrawals`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PaymentRequest {
    /// Cents, 1 to 1,000,000,000,000.
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub amount: i64,
    /// Wallets are in US dollars.
    #[schema(schema_with = usd)]
    pub currency: String,
    /// The provider's token for the card or account to use (the sandbox declines
    /// `sandbox_decline`); `sandbox_card` when absent. 1 to 200 bytes.
    #[schema(min_length = 1, max_length = 200)]
    pub payment_method: Option<String>,
}

/// A payment as its player sees it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PaymentView {
    pub id: Uuid,
    pub kind: PaymentKind,
    pub amount: i64,
    pub currency: String,
    pub state: PaymentState,
    /// Why the provider refused it.
    pub failure: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The payment the gateway asks its provider to make (the provider's API, ADR 0007).
#[derive(Debug, Serialize, Deserialize)]
pub struct ProviderPayment {
    pub id: Uuid,
    pub kind: PaymentKind,
    pub amount: i64,
    pub currency: String,
    pub payment_method: String,
}

/// A provider's webhook body.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PaymentEvent {
    /// The provider's event id: each is applied once.
    pub id: String,
    /// `payment.succeeded` or `payment.failed`.
    #[serde(rename = "type")]
    pub kind: String,
    pub payment_id: Uuid,
    pub amount: i64,
    pub currency: String,
    pub reason: Option<String>,
}

impl From<&PaymentRow> for PaymentView {
    fn from(row: &PaymentRow) -> Self {
        PaymentView {
            id: row.id,
            kind: row.kind,
            amount: row.amount,
            currency: row.currency.clone(),
            // A payment settling is still pending to its player until its money has moved.
            state: match row.stage {
                Stage::Pending | Stage::Settling { .. } => PaymentState::Pending,
                Stage::Succeeded => PaymentState::Succeeded,
                Stage::Failed => PaymentState::Failed,
            },
            failure: row.failure.clone(),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// What a webhook did.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookReceipt {
    /// True when this event id had been applied before (nothing done now).
    pub replayed: bool,
    /// The payment's state after the event.
    pub state: PaymentState,
}

/// The one currency payments are in.
fn usd() -> utoipa::openapi::schema::Object {
    platform::openapi::one_of_texts(&["USD"])
}
