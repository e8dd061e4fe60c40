//! A payment provider's sandbox, for the quick start and the tests: it takes the gateway's
//! payments (`POST /v1/payments`), and a short while later (`LOTTO_SANDBOX_DELAY_MS`, one
//! second) reports each one's outcome to the gateway's webhook, signed as a real provider signs.
//! A payment whose method is `sandbox_decline` fails (`card_declined`); every other succeeds.
//! Like a real provider it retries a webhook that was not answered 2xx, a few times.
//!
//! It is the identity provider's sandbox too (issue 49 §KYC): it opens a verification session
//! (`POST /v1/identity/sessions`), shows a hosted page for it (`GET /sandbox/identity/{id}`,
//! served by `lotto` beside the web client) whose links decide it as the tester asks
//! (`/sandbox/identity/{id}/approve`, `decline`, `review`, `resubmit`), then sends the
//! gateway's identity webhook, signed, and answers the decision when asked for it
//! (`GET /v1/identity/sessions/{id}`). And the geolocation provider's: it checks a device
//! (`POST /v1/location/checks`) in or out of the jurisdiction as the tester's packet asks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;
use tracing::Instrument;

use axum::Router;
use axum::body::Body;
use axum::extract::Path;
use axum::extract::State;
use axum::http::{Request, StatusCode, header};
use axum::response::Html;
use axum::routing::{get, post};
use platform::upstream::Upstream;
use platform::webhook::{SIGNATURE_HEADER, WebhookSecret};
use platform::{AppError, Json};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::views::identity::{IdentityEvent, ProviderSession, ProviderSessionRequest};
use crate::views::location::{LocationResult, ProviderLocation, ProviderLocationRequest};
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
    /// What identity webhooks are signed with.
    identity_secret: WebhookSecret,
    /// Where the hosted pages are (the address players open).
    site: String,
    /// The identity sessions opened, by id.
    sessions: Arc<Mutex<HashMap<String, ProviderSession>>>,
}

impl Sandbox {
    /// A sandbox that signs with `secret` and answers after `delay`.
    pub fn new(secret: WebhookSecret, delay: Duration) -> Sandbox {
        let gateway = Arc::new(OnceLock::new());
        let provider = Provider {
            identity_secret: secret.clone(),
            secret,
            delay,
            gateway: Arc::downgrade(&gateway),
            site: "http://localhost:8080".to_owned(),
            sessions: Arc::default(),
        };
        Sandbox { provider, gateway }
    }

    /// The same sandbox signing identity webhooks with `secret`, its hosted pages at `site`.
    #[must_use]
    pub fn with_identity(mut self, secret: WebhookSecret, site: &str) -> Sandbox {
        self.provider.identity_secret = secret;
        self.provider.site = site.trim_end_matches('/').to_owned();
        self
    }

    /// The hosted identity pages, for the server players reach (`lotto` serves them).
    pub fn hosted_pages(&self) -> Router {
        Router::new()
            .route("/sandbox/identity/{id}", get(hosted_page))
            .route("/sandbox/identity/{id}/{outcome}", get(decide_session))
            .with_state(self.provider.clone())
    }

    /// Where the webhooks go: the gateway's routes (in-process) or its address.
    pub fn deliver_to(&self, gateway: Upstream) {
        let _ = self.gateway.set(gateway);
    }

    /// The provider's API.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/v1/payments", post(take_payment))
            .route("/v1/identity/sessions", post(open_session))
            .route("/v1/identity/sessions/{id}", get(read_session))
            .route("/v1/location/checks", post(check_location))
            .with_state(self.provider.clone())
    }
}

impl Provider {
    /// Sends the gateway `body` signed with `secret` to `path`, again a few times until it is
    /// answered 2xx.
    async fn deliver(&self, path: &str, secret: &WebhookSecret, body: Vec<u8>, about: &str) {
        for attempt in 0..8u32 {
            // Taken for this attempt only, so that a wait between attempts holds nothing.
            let Some(destination) = self.gateway.upgrade() else { return };
            let Some(gateway) = destination.get() else { return };
            let signature = secret.sign(chrono::Utc::now().timestamp(), &body);
            let request = Request::post(path)
                .header(header::CONTENT_TYPE, "application/json")
                .header(SIGNATURE_HEADER, signature)
                .body(Body::from(body.clone()));
            let Ok(request) = request else { return };
            let status = gateway.forward(request, 1 << 16).await.status();
            if status.is_success() {
                return;
            }
            tracing::warn!(about, %status, attempt, "sandbox webhook not accepted; retrying");
            tokio::time::sleep(Duration::from_millis(200u64 << attempt.min(5))).await;
        }
    }

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
        self.deliver("/v1/payments/webhook", &self.secret, body, &event.payment_id.to_string()).await;
    }
}

async fn take_payment(
    State(sandbox): State<Provider>,
    Json(payment): Json<ProviderPayment>,
) -> Result<(StatusCode, Json<Value>), AppError> {
    let answer = json!({"id": payment.id, "status": "processing"});
    // Its webhook carries the trace of the request that asked for the payment (`traceparent`,
    // as a provider that speaks W3C trace context sends it back): the confirmation is a span of
    // the deposit's trace.
    tokio::spawn(async move { sandbox.report(payment).await }.instrument(tracing::Span::current()));
    Ok((StatusCode::CREATED, Json(answer)))
}

