//! The suite that finds the next defect (issue 11): requests generated from the contract itself.
//!
//! - **Contract fuzzing**: for every operation of the OpenAPI document the gateway serves, and
//!   every kind of caller, requests whose path, query and body are generated from the operation's
//!   schemas by a seeded generator: mostly well-typed values (known ids, amounts, dates, enum
//!   members), mixed with hostile ones. Every answer must be below 500, and every error a
//!   problem+json with a code.
//! - **Hostile inputs**, table-driven: every text and number field of every request body, one at
//!   a time, set to NUL, a 100 KB string, ±2^63, a float, the wrong type; and every body replaced
//!   by invalid UTF-8, JSON nested 20,000 deep, duplicate keys, and the wrong top-level type.
//!
//! Afterwards the ledger's trial balance and its journal check are clean and every audit chain
//! verifies. The test prints what it sent and checked.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::Request;
use common::{Login, TestGateway, new_id};
use platform::auth::Role;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};

/// What the suite found and checked.
#[derive(Debug, Default)]
struct Tally {
    requests: usize,
    by_status: BTreeMap<u16, usize>,
    failures: Vec<String>,
    operations: std::collections::BTreeSet<(String, String, usize)>,
}

impl Tally {
    fn record(
        &mut self,
        what: &str,
        caller: usize,
        method: &str,
        route: &str,
        reply: &platform::testing::Reply,
    ) {
        self.requests += 1;
        *self.by_status.entry(reply.status.as_u16()).or_default() += 1;
        self.operations.insert((method.to_owned(), route.to_owned(), caller));
        let is_problem = reply.headers.get("content-type").is_some_and(|v| v == "application/problem+json")
            && reply.body["code"].is_string();
        if reply.status.is_server_error() {
            self.failures.push(format!("{} {what}: {} {}", WHO[caller], reply.status, reply.body));
        } else if reply.status.is_client_error() && !is_problem {
            self.failures.push(format!(
                "{} {what}: {} without a problem body: {}",
                WHO[caller], reply.status, reply.body
            ));
        }
    }
}

const WHO: [&str; 6] = ["anonymous", "player", "retailer", "operator", "auditor", "service"];

/// The fixture's ids, used where a schema or path asks for an id.
struct Known {
    uuids: Vec<String>,
}

fn resolve<'a>(schema: &'a Value, doc: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => resolve(&doc["components"]["schemas"][r.trim_start_matches("#/components/schemas/")], doc),
        None => schema,
    }
}

const HOSTILE_TEXT: [&str; 6] = ["a\u{0}b", "", " ", "🎰\u{202e}", "'; DROP TABLE players; --", "%00"];

fn hostile_text(rng: &mut ChaCha20Rng) -> Value {
    if rng.random_bool(0.1) {
        return json!("x".repeat(100_000));
    }
    json!(*HOSTILE_TEXT.choose(rng).unwrap())
}

fn hostile_number(rng: &mut ChaCha20Rng) -> Value {
    [json!(i64::MAX), json!(i64::MIN), json!(-1), json!(0), json!(1.5), json!(1e300), json!(u64::MAX)]
        .choose(rng)
        .unwrap()
        .clone()
}

