//! Players verified before money moves (issue 49 §KYC): the player file, the sandbox identity
//! provider's hosted check and signed webhook (forged, replayed, late and out of order), an
//! operator's decision on a file in review, and the gate before every deposit and stake.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;
use common::{Login, TestGateway, new_id, play};
use platform::auth::Role;
use platform::webhook::{SIGNATURE_HEADER, WebhookSecret};
use serde_json::{Value, json};

fn keno() -> Value {
    json!({"option": "bet", "spots": [7], "tickets": 1})
}

/// A player registered, logged in, the address confirmed.
async fn confirmed(gw: &TestGateway, email: &str) -> Login {
    let player = gw.player(email).await;
    gw.confirm_email(email).await;
    player
}

#[tokio::test]
async fn no_deposit_and_no_stake_before_the_identity_is_verified() {
    let gw = TestGateway::requiring_identity().await;
    let ann = gw.player("ann@example.com").await;
    let deposit = gw.deposit(&ann.token, &new_id(), json!({"amount": 5_000, "currency": "USD"})).await;
    assert_eq!((deposit.status, deposit.code()), (StatusCode::FORBIDDEN, "identity_not_verified"));
    assert_eq!(deposit.body["context"]["submit_at"], "/v1/me/identity", "{}", deposit.body);
    let stake = play(&gw, &ann, "/v1/keno/tickets", keno()).await;
    assert_eq!((stake.status, stake.code()), (StatusCode::FORBIDDEN, "identity_not_verified"));

    let file = |line1: &str, phone: &str| {
        json!({"legal_name": "Ann Lee", "phone": phone, "ssn_last4": "4321",
            "address": {"line1": line1, "city": "Topeka", "region": "KS", "postal_code": "66603"}})
    };
    let po_box =
        gw.call("PUT", "/v1/me/identity", Some(&ann.token), Some(file("P.O. Box 12", "785 555 0100"))).await;
    assert_eq!((po_box.status, po_box.code()), (StatusCode::UNPROCESSABLE_ENTITY, "po_box_address"));
    let phone = gw.call("PUT", "/v1/me/identity", Some(&ann.token), Some(file("1 Main St", "call me"))).await;
    assert_eq!(phone.code(), "invalid_identity");
    let early =
        gw.call("PUT", "/v1/me/identity", Some(&ann.token), Some(file("1 Main St", "785 555 0100"))).await;
    assert_eq!((early.status, early.code()), (StatusCode::FORBIDDEN, "email_not_verified"));
    gw.confirm_email("ann@example.com").await;
    let sent =
        gw.call("PUT", "/v1/me/identity", Some(&ann.token), Some(file("1 Main St", "785 555 0100"))).await;
    assert_eq!(sent.status, StatusCode::ACCEPTED, "{}", sent.body);
    assert_eq!(
        (sent.body["state"].as_str(), sent.body["ssn_last4_given"].as_bool()),
        (Some("pending"), Some(true))
    );
    assert!(sent.body.get("ssn_last4").is_none());
    let stored: Vec<u8> = sqlx::query_scalar("SELECT ssn_last4 FROM player_identities")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    assert!(!stored.windows(4).any(|w| w == b"4321"), "the digits are kept sealed");
    let again =
        gw.call("PUT", "/v1/me/identity", Some(&ann.token), Some(file("1 Main St", "785 555 0100"))).await;
    assert_eq!((again.status, again.code()), (StatusCode::CONFLICT, "identity_in_progress"));
    let pending = gw.deposit(&ann.token, &new_id(), json!({"amount": 5_000, "currency": "USD"})).await;
    assert_eq!(pending.code(), "identity_not_verified");

    // The player opens the provider's page and the sandbox approves: the webhook verifies her.
    let url = sent.body["verification_url"].as_str().unwrap();
    let (status, page) = gw.hosted(url).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("/approve") && page.contains("/review"), "{page}");
    let (status, _) = gw.hosted(&format!("{url}/approve")).await;
    assert_eq!(status, StatusCode::OK);
    let mut state = Value::Null;
    for _ in 0..200 {
        state = gw.call("GET", "/v1/me/identity", Some(&ann.token), None).await.body["state"].clone();
        if state == "verified" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(state, "verified");
    gw.fund(&ann.token, 5_000).await;
    let stake = play(&gw, &ann, "/v1/keno/tickets", keno()).await;
    assert_eq!(stake.status, StatusCode::CREATED, "{}", stake.body);

    // A check that comes back later (sent to review) stops money in, never money out.
    sqlx::query("UPDATE player_identities SET state = 'review'").execute(&gw.state.pool).await.unwrap();
    let refused = gw.deposit(&ann.token, &new_id(), json!({"amount": 1_000, "currency": "USD"})).await;
    assert_eq!(refused.code(), "identity_not_verified");
    let out = axum::http::Request::post("/v1/me/withdrawals")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", ann.token))
        .header("idempotency-key", new_id())
        .body(axum::body::Body::from(json!({"amount": 1_000, "currency": "USD"}).to_string()))
        .unwrap();
    assert_eq!(gw.send(out).await.status, StatusCode::ACCEPTED);
    gw.assert_ledger_balanced().await;
}