/// The geolocation provider's check: the device kit's packet read as the tester asked
/// (`sandbox_outside`: outside the jurisdiction; `sandbox_blocked`: behind a VPN or proxy;
/// anything else: inside).
async fn check_location(
    Json(request): Json<ProviderLocationRequest>,
) -> (StatusCode, Json<ProviderLocation>) {
    let place = &request.jurisdiction;
    let (result, reason) = match request.packet.as_str() {
        "sandbox_outside" => (LocationResult::Outside, format!("the device is outside {place}")),
        "sandbox_blocked" => (LocationResult::Blocked, "a VPN or proxy hides where the device is".to_owned()),
        _ => (LocationResult::Inside, format!("the device is in {place}")),
    };
    let id = format!("geo_{}", Uuid::now_v7().simple());
    (StatusCode::CREATED, Json(ProviderLocation { id, result, reason }))
}

/// The outcomes a tester chooses on the hosted page, as the provider's statuses.
const OUTCOMES: [(&str, &str, &str); 4] = [
    ("approve", "approved", "Approve"),
    ("decline", "declined", "Decline"),
    ("review", "review", "Send to review"),
    ("resubmit", "resubmission_requested", "Ask for the details again"),
];

fn no_session() -> AppError {
    AppError::not_found(platform::codes::ROUTE_NOT_FOUND, "no such verification session")
}

async fn open_session(
    State(sandbox): State<Provider>,
    Json(request): Json<ProviderSessionRequest>,
) -> Result<(StatusCode, Json<ProviderSession>), AppError> {
    let id = format!("idv_{}", Uuid::now_v7().simple());
    let session = ProviderSession {
        url: format!("{}/sandbox/identity/{id}", sandbox.site),
        id: id.clone(),
        status: "created".to_owned(),
        reason: None,
        decided_at: None,
    };
    tracing::debug!(reference = %request.reference, session = %id, "sandbox identity session opened");
    sandbox.sessions.lock().map_err(|_| AppError::internal("sandbox sessions"))?.insert(id, session.clone());
    Ok((StatusCode::CREATED, Json(session)))
}

async fn read_session(
    State(sandbox): State<Provider>,
    Path(id): Path<String>,
) -> Result<Json<ProviderSession>, AppError> {
    let sessions = sandbox.sessions.lock().map_err(|_| AppError::internal("sandbox sessions"))?;
    sessions.get(&id).cloned().map(Json).ok_or_else(no_session)
}

/// The hosted page: what the session is, and a link for each outcome.
async fn hosted_page(
    State(sandbox): State<Provider>,
    Path(id): Path<String>,
) -> Result<Html<String>, AppError> {
    let status = {
        let sessions = sandbox.sessions.lock().map_err(|_| AppError::internal("sandbox sessions"))?;
        sessions.get(&id).map(|s| s.status.clone()).ok_or_else(no_session)?
    };
    let links: String = OUTCOMES
        .iter()
        .map(|(path, _, words)| format!("<li><a href=\"/sandbox/identity/{id}/{path}\">{words}</a></li>"))
        .collect();
    Ok(Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>Identity check (sandbox)</title></head>\
         <body><main><h1>Identity check (sandbox)</h1><p>Session {id}: {status}.</p>\
         <p>A real provider checks documents here. Choose what the sandbox decides:</p><ul>{links}</ul></main></body></html>"
    )))
}

/// Decides the session as the tester chose, then tells the gateway (signed) a moment later.
async fn decide_session(
    State(sandbox): State<Provider>,
    Path((id, outcome)): Path<(String, String)>,
) -> Result<Html<String>, AppError> {
    let (_, status, words) = OUTCOMES.iter().find(|(path, _, _)| *path == outcome).ok_or_else(no_session)?;
    {
        let mut sessions = sandbox.sessions.lock().map_err(|_| AppError::internal("sandbox sessions"))?;
        let session = sessions.get_mut(&id).ok_or_else(no_session)?;
        session.status = (*status).to_owned();
        session.decided_at = Some(chrono::Utc::now());
        session.reason = (*status != "approved").then(|| format!("sandbox: {}", words.to_lowercase()));
    }
    let event = IdentityEvent {
        id: format!("evt_{}", Uuid::now_v7().simple()),
        kind: "identity.decided".to_owned(),
        session: id.clone(),
        occurred_at: chrono::Utc::now(),
    };
    let body = serde_json::to_vec(&event).map_err(AppError::internal)?;
    let provider = sandbox.clone();
    tokio::spawn(
        async move {
            tokio::time::sleep(provider.delay).await;
            provider.deliver("/v1/identity/webhook", &provider.identity_secret, body, &id).await;
        }
        .instrument(tracing::Span::current()),
    );
    Ok(Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>Identity check (sandbox)</title></head>\
         <body><main><h1>Identity check (sandbox)</h1><p data-outcome=\"{status}\">Decided: {words}.</p>\
         <p><a href=\"{}/#/play\">Return to the lottery</a></p></main></body></html>",
        sandbox.site
    )))
}
