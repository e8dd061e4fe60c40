//! The gateway in front of a real ledger, both on one fresh database, called without a socket.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use gateway::GatewayState;
use gateway::rate_limit::{Quota, RateLimiter};
use platform::auth::{Role, TokenKeys};
use platform::http::Limits;
use platform::testing::Reply;
use platform::upstream::Upstream;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

pub struct TestGateway {
    pub router: Router,
    pub state: GatewayState,
    pub ledger_pool: PgPool,
    pub tokens: TokenKeys,
    /// The test's database, for reaching a service's own schema.
    pub url: String,
    /// The payment provider, kept for as long as the gateway it reports to.
    pub sandbox: gateway::sandbox::Sandbox,
    /// Each staff member's enrolment in a second factor ([`TestGateway::enrol`]), by username.
    pub enrolments: Arc<std::sync::Mutex<std::collections::HashMap<String, Value>>>,
}

/// A logged-in identity.
#[derive(Debug, Clone)]
pub struct Login {
    pub token: String,
    pub subject: String,
}

pub const PASSWORD: &str = "correct horse battery staple";

/// What the test's payment provider signs its webhooks with.
pub const WEBHOOK_SECRET: &str = assembly::TEST_WEBHOOK_SECRET;

impl TestGateway {
    pub async fn new() -> TestGateway {
        Self::with_quota(Quota { per_minute: 1_000_000, burst: 1_000_000 }).await
    }

    /// A gateway that takes no deposit and no stake before the player's identity is verified.
    pub async fn requiring_identity() -> TestGateway {
        let mut options = assembly::Options::for_tests().unwrap();
        options.gateway.identity_required = true;
        let quota = Quota { per_minute: 1_000_000, burst: 1_000_000 };
        Self::assembled(options, quota, quota).await
    }

    /// A gateway that takes no online stake without a location check (the identity not asked).
    pub async fn requiring_location() -> TestGateway {
        let mut options = assembly::Options::for_tests().unwrap();
        options.gateway.location_required = true;
        let quota = Quota { per_minute: 1_000_000, burst: 1_000_000 };
        Self::assembled(options, quota, quota).await
    }

    pub async fn with_quota(quota: Quota) -> TestGateway {
        Self::with_quotas(quota, quota).await
    }

    /// Per identity and per address.
    pub async fn with_quotas(per_identity: Quota, per_address: Quota) -> TestGateway {
        Self::assembled(assembly::Options::for_tests().unwrap(), per_identity, per_address).await
    }

    async fn assembled(options: assembly::Options, per_identity: Quota, per_address: Quota) -> TestGateway {
        let platform = assembly::Assembly::for_tests(options).await.unwrap();
        let mut state = platform.gateway.clone();
        // Drawn from the buckets every replica shares, as a deployed gateway's are.
        state.limiter = Arc::new(RateLimiter::shared(state.pool.clone(), per_identity, per_address));
        // The sandbox provider answers at once; its webhooks come back to this gateway.
        let router = gateway::router(state.clone(), Limits::default());
        platform.sandbox.deliver_to(Upstream::local("gateway", router.clone()));
        let (ledger_pool, tokens, url, sandbox) =
            (platform.ledger_pool, platform.tokens, platform.url, platform.sandbox);
        TestGateway { router, state, ledger_pool, tokens, url, sandbox, enrolments: Arc::default() }
    }

    /// Another replica of this gateway: its own process memory (rate-limit allowances, the
    /// ended sessions it learns of from the database every second, as a deployed one does), the
    /// same database and services.
    pub fn replica(&self) -> TestGateway {
        let mut state = self.state.clone();
        let (per_identity, per_address) = (state.limiter.per_identity, state.limiter.per_address);
        state.limiter = Arc::new(RateLimiter::shared(state.pool.clone(), per_identity, per_address));
        state.ended_sessions = gateway::auth::EndedSessions::default();
        state.ended_sessions.spawn_refresher(state.pool.clone(), Duration::from_secs(1));
        TestGateway {
            router: gateway::router(state.clone(), Limits::default()),
            state,
            ledger_pool: self.ledger_pool.clone(),
            tokens: self.tokens.clone(),
            url: self.url.clone(),
            sandbox: self.sandbox.clone(),
            enrolments: self.enrolments.clone(),
        }
    }

