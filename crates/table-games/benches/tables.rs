//! Table-game rounds per second end to end (issue 16's target: at least 0.8x the Keno play-now
//! rate measured in the same run): concurrent players through the gateway on a real socket, every
//! wager and win moved by the ledger (all services mounted in one process, as `lotto` runs them,
//! on a fresh database). Blackjack: each player at a table of their own, deciding by basic
//! strategy (two decisions, then standing). I Luv Suits: the wagers (ante and Flush Rush), then
//! the simple strategy's decision (play the most allowed, or fold). Craps: a roll with a field bet
//! (and a pass line bet on a come-out), decided on the layout the previous roll answered, as the
//! web client does. References, measured in the same run in alternating slices: Keno tickets
//! played at once (one $1 ticket, five spots), the ledger's own single-transfer rate over the same
//! gateway, and the cheapest request a player makes (reading their craps layout): a round needs
//! one request per step (blackjack three or more, I Luv Suits two), each at most that rate.
//! Each row also prints what a unit cost: the machine's busy CPU per unit (every process, from
//! `/proc/stat`; not the time a hypervisor gave to others), beside a Keno ticket's; where the
//! machine is nearly busy, rates follow it. The last lines count the ledger transfers each unit
//! moved, from the journal.
//!
//! Run: `cargo bench -p table-games` (env: `BENCH_SECONDS`, default 16; `BENCH_CLIENTS`, default
//! 32; `BENCH_POOL`, the connection budget, default the platform's; `BENCH_ONLY`, one of `blackjack`, `i-luv-suits`, `craps`, to load that game alone, for a
//! profile, with Keno beside it; `BENCH_TABLES_LEDGER_BATCH`, rounds to a ledger call, and
//! `BENCH_TABLES_WRITE_BATCH`, jobs to a writer's statement, 1 for none shared;
//! `BENCH_TABLES_REMEMBER=0`, repositories remembering nothing). Simulated rounds per second on one core: `cargo bench -p domain --bench blackjack` and
//! `--bench i_luv_suits`.
// A benchmark program stops loudly on any failure, and reports in floating point.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss
)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::blackjack::round::Action;
use domain::blackjack::strategy::decide;
use domain::cards::Card;
use domain::i_luv_suits::base_game::Decision;
use domain::i_luv_suits::strategy::simple_decision;
use platform::auth::Role;
use platform::client::{Retry, ServiceClient};
use platform::config::{Config, env_or};
use platform::http::{Limits, Readiness};
use platform::testing::{LoadRun, bench_knob, closed_loop};
use serde_json::{Value, json};
use uuid::Uuid;

