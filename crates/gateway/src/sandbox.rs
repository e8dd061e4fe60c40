//! A payment provider's sandbox, for the quick start and the tests: it takes the gateway's
//! payments (`POST /v1/payments`), and a short while later (`LOTTO_SANDBOX_DELAY_MS`, one
//! second) reports each one's outcome to the gateway's webhook, signed as a real provider signs.
//! A payment whose method is `sandbox_decline` fails (`card_declined`); every other succeeds.
//! Like a real provider it retries a webhook that was not answered 2xx, a few times.

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{Request, StatusCode, header};
use axum::routing::post;
use platform::upstream::Upstream;
use platform::webhook::{SIGNATURE_HEADER, WebhookSecret};
use platform::{AppError, Json};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::views::payments::{PaymentEvent, ProviderPayment};

/// The method the sandbox declines.
pub const DECLINE: &str = "sandbox_decline";

/// The sandbox provider: the handle its owner keeps (the assembly, `lotto payments-sandbox`).
///
/// The webhooks' destination is held here, by the owner; the provider's routes, which the
/// gateway holds as its payment provider, reach it only weakly. Otherwise a gateway in this
/// process would hold its provider holding the gateway, and neither (nor any pool they hold)
/// would ever be freed: every test's platform and its database connections were kept until the
/// test process ended. Once the handle is dropped, payments taken are no longer reported.
#[derive(Debug, Clone)]
pub struct Sandbox {
    provider: Provider,
    /// The gateway, once it exists (it is built with the sandbox as its provider).
    gateway: Arc<OnceLock<Upstream>>,
}

/// What the provider's routes hold.
#[derive(Debug, Clone)]
struct Provider {
    secret: WebhookSecret,
    delay: Duration,
    gateway: Weak<OnceLock<Upstream>>,
}

impl Sandbox {
    /// A sandbox that signs with `secret` and answers after `delay`.
    pub fn new(secret: WebhookSecret, delay: Duration) -> Sandbox {
        let gateway = Arc::new(OnceLock::new());
        Sandbox { provider: Provider { secret, delay, gateway: Arc::downgrade(&gateway) }, gateway }
    }

    /// Where the webhooks go: the gateway's routes (in-process) or its address.
    pub fn deliver_to(&self, gateway: Upstream) {
        let _ = self.gateway.set(gateway);
    }

    /// The provider's API.
    pub fn router(&self) -> Router {
        Router::new().route("/v1/payments", post(take_payment)).with_state(self.provider.clone())
    }
}

impl Provider {
    async fn report(&self, payment: ProviderPayment) {
        tokio::time::sleep(self.delay).await;
        let declined = payment.payment_method == DECLINE;
        let event = PaymentEvent {
            id: format!("evt_{}", Uuid::now_v7().simple()),
            kind: if declined { "payment.failed" } else { "payment.succeeded" }.to_owned(),
            payment_id: payment.id,
            amount: payment.amount,
            currency: payment.currency,
            reason: declined.then(|| "card_declined".to_owned()),
        };
        let Ok(body) = serde_json::to_vec(&event) else { return };
        for attempt in 0..8u32 {
            // Taken for this attempt only, so that a wait between attempts holds nothing.
            let Some(destination) = self.gateway.upgrade() else { return };
            let Some(gateway) = destination.get() else { return };
            let signature = self.secret.sign(chrono::Utc::now().timestamp(), &body);
            let request = Request::post("/v1/payments/webhook")
                .header(header::CONTENT_TYPE, "application/json")
                .header(SIGNATURE_HEADER, signature)
                .body(Body::from(body.clone()));
            let Ok(request) = request else { return };
            let status = gateway.forward(request, 1 << 16).await.status();
            if status.is_success() {
                return;
            }
            tracing::warn!(payment = %event.payment_id, %status, attempt, "sandbox webhook not accepted; retrying");
            tokio::time::sleep(Duration::from_millis(200u64 << attempt.min(5))).await;
        }
    }
}

async fn take_payment(
    State(sandbox): State<Provider>,
    Json(payment): Json<ProviderPayment>,
) -> Result<(StatusCode, Json<Value>), AppError> {
    let answer = json!({"id": payment.id, "status": "processing"});
    tokio::spawn(async move { sandbox.report(payment).await });
    Ok((StatusCode::CREATED, Json(answer)))
}