    pub async fn send(&self, request: Request<Body>) -> Reply {
        platform::testing::send(&self.router, request).await
    }

    /// An operator's print run of instant game `number`, followed from its 202 until its job has
    /// succeeded; the finished job.
    pub async fn print_run(&self, operator: &str, number: u32) -> Value {
        let path = format!("/v1/instant/games/{number}/print-runs");
        let started = self.call("POST", &path, Some(operator), Some(serde_json::json!({}))).await;
        assert_eq!(started.status.as_u16(), 202, "{}", started.body);
        let job = format!("/v1/instant/print-jobs/{}", started.body["id"].as_str().unwrap());
        for _ in 0..1_200 {
            let now = self.call("GET", &job, Some(operator), None).await;
            match now.body["state"].as_str() {
                Some("succeeded") => return now.body,
                Some("queued" | "running") => tokio::time::sleep(Duration::from_millis(50)).await,
                _ => panic!("the print job did not succeed: {}", now.body),
            }
        }
        panic!("the print job did not finish in a minute");
    }

    /// A request as `token` (None: anonymous).
    pub async fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Reply {
        let mut builder =
            Request::builder().method(method).uri(path).header("content-type", "application/json");
        if let Some(token) = token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
        self.send(builder.body(body).unwrap()).await
    }

    pub async fn register(&self, email: &str) -> Reply {
        self.call(
            "POST",
            "/v1/players",
            None,
            Some(json!({"email": email, "password": PASSWORD, "date_of_birth": "1990-05-17"})),
        )
        .await
    }

    /// The messages the outbox holds for `email`, oldest first, as an operator reads them.
    pub async fn mail_to(&self, email: &str) -> Vec<Value> {
        let operator =
            self.state.tokens.issue("mail-reader", Role::Auditor, None, Duration::from_secs(60)).unwrap();
        let path = format!("/v1/mail?recipient={}&limit=500", email.replace('+', "%2B"));
        let page = self.call("GET", &path, Some(&operator), None).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let mut items = page.body["items"].as_array().unwrap().clone();
        items.reverse();
        items
    }

    /// Confirms `email`'s address with the link mailed to it.
    pub async fn confirm_email(&self, email: &str) {
        let token = self.link_token(email, "verify_email").await;
        let done = self.call("POST", "/v1/email-verifications", None, Some(json!({"token": token}))).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    }