/// A value for `schema`: well-typed mostly, hostile with probability `hostility`.
fn generate(
    schema: &Value,
    doc: &Value,
    known: &Known,
    rng: &mut ChaCha20Rng,
    hostility: f64,
    depth: usize,
) -> Value {
    let schema = resolve(schema, doc);
    if let Some(options) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        return generate(options.choose(rng).unwrap(), doc, known, rng, hostility, depth);
    }
    if let Some(all) = schema["allOf"].as_array() {
        let mut merged = json!({});
        for part in all {
            if let Value::Object(fields) = generate(part, doc, known, rng, hostility, depth) {
                merged.as_object_mut().unwrap().extend(fields);
            }
        }
        return merged;
    }
    if rng.random_bool(hostility) {
        return if rng.random_bool(0.5) { hostile_text(rng) } else { hostile_number(rng) };
    }
    let kind = match &schema["type"] {
        Value::Array(types) => types.iter().find(|t| *t != "null").and_then(Value::as_str).unwrap_or("null"),
        Value::String(t) => t.as_str(),
        _ if schema["properties"].is_object() => "object",
        _ => "any",
    };
    if let Some(members) = schema["enum"].as_array() {
        return members.choose(rng).unwrap().clone();
    }
    match kind {
        "object" if depth < 4 => {
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = serde_json::Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                if required.contains(&name.as_str()) || rng.random_bool(0.5) {
                    out.insert(name.clone(), generate(property, doc, known, rng, hostility, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" if depth < 4 => {
            let n = rng.random_range(0..4);
            Value::Array(
                (0..n).map(|_| generate(&schema["items"], doc, known, rng, hostility, depth + 1)).collect(),
            )
        }
        "string" => match schema["format"].as_str() {
            Some("uuid") => json!(known.uuids.choose(rng).cloned().unwrap_or_else(new_id)),
            Some("date") => json!(["1990-05-17", "2010-01-01", "0000-01-01"].choose(rng).unwrap()),
            Some("date-time") => json!(chrono::Utc::now().to_rfc3339()),
            _ => json!(
                [
                    "USD",
                    "ann@example.com",
                    "x",
                    "bet",
                    "correct horse battery staple",
                    "123456789012",
                    "Pat Doe"
                ]
                .choose(rng)
                .unwrap()
            ),
        },
        "integer" | "number" => {
            json!([0, 1, 2, 3, 5, 7, 10, 100, 283, 500, 1_000, 10_000].choose(rng).unwrap())
        }
        "boolean" => json!(rng.random_bool(0.5)),
        _ => json!(null),
    }
}

/// The concrete path for `route`: ids from the fixture mostly, junk sometimes.
fn path_for(route: &str, known: &Known, rng: &mut ChaCha20Rng, hostility: f64) -> String {
    let mut out = String::new();
    for segment in route.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        if segment.starts_with('{') {
            let value = if rng.random_bool(hostility) {
                ["%00", "not-a-uuid", "-1", "99999999999999999999", "%F0%9F%8E%B0"]
                    .choose(rng)
                    .unwrap()
                    .to_string()
            } else if matches!(segment, "{number}" | "{game}") {
                ["283", "284", "282", "228", "286", "1"].choose(rng).unwrap().to_string()
            } else if segment == "{book}" {
                ["0", "1", "2"].choose(rng).unwrap().to_string()
            } else {
                known.uuids.choose(rng).unwrap().clone()
            };
            out.push_str(&value);
        } else {
            out.push_str(segment);
        }
    }
    out
}

async fn send(
    gw: &TestGateway,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Vec<u8>>,
) -> platform::testing::Reply {
    let mut request = Request::builder().method(method).uri(path).header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if method == "POST" {
        request = request.header("idempotency-key", new_id());
    }
    gw.send(request.body(body.map_or_else(Body::empty, Body::from)).unwrap()).await
}

/// The operations of the contract: (method, route, request body schema).
fn operations(doc: &Value) -> Vec<(String, String, Option<Value>)> {
    let mut out = Vec::new();
    for (route, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if !matches!(method.as_str(), "get" | "post" | "put" | "delete" | "patch") {
                continue;
            }
            let body = operation["requestBody"]["content"]["application/json"]["schema"].clone();
            out.push((method.to_uppercase(), route.clone(), (!body.is_null()).then_some(body)));
        }
    }
    out
}

struct Fixture {
    gw: TestGateway,
    tokens: Vec<Option<String>>,
    known: Known,
    doc: Value,
}

async fn fixture() -> Fixture {
    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", Role::Operator).await;
    let auditor = gw.staff("audrey", Role::Auditor).await;
    let player = gw.player("ann@example.com").await;
    gw.fund(&player.token, 100_000).await;
    let (terminal, _) = gw.terminal(&operator).await;
    let me = gw.call("GET", "/v1/me", Some(&player.token), None).await;
    let wallet = me.body["player"]["wallet_account_id"].as_str().unwrap().to_owned();
    let retailers = gw.call("GET", "/v1/retailers", Some(&operator.token), None).await;
    let retailer = retailers.body["items"][0]["id"].as_str().unwrap().to_owned();
    gw.print_run(&operator.token, 283).await;
    let Login { subject, .. } = player.clone();
    let known = Known { uuids: vec![wallet, retailer, subject, terminal.subject.clone(), new_id()] };
    let doc = serde_json::to_value(gateway::openapi_document(vec![
        <ledger::LedgerApi as utoipa::OpenApi>::openapi(),
        <draw_games::DrawGamesApi as utoipa::OpenApi>::openapi(),
        <table_games::TableGamesApi as utoipa::OpenApi>::openapi(),
        <instant::InstantApi as utoipa::OpenApi>::openapi(),
    ]))
    .unwrap();
    let tokens = vec![
        None,
        Some(player.token),
        Some(terminal.token),
        Some(operator.token),
        Some(auditor.token),
        Some(gw.service_token()),
    ];
    Fixture { gw, tokens, known, doc }
}

async fn invariants_hold(gw: &TestGateway) -> usize {
    gw.assert_ledger_balanced().await;
    let service = gw.service_token();
    for chain in ["/v1/draws/audit/verify", "/v1/tables/audit/verify"] {
        let report = gw.call("GET", chain, Some(&service), None).await;
        assert_eq!(report.body["intact"], true, "{chain}: {}", report.body);
    }
    4
}

