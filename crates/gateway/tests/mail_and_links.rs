//! Mail to players and the one-time links it carries (issue 49 §Email): an address proved by
//! its link, a password reset by its link, the login notice; and mail sent through a real SMTP
//! server (Debian's aiosmtpd, started here), once however many replicas send.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::http::StatusCode;
use common::{PASSWORD, TestGateway};
use gateway::mail::{DEFAULT_FROM, Mail, MailRelay};
use serde_json::json;

const NEW_PASSWORD: &str = "a quite different passphrase";

async fn outbox_rows(gw: &TestGateway) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM mail_outbox").fetch_one(&gw.state.pool).await.unwrap()
}

/// An address is proved by the link mailed to it, once, within 30 minutes, and only for the
/// account it was sent to; asking again answers alike for every address.
#[tokio::test]
async fn an_address_is_proved_once_by_its_link() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let bob = gw.player("bob@example.com").await;
    let me = gw.call("GET", "/v1/me", Some(&ann.token), None).await;
    assert_eq!(me.body["player"]["email_verified_at"], json!(null), "{}", me.body);
    let token = gw.link_token("ann@example.com", "verify_email").await;
    let link = gw.mail_to("ann@example.com").await[0]["body"].as_str().unwrap().to_owned();
    assert!(link.contains(&format!("http://localhost:8080/#/verify-email?token={token}")), "{link}");

    let unknown = gw.call("POST", "/v1/email-verifications", None, Some(json!({"token": "ol_0000"}))).await;
    assert_eq!((unknown.status, unknown.code()), (StatusCode::NOT_FOUND, "link_unknown"));
    let long = "x".repeat(10_000);
    let unknown = gw.call("POST", "/v1/email-verifications", None, Some(json!({"token": long}))).await;
    assert_eq!(unknown.code(), "link_unknown");
    // Bob, logged in, opens Ann's link: refused, and the link still works for her.
    let body = json!({"token": token});
    let foreign = gw.call("POST", "/v1/email-verifications", Some(&bob.token), Some(body.clone())).await;
    assert_eq!((foreign.status, foreign.code()), (StatusCode::FORBIDDEN, "link_for_another_account"));
    let proved = gw.call("POST", "/v1/email-verifications", None, Some(body.clone())).await;
    assert_eq!(proved.status, StatusCode::OK, "{}", proved.body);
    assert_eq!(proved.body["email"], "ann@example.com");
    let me = gw.call("GET", "/v1/me", Some(&ann.token), None).await;
    assert_eq!(me.body["player"]["email_verified_at"], proved.body["email_verified_at"]);
    let twice = gw.call("POST", "/v1/email-verifications", Some(&ann.token), Some(body)).await;
    assert_eq!((twice.status, twice.code()), (StatusCode::GONE, "link_used"));

    // Bob asks for a new link; the first is then worthless once the newest is used, and a link
    // past its 30 minutes is refused as late.
    let written = outbox_rows(&gw).await;
    let again = gw
        .call("POST", "/v1/email-verifications/resend", None, Some(json!({"email": "BOB@example.com"})))
        .await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.body);
    let nobody = gw
        .call("POST", "/v1/email-verifications/resend", None, Some(json!({"email": "nobody@example.com"})))
        .await;
    assert_eq!(nobody.status, StatusCode::ACCEPTED);
    assert_eq!(
        nobody.body["message"].as_str().unwrap().replace("nobody@", "BOB@"),
        again.body["message"].as_str().unwrap(),
        "an unknown address is answered as a known one"
    );
    assert_eq!(outbox_rows(&gw).await, written + 1, "nothing is written to an address without an account");
    let bob_links: Vec<String> = gw
        .mail_to("bob@example.com")
        .await
        .iter()
        .filter(|m| m["kind"] == "verify_email")
        .map(|m| {
            m["body"]
                .as_str()
                .unwrap()
                .split("token=")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(bob_links.len(), 2);
    sqlx::query("UPDATE one_time_links SET expires_at = now() - interval '1 second' WHERE token_hash = sha256($1::bytea)")
        .bind(bob_links[1].as_bytes())
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let late = gw.call("POST", "/v1/email-verifications", None, Some(json!({"token": bob_links[1]}))).await;
    assert_eq!((late.status, late.code()), (StatusCode::GONE, "link_expired"));
    let first = gw.call("POST", "/v1/email-verifications", None, Some(json!({"token": bob_links[0]}))).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    // A proved address asking again is told it is proved.
    gw.call("POST", "/v1/email-verifications/resend", None, Some(json!({"email": "bob@example.com"}))).await;
    let last = gw.mail_to("bob@example.com").await.pop().unwrap();
    assert_eq!(last["kind"], "already_verified", "{last}");
}

/// A password is reset by the link mailed to the address: the lock of failed logins lifted,
/// every session and refresh token ended, nobody logged in, the player told; the link works once.
#[tokio::test]
async fn a_password_is_reset_by_its_link_and_every_session_ends() {
    let gw = TestGateway::new().await;
    let cy = gw.player("cy@example.com").await;
    let other_session = gw.login(json!({"email": "cy@example.com", "password": PASSWORD})).await;
    let refresh = other_session.body["refresh_token"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        gw.login(json!({"email": "cy@example.com", "password": "not the password!"})).await;
    }
    let locked = gw.login(json!({"email": "cy@example.com", "password": PASSWORD})).await;
    assert_eq!(locked.code(), "account_locked");

    let asked = gw.call("POST", "/v1/password-resets", None, Some(json!({"email": "cy@example.com"}))).await;
    assert_eq!(asked.status, StatusCode::ACCEPTED, "{}", asked.body);
    let token = gw.link_token("cy@example.com", "reset_password").await;
    let weak = json!({"token": token, "password": "short"});
    let refused = gw.call("POST", "/v1/password-resets/complete", None, Some(weak)).await;
    assert_eq!(refused.code(), "weak_password", "a refused password leaves the link good");
    let body = json!({"token": token, "password": NEW_PASSWORD});
    let reset = gw.call("POST", "/v1/password-resets/complete", None, Some(body.clone())).await;
    assert_eq!(reset.status, StatusCode::NO_CONTENT, "{}", reset.body);
    assert!(reset.body.get("access_token").is_none(), "nobody is logged in by a reset");

    let old = gw.call("GET", "/v1/me", Some(&cy.token), None).await;
    assert_eq!((old.status, old.code()), (StatusCode::UNAUTHORIZED, "session_ended"));
    let renewed =
        gw.call("POST", "/v1/sessions/refresh", None, Some(json!({"refresh_token": refresh}))).await;
    assert_eq!((renewed.status, renewed.code()), (StatusCode::UNAUTHORIZED, "session_ended"));
    let old_password = gw.login(json!({"email": "cy@example.com", "password": PASSWORD})).await;
    assert_eq!(old_password.code(), "invalid_credentials");
    let twice = gw.call("POST", "/v1/password-resets/complete", None, Some(body)).await;
    assert_eq!((twice.status, twice.code()), (StatusCode::GONE, "link_used"));
    let new_password = gw.login(json!({"email": "cy@example.com", "password": NEW_PASSWORD})).await;
    assert_eq!(
        new_password.status,
        StatusCode::CREATED,
        "the lock is lifted by the reset: {}",
        new_password.body
    );
    let kinds: Vec<String> =
        gw.mail_to("cy@example.com").await.iter().map(|m| m["kind"].as_str().unwrap().to_owned()).collect();
    assert!(kinds.contains(&"password_changed".to_owned()), "{kinds:?}");
    // A reset link is not a verification link, nor the other way round.
    let verify = gw.link_token("cy@example.com", "verify_email").await;
    let crossed = json!({"token": verify, "password": NEW_PASSWORD});
    let crossed = gw.call("POST", "/v1/password-resets/complete", None, Some(crossed)).await;
    assert_eq!(crossed.code(), "link_unknown");
}

/// Every login is told to the player by mail, with the one before it, until they turn it off.
#[tokio::test]
async fn every_login_is_told_by_mail_unless_turned_off() {
    let gw = TestGateway::new().await;
    let di = gw.player("di@example.com").await;
    gw.login(json!({"email": "di@example.com", "password": PASSWORD})).await;
    let notices: Vec<_> =
        gw.mail_to("di@example.com").await.into_iter().filter(|m| m["kind"] == "login_notice").collect();
    assert_eq!(notices.len(), 2, "{notices:#?}");
    assert!(notices[0]["body"].as_str().unwrap().contains("This is the first login."));
    assert!(notices[1]["body"].as_str().unwrap().contains("The login before it was on"));
    let off = gw.call("PUT", "/v1/me/login-notices", Some(&di.token), Some(json!({"enabled": false}))).await;
    assert_eq!(off.status, StatusCode::OK, "{}", off.body);
    gw.login(json!({"email": "di@example.com", "password": PASSWORD})).await;
    let after =
        gw.mail_to("di@example.com").await.into_iter().filter(|m| m["kind"] == "login_notice").count();
    assert_eq!(after, 2);
    let me = gw.call("GET", "/v1/me", Some(&di.token), None).await;
    assert_eq!(me.body["player"]["login_notices"], false);
}

/// Debian's aiosmtpd, listening on a port and keeping what arrives in a maildir; stopped when
/// dropped (a failing test leaves no server behind).
struct SmtpServer(Child);

impl SmtpServer {
    fn start(port: u16, dir: &Path) -> SmtpServer {
        let child = Command::new("/usr/bin/python3")
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3-aiosmtpd is installed (.ci/run installs it)");
        let server = SmtpServer(child);
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("aiosmtpd did not listen on {port}");
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The messages in maildir `dir`, as their text reads once its quoted-printable lines are
/// joined (as a mail program shows them; the bodies are ASCII).
fn delivered(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("new")) else { return Vec::new() };
    entries
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap().replace("=\n", "").replace("=3D", "="))
        .collect()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// With a relay configured, registrations' messages go over SMTP to a real server, each once
/// though two replicas send at the same time; a relay that is away holds nothing up, and the
/// message goes when it is back.
#[tokio::test]
async fn mail_goes_out_through_a_real_smtp_server_once() {
    // Each attempt is counted and timed as a call to the `mail` provider (issue 51).
    platform::metrics::ensure_recorder();
    let gw = TestGateway::new().await;
    let port = free_port();
    let maildir: PathBuf = std::env::temp_dir().join(format!("lotto-maildir-{}", uuid::Uuid::now_v7()));
    let server = SmtpServer::start(port, &maildir);
    let relay = MailRelay::smtp(&format!("smtp://127.0.0.1:{port}"), DEFAULT_FROM).unwrap();
    let mut state = gw.state.clone();
    state.mail = Mail { relay, site: "https://play.lottery.example".to_owned() };
    let router = gateway::router(state.clone(), platform::http::Limits::default());
    let register = |email: String| {
        let body = json!({"email": email, "password": PASSWORD, "date_of_birth": "1990-05-17"});
        let request = axum::http::Request::post("/v1/players")
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        platform::testing::send(&router, request)
    };
    for i in 0..30 {
        let reply = register(format!("p{i}@example.com")).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
    }
    // Two replicas' workers at once, until the outbox is empty.
    let replica = state.clone();
    let (a, b) = tokio::join!(
        async {
            let mut n = 0;
            while let Ok(sent @ 1..) = state.send_due_mail().await {
                n += sent;
            }
            n
        },
        async {
            let mut n = 0;
            while let Ok(sent @ 1..) = replica.send_due_mail().await {
                n += sent;
            }
            n
        }
    );
    assert_eq!(a + b, 30, "{a} + {b}");
    let messages = delivered(&maildir);
    assert_eq!(messages.len(), 30, "each message arrived once");
    let ids: std::collections::HashSet<String> = messages
        .iter()
        .map(|m| m.lines().find(|l| l.to_lowercase().starts_with("message-id:")).unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 30);
    let one = messages.iter().find(|m| m.contains("To: p7@example.com")).expect("p7's message");
    assert!(one.contains("Subject: Confirm your email address"), "{one}");
    assert!(one.contains("https://play.lottery.example/#/verify-email?token=ol_"), "{one}");
    let sent: i64 =
        sqlx::query_scalar("SELECT count(*) FROM mail_outbox WHERE state = 'sent' AND attempts = 1")
            .fetch_one(&gw.state.pool)
            .await
            .unwrap();
    assert_eq!(sent, 30);

    // The relay goes away: the registration is answered as ever; the message waits.
    drop(server);
    let reply = register("late@example.com".to_owned()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
    assert_eq!(state.send_due_mail().await.unwrap(), 0);
    let (state_now, attempts, error): (String, i32, Option<String>) = sqlx::query_as(
        "SELECT state, attempts, last_error FROM mail_outbox WHERE recipient = 'late@example.com'",
    )
    .fetch_one(&gw.state.pool)
    .await
    .unwrap();
    assert_eq!((state_now.as_str(), attempts), ("queued", 1), "{error:?}");
    assert!(error.is_some());
    // Back, and the wait over: it goes.
    let server = SmtpServer::start(port, &maildir);
    sqlx::query("UPDATE mail_outbox SET next_attempt_at = now() WHERE recipient = 'late@example.com'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    assert_eq!(state.send_due_mail().await.unwrap(), 1);
    assert!(delivered(&maildir).iter().any(|m| m.contains("To: late@example.com")));
    // No other test of this binary has a relay that sends: these are this test's attempts.
    let metrics = platform::metrics::render();
    for (class, attempts) in [("2xx", 31), ("4xx", 1)] {
        let line =
            format!("upstream_requests_total{{upstream=\"mail\",status_class=\"{class}\"}} {attempts}");
        assert!(metrics.lines().any(|l| l == line), "no {line}:\n{metrics}");
    }
    assert!(metrics.contains("upstream_request_duration_seconds_count{upstream=\"mail\"} 32"), "{metrics}");
    drop(server);
    std::fs::remove_dir_all(&maildir).unwrap();
}

/// The kinds and texts of the messages to `email`, oldest first.
async fn letters(gw: &TestGateway, email: &str) -> Vec<(String, String)> {
    gw.mail_to(email)
        .await
        .iter()
        .map(|m| (m["kind"].as_str().unwrap().to_owned(), m["body"].as_str().unwrap().to_owned()))
        .collect()
}

/// The player is told by mail of every limit set, by them or by the lottery, of a withdrawal's
/// outcome, a break, an exclusion (their own or a list's) and a closure (issue 49 §Email).
#[tokio::test]
async fn a_limit_a_withdrawal_a_break_an_exclusion_and_a_closure_are_told_by_mail() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    gw.fund(&ann.token, 10_000).await;
    let set = |path: &'static str, body: serde_json::Value| {
        let (gw, token) = (&gw, ann.token.clone());
        async move {
            let reply = gw.call("PUT", path, Some(&token), Some(body)).await;
            assert_eq!(reply.status, StatusCode::OK, "{path}: {}", reply.body);
        }
    };
    set("/v1/me/deposit-limits", json!({"period": "monthly", "amount": 50_000})).await;
    set("/v1/me/limits", json!({"kind": "loss", "period": "daily", "amount": 2_000})).await;
    set("/v1/me/time-limits", json!({"period": "daily", "minutes": 90})).await;
    let imposed = gw
        .call(
            "PUT",
            &format!("/v1/players/{}/limits", ann.subject),
            Some(&operator.token),
            Some(json!({"kind": "single_stake", "period": null, "amount": 500, "reason": "help line"})),
        )
        .await;
    assert_eq!(imposed.status, StatusCode::OK, "{}", imposed.body);
    let request = axum::http::Request::post("/v1/me/withdrawals")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", ann.token))
        .header("idempotency-key", common::new_id())
        .body(axum::body::Body::from(json!({"amount": 1_250, "currency": "USD"}).to_string()))
        .unwrap();
    let withdrawal = gw.send(request).await;
    assert_eq!(withdrawal.status, StatusCode::ACCEPTED, "{}", withdrawal.body);
    let paid = gw.settled_payment(&ann.token, withdrawal.body["id"].as_str().unwrap()).await;
    assert_eq!(paid["state"], "succeeded", "{paid}");
    let taken =
        gw.call("POST", "/v1/me/time-out", Some(&ann.token), Some(json!({"period": "24_hours"}))).await;
    assert_eq!(taken.status, StatusCode::OK, "{}", taken.body);

    let told: Vec<(String, String)> = letters(&gw, "ann@example.com")
        .await
        .into_iter()
        .filter(|(kind, _)| !matches!(kind.as_str(), "login_notice" | "verify_email"))
        .collect();
    let kinds: Vec<&str> = told.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        ["limit_changed", "limit_changed", "limit_changed", "limit_changed", "withdrawal", "break"]
    );
    assert!(
        told[0].1.contains("You set a limit on your account: a monthly deposit limit of $500.00."),
        "{}",
        told[0].1
    );
    assert!(told[1].1.contains("a daily loss limit of $20.00"), "{}", told[1].1);
    assert!(told[2].1.contains("a daily time limit of 90 minutes"), "{}", told[2].1);
    assert!(
        told[3].1.contains("The lottery set a limit on your account: a single-stake limit of $5.00."),
        "{}",
        told[3].1
    );
    assert!(told[4].1.contains("Your cash-out of $12.50 was paid"), "{}", told[4].1);
    assert!(told[5].1.contains("You asked for a break from play. Until "), "{}", told[5].1);

    let bea = gw.player("bea@example.com").await;
    let out =
        gw.call("POST", "/v1/me/self-exclusion", Some(&bea.token), Some(json!({"period": "6_months"}))).await;
    assert_eq!(out.status, StatusCode::OK, "{}", out.body);
    let cal = gw.player("cal@example.com").await;
    let closed = gw.call("POST", "/v1/me/closure", Some(&cal.token), None).await;
    assert_eq!(closed.status, StatusCode::OK, "{}", closed.body);
    gw.player("dee@example.com").await;
    let listed = gw
        .call(
            "POST",
            "/v1/exclusion-list",
            Some(&operator.token),
            Some(json!({"source": "operator", "reference": "KS-9", "email": "dee@example.com"})),
        )
        .await;
    assert_eq!(listed.status, StatusCode::CREATED, "{}", listed.body);
    let last = |mut all: Vec<(String, String)>| all.pop().unwrap();
    let (kind, body) = last(letters(&gw, "bea@example.com").await);
    assert!(kind == "exclusion" && body.contains("You excluded yourself until "), "{kind}: {body}");
    let (kind, body) = last(letters(&gw, "cal@example.com").await);
    assert!(kind == "account_closed" && body.contains("You closed your lottery account"), "{kind}: {body}");
    let (kind, body) = last(letters(&gw, "dee@example.com").await);
    assert!(kind == "exclusion" && body.contains("exclusion list"), "{kind}: {body}");
    gw.assert_ledger_balanced().await;
}

/// A win of $600 or more paid into a wallet from a game is told to its player once, whoever
/// reads the journal and however often; a smaller one, and a deposit, are not.
#[tokio::test]
async fn a_large_win_is_told_by_mail_once() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let wallet =
        gw.call("GET", "/v1/me/wallet", Some(&ann.token), None).await.body["id"].as_str().unwrap().to_owned();
    let service = gw.service_token();
    let house = common::new_id();
    let opened = gw
        .call(
            "POST",
            "/v1/accounts",
            Some(&service),
            Some(json!({"id": house, "kind": "house_revenue", "owner": "keno-test", "currency": "USD"})),
        )
        .await;
    assert_eq!(opened.status, StatusCode::CREATED, "{}", opened.body);
    let pay = |cents: i64| {
        let (gw, service, house, wallet) = (&gw, service.clone(), house.clone(), wallet.clone());
        async move {
            let body = json!({"id": common::new_id(), "debit_account_id": house, "credit_account_id": wallet,
                              "amount": cents, "currency": "USD", "metadata": {"game": "castle_keno", "money": "prize"}});
            let paid = gw.call("POST", "/v1/transfers", Some(&service), Some(body)).await;
            assert_eq!(paid.status, StatusCode::CREATED, "{}", paid.body);
        }
    };
    // The reader's first pass starts at the journal's end: a win before it is not told.
    pay(70_000).await;
    assert_eq!(gw.state.tell_large_wins().await.unwrap(), 0);
    pay(59_999).await;
    gw.fund(&ann.token, 100_000).await;
    pay(125_000).await;
    let replica = gw.replica();
    let (one, two) = tokio::join!(gw.state.tell_large_wins(), replica.state.tell_large_wins());
    assert!(one.unwrap() + two.unwrap() >= 1);
    assert_eq!(gw.state.tell_large_wins().await.unwrap(), 0, "read once");
    let wins: Vec<(String, String)> =
        letters(&gw, "ann@example.com").await.into_iter().filter(|(kind, _)| kind == "large_win").collect();
    assert_eq!(wins.len(), 1, "{wins:?}");
    assert!(wins[0].1.contains("your wallet was credited $1,250.00 from Castle Keno"), "{}", wins[0].1);
    gw.assert_ledger_balanced().await;
}
