//! Staff log in with a second factor (issue 49 §Staff): enrolled at the first login (the secret
//! shown once, as a QR code), then a TOTP code after the password, each code taken once, or a
//! recovery code, each once; wrong codes locked apart from the password's count.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;
use common::{PASSWORD, TestGateway, totp_code};
use platform::auth::Role;
use serde_json::{Value, json};

async fn new_staff(gw: &TestGateway, username: &str) {
    gateway::create_staff(
        &gw.state.pool,
        &gw.state.passwords,
        username,
        PASSWORD.into(),
        Role::Operator,
        None,
    )
    .await
    .unwrap();
}

fn with(username: &str, second: Value) -> Value {
    let mut login = json!({"username": username, "password": PASSWORD});
    if let (Some(login), Value::Object(second)) = (login.as_object_mut(), second) {
        login.extend(second);
    }
    login
}

#[tokio::test]
async fn staff_enrol_at_their_first_login_then_each_code_logs_in_once() {
    let gw = TestGateway::new().await;
    new_staff(&gw, "sam").await;

    // The password alone opens nothing: the first login asks for the enrolment.
    let first = gw.login(json!({"username": "sam", "password": PASSWORD})).await;
    assert_eq!((first.status, first.code()), (StatusCode::FORBIDDEN, "second_factor_enrolment_required"));
    assert!(first.body.get("access_token").is_none(), "no token without the second factor");
    let bad_password = gw.login(json!({"username": "sam", "password": "not the password at all"})).await;
    assert_eq!(bad_password.code(), "invalid_credentials", "the password is checked first");
    let bad_enrolment = json!({"username": "sam", "password": "not the password at all"});
    let refused = gw.call("POST", "/v1/staff/second-factor/enrolment", None, Some(bad_enrolment)).await;
    assert_eq!(refused.code(), "invalid_credentials");

    // The secret is shown once: a QR code of its otpauth address, and its text.
    let credentials = json!({"username": "sam", "password": PASSWORD});
    let shown = gw.call("POST", "/v1/staff/second-factor/enrolment", None, Some(credentials.clone())).await;
    assert_eq!(shown.status, StatusCode::CREATED, "{}", shown.body);
    assert_eq!(shown.headers["cache-control"], "no-store");
    let secret = shown.body["secret"].as_str().unwrap().to_owned();
    let url = shown.body["otpauth_url"].as_str().unwrap();
    assert!(
        url.starts_with("otpauth://totp/Lottery:sam?") && url.contains(&format!("secret={secret}")),
        "{url}"
    );
    assert!(shown.body["qr_svg"].as_str().unwrap().starts_with("<svg"));
    let again = gw.call("POST", "/v1/staff/second-factor/enrolment", None, Some(credentials.clone())).await;
    assert_eq!((again.status, again.code()), (StatusCode::CONFLICT, "enrolment_already_shown"));

    // Confirmed with the app's code: logged in, and ten recovery codes, once.
    let confirm = |code: String| with("sam", json!({"code": code}));
    let path = "/v1/staff/second-factor/enrolment/confirm";
    let wrong_code = gw.call("POST", path, None, Some(confirm(wrong(&totp_code(&secret, 0))))).await;
    assert_eq!((wrong_code.status, wrong_code.code()), (StatusCode::UNAUTHORIZED, "second_factor_invalid"));
    let done = gw.call("POST", path, None, Some(confirm(totp_code(&secret, 0)))).await;
    assert_eq!(done.status, StatusCode::CREATED, "{}", done.body);
    let recovery: Vec<String> = done.body["recovery_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(recovery.len(), 10);
    let token = done.body["session"]["access_token"].as_str().unwrap();
    assert_eq!(gw.call("GET", "/v1/staff", Some(token), None).await.status, StatusCode::OK);
    let enrolled = gw.call("POST", "/v1/staff/second-factor/enrolment", None, Some(credentials)).await;
    assert_eq!(enrolled.code(), "second_factor_enrolled");
    let stored: Option<Vec<u8>> = sqlx::query_scalar("SELECT totp_secret FROM staff WHERE username = 'sam'")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    let stored = stored.unwrap();
    assert!(!stored.windows(secret.len()).any(|w| w == secret.as_bytes()), "the secret is kept sealed");

    // From now on: the password and a code, each code once (the confirmation used this step's).
    let bare = gw.login(json!({"username": "sam", "password": PASSWORD})).await;
    assert_eq!((bare.status, bare.code()), (StatusCode::UNAUTHORIZED, "second_factor_required"));
    let replayed = gw.login(with("sam", json!({"code": totp_code(&secret, 0)}))).await;
    assert_eq!((replayed.status, replayed.code()), (StatusCode::UNAUTHORIZED, "code_already_used"));
    // The app a step ahead (a clock a little fast) is taken, once; then no older step is.
    let ahead = gw.login(with("sam", json!({"code": totp_code(&secret, 1)}))).await;
    assert_eq!(ahead.status, StatusCode::CREATED, "{}", ahead.body);
    assert_eq!(
        gw.login(with("sam", json!({"code": totp_code(&secret, 1)}))).await.code(),
        "code_already_used"
    );
    // A recovery code in place of a code, each once, in any case.
    let by_recovery = gw.login(with("sam", json!({"recovery_code": recovery[3].to_uppercase()}))).await;
    assert_eq!(by_recovery.status, StatusCode::CREATED, "{}", by_recovery.body);
    let reused = gw.login(with("sam", json!({"recovery_code": recovery[3]}))).await;
    assert_eq!((reused.status, reused.code()), (StatusCode::UNAUTHORIZED, "second_factor_invalid"));
    let both = gw.login(with("sam", json!({"recovery_code": recovery[4], "code": "123456"}))).await;
    assert_eq!(both.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", both.body);
}

/// A code other than the expected one: its first digit changed.
fn wrong(code: &str) -> String {
    let first = (code.as_bytes()[0] - b'0' + 1) % 10;
    format!("{first}{}", &code[1..])
}

#[tokio::test]
async fn wrong_codes_lock_the_second_factor_apart_from_the_password() {
    let gw = TestGateway::new().await;
    gw.staff("tess", Role::Auditor).await;
    let secret = gw.enrolled("tess").await["secret"].as_str().unwrap().to_owned();
    let guess = wrong(&totp_code(&secret, 1));
    for n in 1..=4 {
        let refused = gw.login(with("tess", json!({"code": guess}))).await;
        assert_eq!(
            (refused.status, refused.code()),
            (StatusCode::UNAUTHORIZED, "second_factor_invalid"),
            "{n}"
        );
    }
    let fifth = gw.login(with("tess", json!({"code": guess}))).await;
    assert_eq!(
        (fifth.status, fifth.code()),
        (StatusCode::FORBIDDEN, "second_factor_locked"),
        "{}",
        fifth.body
    );
    assert!(fifth.headers.contains_key("retry-after"));
    // Locked: the right code too, and a recovery code; the password's own count never moved.
    let right = gw.login(with("tess", json!({"code": totp_code(&secret, 1)}))).await;
    assert_eq!(right.code(), "second_factor_locked");
    let (failed, locked): (i32, Option<chrono::DateTime<chrono::Utc>>) =
        sqlx::query_as("SELECT failed_logins, locked_until FROM staff WHERE username = 'tess'")
            .fetch_one(&gw.state.pool)
            .await
            .unwrap();
    assert_eq!((failed, locked), (0, None), "wrong codes are not wrong passwords");
    let wrong_password = gw.login(json!({"username": "tess", "password": "a wrong password here"})).await;
    assert_eq!(wrong_password.code(), "invalid_credentials");
}