#[tokio::main]
async fn main() {
    let seconds: u64 = bench_knob("BENCH_SECONDS", 16u64, 4).unwrap();
    let clients: usize = env_or("BENCH_CLIENTS", 32usize).unwrap();
    let only: String = env_or("BENCH_ONLY", String::new()).unwrap();
    let runs = |game: &str| only.is_empty() || only == game;
    let url = platform::testing::bench_database("tables").await.unwrap();
    // `BENCH_POOL`: the process's connection budget (default the platform's own).
    let config = Config {
        db_max_connections: env_or("BENCH_POOL", Config::default().db_max_connections).unwrap(),
        ..Config::default()
    };
    let mut options = assembly::Options::for_tests().unwrap();
    options.config = config;
    // `BENCH_TABLES_LEDGER_BATCH` (rounds to a ledger call), `BENCH_TABLES_WRITE_BATCH` (jobs to
    // a writer's statement; 1 for none shared) and `BENCH_TABLES_REMEMBER` (0: repositories
    // remember nothing): each mechanism turned off, to measure what it buys (issue 33 §1).
    let defaults = table_games::kit::KitSettings::default();
    options.tables.kit = table_games::kit::KitSettings {
        ledger_batch: env_or("BENCH_TABLES_LEDGER_BATCH", defaults.ledger_batch).unwrap(),
        write_batch: env_or("BENCH_TABLES_WRITE_BATCH", defaults.write_batch).unwrap(),
        remember: env_or("BENCH_TABLES_REMEMBER", 1u8).unwrap() != 0,
    };
    println!("table games' kit: {:?}", options.tables.kit);
    let platform = assembly::Assembly::start(&url, options).await.unwrap();
    let tokens = platform.tokens.clone();
    let app = platform::http::app(
        platform.gateway_routes(platform.gateway.clone().without_rate_limits()),
        Readiness::default(),
        Limits::default(),
    );
    let base = platform::testing::serve_on_loopback(app).await.unwrap();

    // One funded player and one table per client.
    let http = reqwest::Client::builder().pool_max_idle_per_host(256).build().unwrap();
    let setup = ServiceClient::new(base.as_str()).unwrap().as_service(tokens.clone(), "bench");
    let service = tokens.service_token("bench").unwrap();
    let (mut players, mut layouts) = (Vec::new(), Vec::new());
    for _ in 0..clients {
        let player = Uuid::now_v7().to_string();
        let wallet: Value = setup
            .post(
                "/v1/accounts",
                &json!({"kind": "player_wallet", "owner": player, "currency": "USD"}),
                Retry::Safe,
            )
            .await
            .unwrap();
        let deposit = json!({"id": Uuid::now_v7(), "account_id": wallet["id"], "amount": 1_000_000_000, "currency": "USD"});
        let _: Value = setup.post("/v1/deposits", &deposit, Retry::Safe).await.unwrap();
        let token = tokens.issue(&player, Role::Player, None, Duration::from_secs(3600)).unwrap();
        let table: Value = http
            .post(format!("{base}/v1/blackjack/tables"))
            .bearer_auth(&token)
            .json(&json!({"decks": 6}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let craps: Value = http
            .post(format!("{base}/v1/craps/sessions"))
            .bearer_auth(&token)
            .json(&json!({}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        players.push((
            token,
            table["id"].as_str().unwrap().to_owned(),
            wallet["id"].as_str().unwrap().to_owned(),
            craps["id"].as_str().unwrap().to_owned(),
        ));
        layouts.push(craps);
    }
    let house: Value = setup
        .post(
            "/v1/accounts",
            &json!({"kind": "house_revenue", "owner": "bench", "currency": "USD"}),
            Retry::Safe,
        )
        .await
        .unwrap();
    let house = house["id"].as_str().unwrap().to_owned();

    let layouts: Arc<Vec<Mutex<Value>>> = Arc::new(layouts.into_iter().map(Mutex::new).collect());
    let players = Arc::new(players);
    // Requests a blackjack round made (a deal and its decisions): the other games' are fixed.
    let blackjack_requests = Arc::new(AtomicU64::new(0));
    let slice = Duration::from_secs(seconds) / 12;
    let (mut transfers, mut keno, mut rounds, mut suits, mut craps, mut reads) = (
        LoadRun::default(),
        LoadRun::default(),
        LoadRun::default(),
        LoadRun::default(),
        LoadRun::default(),
        LoadRun::default(),
    );
    let cpu_before = platform::testing::machine_cpu_reading();
    for _ in 0..2 {
        if runs("reference") {
            let (p, b, s, h, c) =
                (Arc::clone(&players), base.clone(), service.clone(), house.clone(), http.clone());
            transfers.absorb(
                closed_loop(clients, slice, move |i| {
                    let body = json!({"id": Uuid::now_v7(), "debit_account_id": p[i].2, "credit_account_id": h, "amount": 1, "currency": "USD"});
                    let post = c.post(format!("{b}/v1/transfers")).bearer_auth(&s).json(&body);
                    async move {
                        let response = post.send().await.unwrap();
                        assert!(response.status().is_success(), "{}", response.text().await.unwrap());
                        1
                    }
                })
                .await,
            );
        }
        let (p, b, c) = (Arc::clone(&players), base.clone(), http.clone());
        keno.absorb(
            closed_loop(clients, slice, move |i| {
                let ticket = json!({"option": "bet", "spots": [3, 11, 19, 41, 80], "tickets": 1});
                let post = c
                    .post(format!("{b}/v1/keno/tickets"))
                    .bearer_auth(&p[i].0)
                    .header("idempotency-key", Uuid::now_v7().to_string())
                    .json(&ticket);
                async move {
                    send(post).await;
                    1
                }
            })
            .await,
        );
        if runs("blackjack") {
            let (p, b, c, n) =
                (Arc::clone(&players), base.clone(), http.clone(), Arc::clone(&blackjack_requests));
            rounds.absorb(
                closed_loop(clients, slice, move |i| {
                    let (token, table, _, _) = p[i].clone();
                    let (b, c, n) = (b.clone(), c.clone(), Arc::clone(&n));
                    async move {
                        n.fetch_add(play_round(&c, &b, &token, &table).await, Ordering::Relaxed);
                        1
                    }
                })
                .await,
            );
        }
        if runs("i-luv-suits") {
            let (p, b, c) = (Arc::clone(&players), base.clone(), http.clone());
            suits.absorb(
                closed_loop(clients, slice, move |i| {
                    let token = p[i].0.clone();
                    let (b, c) = (b.clone(), c.clone());
                    async move {
                        play_i_luv_suits(&c, &b, &token).await;
                        1
                    }
                })
                .await,
            );
        }
        if runs("craps") {
            let (p, b, c, l) = (Arc::clone(&players), base.clone(), http.clone(), Arc::clone(&layouts));
            craps.absorb(
                closed_loop(clients, slice, move |i| {
                    let (token, session) = (p[i].0.clone(), p[i].3.clone());
                    let (b, c, l) = (b.clone(), c.clone(), Arc::clone(&l));
                    async move {
                        roll_craps(&c, &b, &token, &session, &l[i]).await;
                        1
                    }
                })
                .await,
            );
        }
        if runs("reference") {
            let (p, b, c) = (Arc::clone(&players), base.clone(), http.clone());
            reads.absorb(
                closed_loop(clients, slice, move |i| {
                    let get = c.get(format!("{b}/v1/craps/sessions/{}", p[i].3)).bearer_auth(&p[i].0);
                    async move {
                        send(get).await;
                        1
                    }
                })
                .await,
            );
        }
    }
    println!();
    println!("{clients} concurrent players, {seconds} s in all (alternating slices)");
    println!(
        "{:<46} {:>10} {:>9} {:>9} {:>11} {:>16} {:>11}",
        "through the gateway", "per s", "p50 ms", "p99 ms", "vs Keno", "requests/s (x)", "CPU ms (x)"
    );
    let keno_rate = keno.per_second();
    // `requests`: the player's requests per unit (a round needs one per step), so the last
    // column compares the cost of one request with one Keno ticket's.
    let row = |name: &str, run: &LoadRun, requests: Option<f64>| {
        if run.units == 0 {
            return;
        }
        let (ratio, per_request) = requests.map_or((String::new(), String::new()), |n| {
            let rate = run.per_second() * n;
            (format!("{:.2}x", run.per_second() / keno_rate), format!("{rate:.0} ({:.2}x)", rate / keno_rate))
        });
        // The machine's busy CPU per unit beside a Keno ticket's: what a unit costs, where the
        // rate also counts how long it waits.
        let cpu =
            format!("{:.2} ({:.2}x)", run.cpu_ms_per_unit(), run.cpu_ms_per_unit() / keno.cpu_ms_per_unit());
        println!(
            "{name:<46} {:>10.0} {:>9.2} {:>9.2} {ratio:>11} {per_request:>16} {cpu:>11}",
            run.per_second(),
            run.percentile_ms(0.5),
            run.percentile_ms(0.99)
        );
    };
    row("ledger single transfers (reference)", &transfers, None);
    row("keno play-now tickets (reference)", &keno, None);
    row("a player's read of a craps layout (reference)", &reads, None);
    let blackjack_per_round = blackjack_requests.load(Ordering::Relaxed) as f64 / rounds.units.max(1) as f64;
    row("blackjack rounds (deal, decisions, settle)", &rounds, Some(blackjack_per_round));
    row("I Luv Suits rounds (wagers, decision, settle)", &suits, Some(2.0));
    row("craps rolls (pass line and field, settled)", &craps, Some(1.0));
    if rounds.units > 0 {
        println!("(a blackjack round made {blackjack_per_round:.2} requests on average)");
    }
    for (unit, run) in [("blackjack round", &rounds), ("I Luv Suits round", &suits), ("craps roll", &craps)] {
        if run.units > 0 {
            println!("{}", run.cpu_note(unit));
        }
    }
    for (name, run) in [("blackjack", &rounds), ("I Luv Suits", &suits), ("craps", &craps)] {
        if run.units == 0 {
            continue;
        }
        let met = run.per_second() >= 0.8 * keno.per_second();
        println!("target: {name} at least 0.8x Keno play-now    {}", if met { "met" } else { "MISSED" });
    }
    // What each unit moved in the ledger, counted in its journal (a transfer is a large share of
    // a unit's cost): every transfer of a game carries its name in its metadata.
    let moved: Vec<(String, i64)> = sqlx::query_as(
        "SELECT metadata->>'game', count(*) FROM transfers WHERE metadata ? 'game' GROUP BY 1 ORDER BY 1",
    )
    .fetch_all(&platform.ledger_pool)
    .await
    .unwrap();
    let units = |game: &str| match game {
        "castle_keno" => keno.units,
        "blackjack" => rounds.units,
        "i_luv_suits" => suits.units,
        "craps" => craps.units,
        _ => 0,
    };
    let per_unit: Vec<String> = moved
        .iter()
        .filter(|(game, _)| units(game) > 0)
        .map(|(game, n)| format!("{game} {:.2}", *n as f64 / units(game) as f64))
        .collect();
    println!("(ledger transfers a unit: {})", per_unit.join(", "));
    if let Some(stolen) = platform::testing::machine_stolen_share_since(&cpu_before) {
        // Not counted in any CPU figure above; a shared host's other guests make runs differ.
        println!(
            "(the hypervisor gave {:.0}% of this machine's CPU time to others during the run)",
            stolen * 100.0
        );
    }
}

/// A craps roll: a $1 field bet, and a $1 pass line bet whenever the puck is off and none is up,
/// decided on `layout` (the session as the last roll left it), which it then replaces.
async fn roll_craps(http: &reqwest::Client, base: &str, token: &str, session: &str, layout: &Mutex<Value>) {
    let layout_now = layout.lock().unwrap().clone();
    let layout_now = &layout_now;
    let mut changes = vec![json!({"change": "place", "bet": "field", "amount_cents": 100})];
    let has_pass = layout_now["bets"].as_array().unwrap().iter().any(|b| b["bet"] == "pass");
    if layout_now["point"].is_null() && !has_pass {
        changes.push(json!({"change": "place", "bet": "pass", "amount_cents": 100}));
    }
    let rolled = send(
        http.post(format!("{base}/v1/craps/sessions/{session}/rolls"))
            .bearer_auth(token)
            .header("idempotency-key", Uuid::now_v7().to_string())
            .json(&json!({"changes": changes})),
    )
    .await;
    assert!(rolled["result"]["roll"]["total"].is_number(), "{rolled}");
    *layout.lock().unwrap() = rolled["session"].clone();
}

/// An I Luv Suits round: a $5 ante and a $1 Flush Rush, then the simple strategy's decision.
async fn play_i_luv_suits(http: &reqwest::Client, base: &str, token: &str) {
    let round = send(
        http.post(format!("{base}/v1/i-luv-suits/rounds"))
            .bearer_auth(token)
            .header("idempotency-key", Uuid::now_v7().to_string())
            .json(&json!({"ante_cents": 500, "flush_rush_cents": 100})),
    )
    .await;
    let cards: Vec<Card> = serde_json::from_value(round["player"]["cards"].clone()).unwrap();
    let decision = match simple_decision(&domain::i_luv_suits::round::suit_bits(&cards)) {
        Decision::Fold => json!({"decision": "fold"}),
        Decision::Play(m) => json!({"decision": "play", "play_cents": 500 * i64::from(m)}),
    };
    let id = round["id"].as_str().unwrap();
    let done = send(
        http.post(format!("{base}/v1/i-luv-suits/rounds/{id}/decision")).bearer_auth(token).json(&decision),
    )
    .await;
    assert_eq!(done["state"], "settled", "{done}");
}

/// Deals a $1 round and plays it by basic strategy: two decisions, then stands. Answers how many
/// requests it made.
async fn play_round(http: &reqwest::Client, base: &str, token: &str, table: &str) -> u64 {
    let mut round: Value = send(
        http.post(format!("{base}/v1/blackjack/tables/{table}/rounds"))
            .bearer_auth(token)
            .header("idempotency-key", Uuid::now_v7().to_string())
            .json(&json!({"spots": [{"wager": 100}]})),
    )
    .await;
    let id = round["id"].as_str().unwrap().to_owned();
    let mut decisions = 0;
    while round["state"] == "playing" {
        let step = round["step"].as_i64().unwrap();
        let view = &round["round"];
        let action = if view["phase"] == "insurance" {
            json!({"step": step, "action": "decline_insurance", "spot": 0})
        } else if decisions >= 2 {
            json!({"step": step, "action": "stand"})
        } else {
            let [s, h] = [0, 1].map(|k| usize::try_from(view["turn"][k].as_u64().unwrap()).unwrap());
            let hand = &view["spots"][s]["hands"][h];
            let cards: Vec<Card> = serde_json::from_value(hand["cards"].clone()).unwrap();
            let up: Card = serde_json::from_value(view["dealer"][0].clone()).unwrap();
            let can_split = view["spots"][s]["hands"].as_array().unwrap().len() < 4;
            let mut action = serde_json::to_value(decide(&cards, up, can_split)).unwrap();
            if decide(&cards, up, can_split) == (Action::Double { amount: None }) {
                action = json!({"action": "double"});
            }
            action["step"] = json!(step);
            action
        };
        decisions += 1;
        round = send(
            http.post(format!("{base}/v1/blackjack/rounds/{id}/actions")).bearer_auth(token).json(&action),
        )
        .await;
    }
    assert_eq!(round["state"], "settled", "{round}");
    decisions + 1
}

async fn send(request: reqwest::RequestBuilder) -> Value {
    let response = request.send().await.unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert!(status.is_success(), "{status} {body}");
    body
}
