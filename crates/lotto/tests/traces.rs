//! One request, one trace (issue 51): the services run apart, each its own binary and process
//! as docker-compose.yml and Kubernetes run them, each exporting its spans over OTLP (protobuf
//! over HTTP, `OTEL_EXPORTER_OTLP_ENDPOINT`) to a receiver this test serves, which decodes them
//! with the OpenTelemetry project's own protocol types. A Keno ticket bought and a blackjack
//! decision taken, each sent with the caller's `traceparent`, must each come back as one trace
//! across three services: the gateway, the game's service and the ledger, every service's span
//! the child of a span of the service that called it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use common::apart::{Apart, DRAWS, GATEWAY, LEDGER};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use prost::Message;
use serde_json::{Value, json};

/// A span as the receiver keeps it.
#[derive(Debug, Clone)]
struct Received {
    service: String,
    name: String,
    trace_id: String,
    span_id: String,
    parent_span_id: String,
}

type Spans = Arc<Mutex<Vec<Received>>>;

/// An OTLP/HTTP trace receiver on a free port: every span every process exports.
async fn receiver() -> (String, Spans) {
    let spans: Spans = Arc::default();
    let kept = spans.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: Bytes| {
            let kept = kept.clone();
            async move {
                let request = ExportTraceServiceRequest::decode(body).unwrap();
                let mut spans = kept.lock().unwrap();
                for resource in request.resource_spans {
                    let service = resource
                        .resource
                        .iter()
                        .flat_map(|r| &r.attributes)
                        .find(|a| a.key == "service.name")
                        .and_then(|a| match a.value.as_ref()?.value.as_ref()? {
                            AnyValue::StringValue(name) => Some(name.clone()),
                            _ => None,
                        })
                        .unwrap_or_default();
                    for span in resource.scope_spans.into_iter().flat_map(|s| s.spans) {
                        spans.push(Received {
                            service: service.clone(),
                            name: span.name,
                            trace_id: hex::encode(span.trace_id),
                            span_id: hex::encode(span.span_id),
                            parent_span_id: hex::encode(span.parent_span_id),
                        });
                    }
                }
                // An empty ExportTraceServiceResponse: everything accepted.
                ([("content-type", "application/x-protobuf")], Vec::<u8>::new())
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, spans)
}

/// A fresh trace id and the `traceparent` of a caller's span in it (sampled).
fn caller_trace() -> (String, String) {
    let trace = uuid::Uuid::new_v4().simple().to_string();
    let span = &uuid::Uuid::new_v4().simple().to_string()[..16];
    (trace.clone(), format!("00-{trace}-{span}-01"))
}

/// Waits for the spans of `trace` from each of `services` (the batches leave each process
/// every 200 ms), then checks they make one tree: every span's parent is the caller's span or
/// another span of the trace, and each service's first span is a child of another service's.
async fn one_trace(spans: &Spans, trace: &str, traceparent: &str, services: &[&str]) -> Vec<Received> {
    let caller_span = &traceparent[36..52];
    // Complete: every service seen and every span's parent arrived (each process sends its own
    // batches, so a child may arrive before its parent).
    let complete = |found: &[Received]| {
        let ids: BTreeSet<&str> = found.iter().map(|s| s.span_id.as_str()).collect();
        services.iter().all(|service| found.iter().any(|s| s.service == *service))
            && found
                .iter()
                .all(|s| s.parent_span_id == caller_span || ids.contains(s.parent_span_id.as_str()))
    };
    let mut found = Vec::new();
    for _ in 0..150 {
        found = spans.lock().unwrap().iter().filter(|s| s.trace_id == trace).cloned().collect::<Vec<_>>();
        if complete(&found) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let seen: BTreeSet<&str> = found.iter().map(|s| s.service.as_str()).collect();
    let wanted: BTreeSet<&str> = services.iter().copied().collect();
    assert!(
        wanted.is_subset(&seen),
        "trace {trace} has spans of {seen:?}, not all of {wanted:?}: {found:#?}"
    );
    let by_id: HashMap<&str, &Received> = found.iter().map(|s| (s.span_id.as_str(), s)).collect();
    for span in &found {
        let parent = span.parent_span_id.as_str();
        assert!(
            parent == caller_span || by_id.contains_key(parent),
            "{span:?}: its parent is neither the caller's span nor a span of the trace: {found:#?}"
        );
    }
    // Each service other than the gateway was called by another: its server span's parent is
    // a span of a different service.
    for service in services.iter().filter(|s| **s != "gateway") {
        let called = found.iter().any(|s| {
            s.service == *service
                && s.name.starts_with(|c: char| c.is_ascii_uppercase())
                && by_id.get(s.parent_span_id.as_str()).is_some_and(|p| p.service != *service)
        });
        assert!(called, "no span of {service} is the child of another service's call: {found:#?}");
    }
    found
}

/// A request sent with `traceparent`; its answer's body.
async fn traced(
    http: &reqwest::Client,
    url: String,
    token: &str,
    traceparent: &str,
    body: &Value,
) -> (reqwest::StatusCode, Value) {
    let mut request = http
        .post(url)
        .bearer_auth(token)
        .header("idempotency-key", uuid::Uuid::new_v4().to_string())
        .json(body);
    if !traceparent.is_empty() {
        request = request.header("traceparent", traceparent);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keno_ticket_and_a_blackjack_decision_are_each_one_trace_across_three_services() {
    let (endpoint, spans) = receiver().await;
    let url = platform::testing::fresh_database().await.unwrap();
    let dir = platform::config::scratch_dir("traces");
    std::fs::create_dir_all(&dir).unwrap();
    let env = [
        ("DATABASE_URL", url),
        ("LOTTO_DB_MAX_CONNECTIONS", "16".to_owned()),
        ("LOTTO_SECRETS_DIR", dir.join("secrets").display().to_string()),
        ("LOTTO_VIRN_KEY", common::mixed::VIRN_KEY.to_owned()),
        ("LOTTO_PAYMENTS_WEBHOOK_SECRET", common::mixed::WEBHOOK_SECRET.to_owned()),
        ("LOTTO_SANDBOX_DELAY_MS", "20".to_owned()),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint),
        ("OTEL_BSP_SCHEDULE_DELAY", "200".to_owned()),
        ("LOTTO_LOG", "info,sqlx=warn".to_owned()),
        ("LOTTO_LOG_FORMAT", "json".to_owned()),
    ];
    let apart = Apart::start_one_each(&dir, &env).await;
    let http = reqwest::Client::new();
    let player =
        common::player(&http, &apart.front, "traced@example.com", "correct horse battery staple").await;
    // A deposit: the gateway, the payment provider, and the provider's webhook back at the
    // gateway, which credits the wallet through the ledger, all in the deposit's trace.
    let (trace, traceparent) = caller_trace();
    let deposit = json!({"amount": 10_000, "currency": "USD"});
    let (status, intent) =
        traced(&http, format!("{}/v1/me/deposits", apart.front), &player, &traceparent, &deposit).await;
    assert_eq!(status, 202, "{intent}");
    let spans_of_deposit =
        one_trace(&spans, &trace, &traceparent, &["gateway", "payments-sandbox", "ledger"]).await;
    assert!(
        spans_of_deposit.iter().any(|s| s.service == "gateway" && s.name == "POST /v1/payments/webhook"),
        "the provider's webhook is not in the deposit's trace: {spans_of_deposit:#?}"
    );
    common::until_posted(&http, &apart.front, &player, 10_000).await;

    // A Keno ticket: the gateway, draw-games (the ticket) and the ledger (the stake).
    let (trace, traceparent) = caller_trace();
    let ticket = json!({"option": "bet", "spots": [7, 17], "tickets": 1});
    let (status, bought) =
        traced(&http, format!("{}/v1/keno/tickets", apart.front), &player, &traceparent, &ticket).await;
    assert_eq!(status, 201, "{bought}");
    one_trace(&spans, &trace, &traceparent, &["gateway", "draw-games", "ledger"]).await;
    // Counted as a play, once, by the service that sold it.
    let played = apart.replicas[DRAWS][0]
        .metric(&http, "game_plays_total{game=\"castle_keno\",channel=\"online\"}")
        .await;
    assert_eq!(played, Some(1.0), "the ticket is not counted as a Keno play");
    // Each service's log has the request's line, in the request's trace, with who asked.
    for (service, route) in
        [(GATEWAY, "/v1/keno/tickets"), (DRAWS, "/v1/keno/tickets"), (LEDGER, "/v1/transfers/batch")]
    {
        let log = std::fs::read_to_string(apart.replicas[service][0].log()).unwrap();
        let line = log
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|l| {
                l["target"] == "lotto::access"
                    && l["span"]["trace_id"] == trace.as_str()
                    && l["span"]["route"] == route
            })
            .unwrap_or_else(|| {
                panic!("no access line in trace {trace} in {}", apart.replicas[service][0].log().display())
            });
        let span = &line["span"];
        assert!(
            line["status"].as_u64().is_some_and(|s| s < 300) && line["latency_ms"].as_f64().is_some(),
            "{line}"
        );
        let caller = if service == GATEWAY || service == DRAWS { "player" } else { "service" };
        assert_eq!(span["caller_kind"], caller, "{line}");
    }

    // A blackjack decision that ends the round: the gateway, table-games and the ledger (its
    // settlement).
    let (_, table) =
        traced(&http, format!("{}/v1/blackjack/tables", apart.front), &player, "", &json!({"decks": 6}))
            .await;
    let table = table["id"].as_str().unwrap().to_owned();
    let mut decided = false;
    for _ in 0..20 {
        let bets = json!({"spots": [{"wager": 100}]});
        let rounds = format!("{}/v1/blackjack/tables/{table}/rounds", apart.front);
        let (status, mut round) = traced(&http, rounds, &player, "", &bets).await;
        assert_eq!(status, 201, "{round}");
        let actions =
            format!("{}/v1/blackjack/rounds/{}/actions", apart.front, round["id"].as_str().unwrap());
        if round["state"] == "playing" && round["round"]["phase"] == "insurance" {
            let decline = json!({"action": "decline_insurance", "spot": 0, "step": round["step"]});
            round = traced(&http, actions.clone(), &player, "", &decline).await.1;
        }
        if round["state"] != "playing" {
            continue; // a natural: settled as dealt
        }
        let (trace, traceparent) = caller_trace();
        let stand = json!({"action": "stand", "step": round["step"]});
        let (status, after) = traced(&http, actions, &player, &traceparent, &stand).await;
        assert_eq!(status, 200, "{after}");
        assert_ne!(after["state"], "playing", "one spot stood: the round ends: {after}");
        one_trace(&spans, &trace, &traceparent, &["gateway", "table-games", "ledger"]).await;
        decided = true;
        break;
    }
    assert!(decided, "twenty rounds, each settled as dealt");
    apart.stop();
}