#[tokio::test]
async fn generated_requests_over_every_route_and_role_get_no_5xx_and_only_problems() {
    let fx = fixture().await;
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let mut tally = Tally::default();
    let operations = operations(&fx.doc);
    let rounds: usize = std::env::var("LOTTO_FUZZ_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(12);
    for round in 0..rounds {
        // The first rounds well-typed, the later ones ever more hostile.
        let hostility = [0.0, 0.05, 0.2, 0.5][round.min(3)];
        for (method, route, body) in &operations {
            for (caller, token) in fx.tokens.iter().enumerate() {
                // Self-exclusion and logout would end the fixture's sessions.
                if route == "/v1/me/self-exclusion" || route == "/v1/sessions/current" {
                    continue;
                }
                let path = path_for(route, &fx.known, &mut rng, hostility);
                let body = body.as_ref().map(|schema| {
                    serde_json::to_vec(&generate(schema, &fx.doc, &fx.known, &mut rng, hostility, 0)).unwrap()
                });
                let reply = send(&fx.gw, method, &path, token.as_deref(), body).await;
                tally.record(&format!("{method} {path}"), caller, method, route, &reply);
            }
        }
    }
    let checked = invariants_hold(&fx.gw).await;
    println!(
        "contract fuzzing: {} requests over {} operations x {} callers ({} pairs), statuses {:?}, {} failures, {checked} invariants checked",
        tally.requests,
        operations.len(),
        WHO.len(),
        tally.operations.len(),
        tally.by_status,
        tally.failures.len()
    );
    assert!(tally.failures.is_empty(), "{} failures:\n{}", tally.failures.len(), tally.failures.join("\n"));
}

#[tokio::test]
async fn hostile_values_in_every_field_of_every_body_get_no_5xx_and_only_problems() {
    let fx = fixture().await;
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut tally = Tally::default();
    let deep = format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000));
    let whole_bodies: Vec<(&str, Vec<u8>)> = vec![
        ("invalid UTF-8", b"{\"email\": \"\xff\xfe\"}".to_vec()),
        ("nested 20,000 deep", deep.into_bytes()),
        (
            "duplicate keys",
            br#"{"amount": 1, "amount": 99999999999, "currency": "USD", "currency": "EUR"}"#.to_vec(),
        ),
        ("an array", b"[1, 2, 3]".to_vec()),
        ("a string", b"\"hello\"".to_vec()),
        ("null", b"null".to_vec()),
        ("empty", Vec::new()),
    ];
    let fields_hostile = |kind: &str| -> Vec<Value> {
        let mut values =
            vec![json!("a\u{0}b"), json!("x".repeat(100_000)), json!(null), json!([1]), json!({"a": 1})];
        if kind == "integer" || kind == "number" {
            values.extend([
                json!(i64::MAX),
                json!(i64::MIN),
                json!(9_223_372_036_854_775_808u64),
                json!(1.5),
                json!("12"),
            ]);
        } else {
            values.extend([json!(i64::MAX), json!(true)]);
        }
        values
    };
    for (method, route, body) in operations(&fx.doc) {
        let Some(schema) = body else { continue };
        if route == "/v1/me/self-exclusion" {
            continue;
        }
        let schema = resolve(&schema, &fx.doc).clone();
        for (caller, token) in fx.tokens.iter().enumerate().filter(|(c, _)| *c != 0) {
            for (what, bytes) in &whole_bodies {
                let path = path_for(&route, &fx.known, &mut rng, 0.0);
                let reply = send(&fx.gw, &method, &path, token.as_deref(), Some(bytes.clone())).await;
                tally.record(&format!("{method} {path} with {what}"), caller, &method, &route, &reply);
            }
            let base = generate(&schema, &fx.doc, &fx.known, &mut rng, 0.0, 0);
            for (field, property) in schema["properties"].as_object().into_iter().flatten() {
                let property = resolve(property, &fx.doc);
                let kind = property["type"].as_str().unwrap_or("string");
                for value in fields_hostile(kind) {
                    let mut body = base.clone();
                    if let Value::Object(map) = &mut body {
                        map.insert(field.clone(), value.clone());
                    }
                    let path = path_for(&route, &fx.known, &mut rng, 0.0);
                    let reply = send(
                        &fx.gw,
                        &method,
                        &path,
                        token.as_deref(),
                        Some(serde_json::to_vec(&body).unwrap()),
                    )
                    .await;
                    let shown: String = value.to_string().chars().take(40).collect();
                    tally.record(
                        &format!("{method} {path} with {field} = {shown}"),
                        caller,
                        &method,
                        &route,
                        &reply,
                    );
                }
            }
        }
    }
    let checked = invariants_hold(&fx.gw).await;
    println!(
        "hostile inputs: {} requests, statuses {:?}, {} failures, {checked} invariants checked",
        tally.requests,
        tally.by_status,
        tally.failures.len()
    );
    assert!(tally.failures.is_empty(), "{} failures:\n{}", tally.failures.len(), tally.failures.join("\n"));
}