/// The provider's webhook, sent by hand: `event` signed with `secret` at `at` (unix seconds).
async fn deliver(
    gw: &TestGateway,
    event: &Value,
    secret: &WebhookSecret,
    at: i64,
) -> platform::testing::Reply {
    let body = event.to_string();
    let request = axum::http::Request::post("/v1/identity/webhook")
        .header("content-type", "application/json")
        .header(SIGNATURE_HEADER, secret.sign(at, body.as_bytes()))
        .body(axum::body::Body::from(body))
        .unwrap();
    gw.send(request).await
}

#[tokio::test]
async fn the_webhook_is_signed_taken_once_and_an_older_decision_never_wins() {
    let gw = TestGateway::requiring_identity().await;
    let bo = confirmed(&gw, "bo@example.com").await;
    let file = gw.identity_decided(&bo, "review").await;
    assert_eq!(file["state"], "review", "{file}");
    let session: String = sqlx::query_scalar("SELECT provider_session FROM player_identities")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    let now = chrono::Utc::now().timestamp();
    let secret = WebhookSecret::new(assembly::TEST_IDENTITY_WEBHOOK_SECRET);
    let event = json!({"id": "evt_1", "type": "identity.decided", "session": session, "occurred_at": chrono::Utc::now()});
    let forged = deliver(&gw, &event, &WebhookSecret::new("not the provider's secret"), now).await;
    assert_eq!((forged.status, forged.code()), (StatusCode::UNAUTHORIZED, "invalid_signature"));
    let late = deliver(&gw, &event, &secret, now - 3_600).await;
    assert_eq!((late.status, late.code()), (StatusCode::UNAUTHORIZED, "invalid_signature"));
    let unknown = json!({"id": "evt_2", "type": "identity.deleted", "session": session, "occurred_at": chrono::Utc::now()});
    assert_eq!(deliver(&gw, &unknown, &secret, now).await.code(), "unknown_event");
    let taken = deliver(&gw, &event, &secret, now).await;
    assert_eq!(
        (taken.status, taken.body["replayed"].as_bool()),
        (StatusCode::OK, Some(false)),
        "{}",
        taken.body
    );
    let twice = deliver(&gw, &event, &secret, now).await;
    assert_eq!(twice.body["replayed"], true);

    // During a rotation a delivery signed with the previous secret is taken too.
    let mut rotated = gw.state.clone();
    rotated.identity.webhook_secrets = vec![WebhookSecret::new("the provider's new secret"), secret.clone()];
    let router = gateway::router(rotated, platform::http::Limits::default());
    let body = json!({"id": "evt_3", "type": "identity.decided", "session": session, "occurred_at": chrono::Utc::now()})
        .to_string();
    let request = axum::http::Request::post("/v1/identity/webhook")
        .header("content-type", "application/json")
        .header(SIGNATURE_HEADER, secret.sign(now, body.as_bytes()))
        .body(axum::body::Body::from(body))
        .unwrap();
    assert_eq!(platform::testing::send(&router, request).await.status, StatusCode::OK);

    // A decision newer than the provider's stands: the provider's later delivery of an older
    // one (its approval made before an operator's refusal) changes nothing.
    sqlx::query("UPDATE player_identities SET state = 'refused', decided_by = 'an operator', decided_at = now() + interval '1 hour'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let url = file["verification_url"].as_str().map(str::to_owned);
    assert!(url.is_none(), "a file in review shows no page to finish");
    let (status, _) = gw.hosted(&format!("/sandbox/identity/{session}/approve")).await;
    assert_eq!(status, StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let events: i64 =
        sqlx::query_scalar("SELECT count(*) FROM identity_events").fetch_one(&gw.state.pool).await.unwrap();
    assert_eq!(events, 4, "the sandbox's two deliveries and two of ours were taken, once each");
    let now = gw.call("GET", "/v1/me/identity", Some(&bo.token), None).await;
    assert_eq!(now.body["state"], "refused", "{}", now.body);
}

#[tokio::test]
async fn an_operator_decides_a_file_in_review_with_a_reason_and_a_listed_person_is_refused() {
    let gw = TestGateway::requiring_identity().await;
    let cy = confirmed(&gw, "cy@example.com").await;
    let di = confirmed(&gw, "di@example.com").await;
    gw.identity_decided(&cy, "review").await;
    let operator = gw.staff("olga", Role::Operator).await;
    let auditor = gw.staff("audra", Role::Auditor).await;
    let queue = gw.call("GET", "/v1/identity/reviews", Some(&auditor.token), None).await;
    assert_eq!(queue.body.as_array().map(Vec::len), Some(1), "{}", queue.body);
    assert_eq!(queue.body[0]["player_id"], json!(cy.subject));

    let path = format!("/v1/players/{}/identity/decision", cy.subject);
    let verified = json!({"decision": "verified", "reason": "passport and a utility bill seen by video"});
    let by_auditor = gw.call("POST", &path, Some(&auditor.token), Some(verified.clone())).await;
    assert_eq!(by_auditor.status, StatusCode::FORBIDDEN);
    let no_reason = gw
        .call("POST", &path, Some(&operator.token), Some(json!({"decision": "verified", "reason": ""})))
        .await;
    assert_eq!(no_reason.code(), "invalid_reason");
    let pending = json!({"decision": "pending", "reason": "later"});
    assert_eq!(gw.call("POST", &path, Some(&operator.token), Some(pending)).await.code(), "invalid_identity");
    let decided = gw.call("POST", &path, Some(&operator.token), Some(verified.clone())).await;
    assert_eq!(decided.status, StatusCode::OK, "{}", decided.body);
    assert_eq!(
        (decided.body["state"].as_str(), decided.body["decided_by"].as_str()),
        (Some("verified"), Some(operator.subject.as_str()))
    );
    let again = gw.call("POST", &path, Some(&operator.token), Some(verified)).await;
    assert_eq!((again.status, again.code()), (StatusCode::CONFLICT, "not_in_review"));
    let action: String =
        sqlx::query_scalar("SELECT reason FROM staff_actions WHERE action = 'identity.decide'")
            .fetch_one(&gw.state.pool)
            .await
            .unwrap();
    assert!(action.starts_with("passport"));
    gw.fund(&cy.token, 1_000).await;

    // Di is on the state's list: the provider's approval becomes a refusal, with why.
    let file = json!({"legal_name": "Di Ray", "phone": "785 555 0101",
        "address": {"line1": "2 Elm St", "city": "Wichita", "region": "KS", "postal_code": "67202"}});
    let sent = gw.call("PUT", "/v1/me/identity", Some(&di.token), Some(file)).await;
    assert_eq!(sent.status, StatusCode::ACCEPTED, "{}", sent.body);
    let entry = json!({"source": "state", "reference": "KS-49", "email": "di@example.com", "date_of_birth": "1990-05-17"});
    let listed = gw.call("POST", "/v1/exclusion-list", Some(&operator.token), Some(entry)).await;
    assert!(listed.status.is_success(), "{}", listed.body);
    let (status, _) =
        gw.hosted(&format!("{}/approve", sent.body["verification_url"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK);
    let mut file = Value::Null;
    for _ in 0..200 {
        file = gw
            .call("GET", &format!("/v1/players/{}/identity", di.subject), Some(&auditor.token), None)
            .await
            .body;
        if file["state"] != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(file["state"], "refused", "{file}");
    assert!(file["reason"].as_str().unwrap().contains("exclusion list"), "{file}");
    gw.assert_ledger_balanced().await;
}

/// Every game route refuses the stake of a player whose identity is not verified (the check came
/// back for review after the money went in), and nothing moves.
#[tokio::test]
async fn every_game_refuses_a_stake_before_the_identity_is_verified() {
    let gw = TestGateway::requiring_identity().await;
    let eve = confirmed(&gw, "eve@example.com").await;
    assert_eq!(gw.identity_decided(&eve, "approve").await["state"], "verified");
    gw.fund(&eve.token, 50_000).await;
    let table = gw.call("POST", "/v1/blackjack/tables", Some(&eve.token), Some(json!({"decks": 6}))).await;
    assert_eq!(table.status, StatusCode::CREATED, "{}", table.body);
    let craps = gw.call("POST", "/v1/craps/sessions", Some(&eve.token), Some(json!({}))).await;
    assert_eq!(craps.status, StatusCode::CREATED, "{}", craps.body);
    let (table, craps) = (table.body["id"].as_str().unwrap(), craps.body["id"].as_str().unwrap());
    sqlx::query("UPDATE player_identities SET state = 'review'").execute(&gw.state.pool).await.unwrap();
    let before = common::balance(&gw, &eve).await;
    let stakes = [
        ("Keno now", "/v1/keno/tickets".to_owned(), keno()),
        (
            "Keno draws",
            "/v1/keno/draw-tickets".to_owned(),
            json!({"option": "bet", "spots": [7], "draws": 2}),
        ),
        ("Powerball", "/v1/powerball/tickets".to_owned(), json!({"quick_picks": 1})),
        ("blackjack", format!("/v1/blackjack/tables/{table}/rounds"), json!({"spots": [{"wager": 500}]})),
        ("I Luv Suits", "/v1/i-luv-suits/rounds".to_owned(), json!({"ante_cents": 500})),
        (
            "craps",
            format!("/v1/craps/sessions/{craps}/bets"),
            json!({"changes": [{"change": "place", "bet": "field", "amount_cents": 500}]}),
        ),
    ];
    for (game, path, body) in stakes {
        let refused = play(&gw, &eve, &path, body).await;
        assert_eq!(
            (refused.status, refused.code()),
            (StatusCode::FORBIDDEN, "identity_not_verified"),
            "{game}: {}",
            refused.body
        );
        assert_eq!(refused.body["context"]["identity"], "review", "{game}");
    }
    assert_eq!(common::balance(&gw, &eve).await, before, "no refused stake moved money");
    gw.assert_ledger_balanced().await;
}

/// A check left unfinished (the player never finished on the provider's page, and no word came)
/// goes back to `unverified` after a day, and the file may be sent again.
#[tokio::test]
async fn a_check_left_unfinished_for_a_day_goes_back_to_unverified() {
    let gw = TestGateway::requiring_identity().await;
    let una = confirmed(&gw, "una@example.com").await;
    let file = json!({"legal_name": "Una Doe", "phone": "785 555 0123",
        "address": {"line1": "5 Elm St", "city": "Lawrence", "region": "KS", "postal_code": "66044"}});
    let sent = gw.call("PUT", "/v1/me/identity", Some(&una.token), Some(file.clone())).await;
    assert_eq!((sent.status, sent.body["state"].as_str()), (StatusCode::ACCEPTED, Some("pending")));
    sqlx::query("UPDATE player_identities SET submitted_at = now() - interval '23 hours'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    gw.state.spawn_workers();
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    let young = gw.call("GET", "/v1/me/identity", Some(&una.token), None).await;
    assert_eq!(young.body["state"], "pending", "a day has not passed: {}", young.body);
    sqlx::query("UPDATE player_identities SET submitted_at = now() - interval '25 hours'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let mut now = Value::Null;
    for _ in 0..150 {
        now = gw.call("GET", "/v1/me/identity", Some(&una.token), None).await.body;
        if now["state"] != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(now["state"], "unverified", "{now}");
    assert!(now["reason"].as_str().unwrap().contains("not finished within 24 hours"), "{now}");
    let again = gw.call("PUT", "/v1/me/identity", Some(&una.token), Some(file)).await;
    assert_eq!((again.status, again.body["state"].as_str()), (StatusCode::ACCEPTED, Some("pending")));
}

/// The exclusion lists match a verified identity by its legal name and date of birth (and the
/// SSN's last four where both give them), whatever its email: the verification is refused and
/// the match logged; a player verified before the entry named them is excluded when it comes.
#[tokio::test]
async fn a_listed_name_and_birth_date_refuse_the_verification_whatever_the_email() {
    let gw = TestGateway::requiring_identity().await;
    let operator = gw.staff("olga", Role::Operator).await;
    let listed = |reference: &str, name: &str, ssn: Option<&str>| {
        json!({"source": "state", "reference": reference, "email": format!("{reference}@elsewhere.example"),
            "date_of_birth": "1990-05-17", "legal_name": name, "ssn_last4": ssn})
    };
    let add = |entry: Value| gw.call("POST", "/v1/exclusion-list", Some(&operator.token), Some(entry));
    let added = add(listed("ks-71", "PAT  DOE", Some("6789"))).await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
    let file = |name: &str, ssn: &str| {
        json!({"legal_name": name, "phone": "785 555 0100", "ssn_last4": ssn,
            "address": {"line1": "9 Oak St", "city": "Salina", "region": "KS", "postal_code": "67401"}})
    };

    // Her name (as a person reads it), her birth date and her SSN digits: refused, and logged.
    let pat = confirmed(&gw, "pat@example.com").await;
    let decided = gw.identity_decided_with(&pat, file("Pat Doe", "6789"), "approve").await;
    assert_eq!(decided["state"], "refused", "{decided}");
    assert!(decided["reason"].as_str().unwrap().contains("exclusion list"), "{decided}");
    let logged: i64 =
        sqlx::query_scalar("SELECT count(*) FROM exclusion_matches WHERE kind = 'verification'")
            .fetch_one(&gw.state.pool)
            .await
            .unwrap();
    assert_eq!(logged, 1);
    // The same name and birth date with other SSN digits is someone else.
    let other = confirmed(&gw, "pat.two@example.com").await;
    let decided = gw.identity_decided_with(&other, file("Pat Doe", "1111"), "approve").await;
    assert_eq!(decided["state"], "verified", "{decided}");

    // A player verified first is excluded when an entry names her.
    let quinn = confirmed(&gw, "quinn@example.com").await;
    let decided = gw.identity_decided_with(&quinn, file("Quinn Roe", "2222"), "approve").await;
    assert_eq!(decided["state"], "verified", "{decided}");
    let added = add(listed("ks-72", "quinn roe", None)).await;
    assert_eq!(added.body["players_excluded"], 1, "{}", added.body);
    let stake = play(&gw, &quinn, "/v1/keno/tickets", keno()).await;
    assert_eq!(stake.status, StatusCode::UNAUTHORIZED, "her sessions ended: {}", stake.body);
    let entries = gw.call("GET", "/v1/exclusion-list", Some(&operator.token), None).await;
    let names: Vec<&str> =
        entries.body.as_array().unwrap().iter().filter_map(|e| e["legal_name"].as_str()).collect();
    assert_eq!(names, ["quinn roe", "PAT  DOE"], "the names are shown, the SSN digits never");
    assert!(!entries.body.to_string().contains("6789"));
}