    /// The sandbox identity provider's hosted page at `url` (or one of its decision links), as
    /// the player's browser opens it: its status and HTML.
    pub async fn hosted(&self, url: &str) -> (StatusCode, String) {
        let path = url.find("/sandbox/").map_or(url, |at| &url[at..]);
        let request = Request::get(path).body(Body::empty()).unwrap();
        let response = tower::ServiceExt::oneshot(self.sandbox.hosted_pages(), request).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// `player`'s identity submitted and decided on the sandbox's hosted page by `outcome`
    /// (`approve`, `decline`, `review`, `resubmit`); the file once the webhook has applied it.
    pub async fn identity_decided(&self, player: &Login, outcome: &str) -> Value {
        let file = json!({"legal_name": "Pat Doe", "phone": "+1 785 555 0100", "ssn_last4": "6789",
            "address": {"line1": "100 SW Main St", "city": "Topeka", "region": "KS", "postal_code": "66603"}});
        self.identity_decided_with(player, file, outcome).await
    }

    /// [`TestGateway::identity_decided`] with the player file `file`.
    pub async fn identity_decided_with(&self, player: &Login, file: Value, outcome: &str) -> Value {
        let submitted = self.call("PUT", "/v1/me/identity", Some(&player.token), Some(file)).await;
        assert_eq!(submitted.status, StatusCode::ACCEPTED, "{}", submitted.body);
        let url = submitted.body["verification_url"].as_str().unwrap().to_owned();
        let (status, _) = self.hosted(&format!("{url}/{outcome}")).await;
        assert_eq!(status, StatusCode::OK);
        for _ in 0..200 {
            let file = self.call("GET", "/v1/me/identity", Some(&player.token), None).await;
            if file.body["state"] != "pending" {
                return file.body;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the identity webhook never came");
    }

    /// The token of the last link of `kind` mailed to `email`.
    pub async fn link_token(&self, email: &str, kind: &str) -> String {
        let mail = self.mail_to(email).await;
        let last = mail
            .iter()
            .rev()
            .find(|m| m["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} to {email}: {mail:#?}"));
        let body = last["body"].as_str().unwrap();
        let at = body.find("token=").unwrap_or_else(|| panic!("no link in {body}"));
        body[at + 6..].split_whitespace().next().unwrap().to_owned()
    }

    pub async fn login(&self, body: Value) -> Reply {
        self.call("POST", "/v1/sessions", None, Some(body)).await
    }

    /// A deposit intent with `key` (the provider confirms it shortly after).
    pub async fn deposit(&self, token: &str, key: &str, body: Value) -> Reply {
        let request = Request::post("/v1/me/deposits")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .header("idempotency-key", key)
            .body(Body::from(body.to_string()))
            .unwrap();
        self.send(request).await
    }

    /// The payment once the provider has reported its outcome.
    pub async fn settled_payment(&self, token: &str, id: &str) -> Value {
        for _ in 0..200 {
            let payment = self.call("GET", &format!("/v1/me/payments/{id}"), Some(token), None).await;
            assert_eq!(payment.status, StatusCode::OK, "{}", payment.body);
            if payment.body["state"] != "pending" {
                return payment.body;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("payment {id} is still pending");
    }

    /// Money into a player's wallet through the provider, confirmed.
    pub async fn fund(&self, token: &str, cents: i64) {
        let intent = self.deposit(token, &new_id(), json!({"amount": cents, "currency": "USD"})).await;
        assert_eq!(intent.status, StatusCode::ACCEPTED, "{}", intent.body);
        let payment = self.settled_payment(token, intent.body["id"].as_str().unwrap()).await;
        assert_eq!(payment["state"], "succeeded", "{payment}");
    }

    /// A registered, logged-in player.
    pub async fn player(&self, email: &str) -> Login {
        let reply = self.register(email).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
        let login = self.login(json!({"email": email, "password": PASSWORD})).await;
        assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
        Login {
            token: login.body["access_token"].as_str().unwrap().to_owned(),
            subject: login.body["subject"].as_str().unwrap().to_owned(),
        }
    }

    /// A staff member created directly, logged in.
    pub async fn staff(&self, username: &str, role: Role) -> Login {
        let id = gateway::create_staff(
            &self.state.pool,
            &self.state.passwords,
            username,
            PASSWORD.into(),
            role,
            None,
        )
        .await
        .unwrap();
        let enrolled = self.enrol(username).await;
        let token = enrolled["session"]["access_token"].as_str().unwrap().to_owned();
        Login { token, subject: id.to_string() }
    }

    /// Staff member `username` (password [`PASSWORD`]) enrolled in a second factor, as the
    /// console does at their first login: the enrolment confirmed with the app's code; the
    /// answer (the session, the recovery codes) with the secret as `secret`.
    pub async fn enrol(&self, username: &str) -> Value {
        let credentials = json!({"username": username, "password": PASSWORD});
        let shown = self.call("POST", "/v1/staff/second-factor/enrolment", None, Some(credentials)).await;
        assert_eq!(shown.status, StatusCode::CREATED, "{}", shown.body);
        let secret = shown.body["secret"].as_str().unwrap().to_owned();
        let code = totp_code(&secret, 0);
        let confirm = json!({"username": username, "password": PASSWORD, "code": code});
        let mut done =
            self.call("POST", "/v1/staff/second-factor/enrolment/confirm", None, Some(confirm)).await;
        assert_eq!(done.status, StatusCode::CREATED, "{}", done.body);
        done.body["secret"] = json!(secret);
        self.enrolments.lock().unwrap().insert(username.to_owned(), done.body.clone());
        done.body
    }

    /// What staff member `username`'s enrolment answered (the session, the recovery codes, the
    /// secret).
    pub async fn enrolled(&self, username: &str) -> Value {
        self.enrolments
            .lock()
            .unwrap()
            .get(username)
            .cloned()
            .unwrap_or_else(|| panic!("{username} never enrolled"))
    }

    /// A login of staff member `username` (password [`PASSWORD`]) with a recovery code of
    /// `enrolled` (the answer of [`TestGateway::enrol`]), each used once: the `n`th.
    pub async fn staff_login(&self, username: &str, enrolled: &Value, n: usize) -> Login {
        let recovery = enrolled["recovery_codes"][n].as_str().unwrap();
        let login =
            self.login(json!({"username": username, "password": PASSWORD, "recovery_code": recovery})).await;
        assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
        Login {
            token: login.body["access_token"].as_str().unwrap().to_owned(),
            subject: login.body["subject"].as_str().unwrap().to_owned(),
        }
    }

    /// A retailer with one terminal, logged in with its API key.
    pub async fn terminal(&self, operator: &Login) -> (Login, String) {
        let retailer = self
            .call(
                "POST",
                "/v1/retailers",
                Some(&operator.token),
                Some(json!({"name": "Corner Store", "address": "12 Main St, Topeka KS"})),
            )
            .await;
        assert_eq!(retailer.status, StatusCode::CREATED, "{}", retailer.body);
        let path = format!("/v1/retailers/{}/terminals", retailer.body["id"].as_str().unwrap());
        let terminal =
            self.call("POST", &path, Some(&operator.token), Some(json!({"label": "till 1"}))).await;
        assert_eq!(terminal.status, StatusCode::CREATED, "{}", terminal.body);
        assert_eq!(terminal.headers["cache-control"], "no-store", "an API key is never cached");
        let key = terminal.body["api_key"].as_str().unwrap().to_owned();
        let login = self.login(json!({"api_key": key})).await;
        assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
        (
            Login {
                token: login.body["access_token"].as_str().unwrap().to_owned(),
                subject: terminal.body["id"].as_str().unwrap().to_owned(),
            },
            key,
        )
    }

    pub fn service_token(&self) -> String {
        self.tokens.service_token("tests").unwrap()
    }

    /// Every currency balances in the ledger behind the gateway.
    pub async fn assert_ledger_balanced(&self) {
        let trial = self.call("GET", "/v1/reports/trial-balance", Some(&self.service_token()), None).await;
        assert_eq!(trial.body["balanced"], true, "{}", trial.body);
        let check = self.call("GET", "/v1/reports/journal-check", Some(&self.service_token()), None).await;
        assert_eq!(check.body["consistent"], true, "{}", check.body);
    }
}

pub fn new_id() -> String {
    Uuid::now_v7().to_string()
}

/// The code an authenticator app shows for base32 `secret`, `steps` time steps (30 s) from now.
pub fn totp_code(secret: &str, steps: i64) -> String {
    let secret = totp_rs::Secret::try_from_base32(secret).unwrap();
    let totp = totp_rs::Builder::new().with_secret(secret).build().unwrap();
    let at = chrono::Utc::now().timestamp() + steps * 30;
    totp.generate(u64::try_from(at).unwrap()).to_string()
}

/// A stake as a client sends it: with a key of its own.
pub async fn play(gw: &TestGateway, player: &Login, path: &str, body: Value) -> Reply {
    let request = Request::post(path)
        .header("authorization", format!("Bearer {}", player.token))
        .header("content-type", "application/json")
        .header("idempotency-key", new_id())
        .body(Body::from(body.to_string()))
        .unwrap();
    gw.send(request).await
}

/// The player's wallet balance, in cents.
pub async fn balance(gw: &TestGateway, player: &Login) -> i64 {
    let wallet = gw.call("GET", "/v1/me/wallet", Some(&player.token), None).await;
    assert_eq!(wallet.status, 200, "{}", wallet.body);
    wallet.body["balance"]["posted"].as_i64().unwrap()
}
