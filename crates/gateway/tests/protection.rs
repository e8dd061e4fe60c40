//! Player protection's money limits over the API (issue 35, ADR 0014): set by the player and by
//! an operator, enforced by the ledger in every game at the stake, under races.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Login, TestGateway, balance, new_id, play};
use platform::auth::Role;
use serde_json::{Value, json};

async fn set_limit(gw: &TestGateway, player: &Login, body: Value) -> Value {
    let set = gw.call("PUT", "/v1/me/limits", Some(&player.token), Some(body)).await;
    assert_eq!(set.status, 200, "{}", set.body);
    set.body
}

/// The money limit of `kind` (and `period`) from `source` in a limits answer.
fn money_limit<'a>(limits: &'a Value, kind: &str, period: Option<&str>, source: &str) -> &'a Value {
    limits["money"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == kind && l["period"].as_str() == period && l["source"] == source)
        .unwrap_or_else(|| panic!("no {kind} {period:?} {source} limit in {limits}"))
}

#[tokio::test]
async fn twenty_tickets_at_once_take_exactly_what_a_ten_dollar_loss_limit_allows() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 10_000).await;
    let limits = set_limit(&gw, &ann, json!({"kind": "loss", "period": "daily", "amount": 1_000})).await;
    let loss = money_limit(&limits, "loss", Some("daily"), "player");
    assert_eq!((loss["cents"].as_i64(), loss["left"].as_i64()), (Some(1_000), Some(1_000)), "{loss}");
    let before = balance(&gw, &ann).await;

    // Twenty $3 tickets (one spot, three draws to come) at once: the stakes, not their
    // outcomes, meet the limit, and only three fit in $10.
    let plays = (0..20).map(|_| {
        play(&gw, &ann, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [7], "draws": 3}))
    });
    let answers = futures_util::future::join_all(plays).await;
    let taken: Vec<_> = answers.iter().filter(|a| a.status == 201).collect();
    let refused: Vec<_> = answers.iter().filter(|a| a.status == 422).collect();
    assert_eq!(
        (taken.len(), refused.len()),
        (3, 17),
        "{:?}",
        answers.iter().map(|a| &a.body).collect::<Vec<_>>()
    );
    for refusal in &refused {
        assert_eq!(refusal.body["code"], "limit_reached", "{}", refusal.body);
        let context = &refusal.body["context"];
        assert_eq!((context["kind"].as_str(), context["period"].as_str()), (Some("loss"), Some("daily")));
        assert_eq!(
            (context["limit"].as_i64(), context["left"].as_i64(), context["stake"].as_i64()),
            (Some(1_000), Some(100), Some(300))
        );
        assert!(context["resets_at"].is_string(), "{context}");
    }
    assert_eq!(balance(&gw, &ann).await, before - 900);

    // What the limit shows now: $9 used, $1 left, and when the oldest stake leaves the window.
    let limits = gw.call("GET", "/v1/me/limits", Some(&ann.token), None).await;
    let loss = money_limit(&limits.body, "loss", Some("daily"), "player");
    assert_eq!((loss["used"].as_i64(), loss["left"].as_i64()), (Some(900), Some(100)), "{loss}");
    assert!(loss["resets_at"].is_string(), "{loss}");
    gw.assert_ledger_balanced().await;
}

/// A limit lowered while stakes are in flight: the ledger checks each stake against the limit in
/// the statement that debits it, so each stake meets the old limit or the new, whole; none is
/// cut, counted twice or lost, whatever the interleaving.
#[tokio::test]
async fn a_limit_lowered_while_stakes_are_in_flight_binds_each_stake_whole_by_the_limit_it_met() {
    let gw = TestGateway::new().await;
    let bo = gw.player("bo@example.com").await;
    gw.fund(&bo.token, 5_000).await;
    set_limit(&gw, &bo, json!({"kind": "loss", "period": "daily", "amount": 4_000})).await;
    let before = balance(&gw, &bo).await;

    // Twenty $3 tickets for draws to come (their loss is their stake until drawn).
    let plays = (0..20)
        .map(|_| play(&gw, &bo, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [7], "draws": 3})));
    // The limit lowered to $10 once the ledger has taken the first stake, the others in flight.
    let lower = async {
        loop {
            let limits = gw.call("GET", "/v1/me/limits", Some(&bo.token), None).await;
            if money_limit(&limits.body, "loss", Some("daily"), "player")["used"].as_i64() > Some(0) {
                break;
            }
            tokio::task::yield_now().await;
        }
        set_limit(&gw, &bo, json!({"kind": "loss", "period": "daily", "amount": 1_000})).await
    };
    let (answers, _) = tokio::join!(futures_util::future::join_all(plays), lower);
    let taken = answers.iter().filter(|a| a.status == 201).count();
    for refusal in answers.iter().filter(|a| a.status != 201) {
        assert_eq!((refusal.status.as_u16(), refusal.body["code"].as_str()), (422, Some("limit_reached")));
        let context = &refusal.body["context"];
        let (limit, left) = (context["limit"].as_i64().unwrap(), context["left"].as_i64().unwrap());
        assert!(limit == 1_000 || limit == 4_000, "a limit never set: {context}");
        assert!(left < 300 && context["stake"] == 300, "refused though it fitted: {context}");
    }
    // The old limit fits 13 stakes; whatever passed, each was taken whole and counted once.
    let used = i64::try_from(taken).unwrap() * 300;
    assert!(taken <= 13, "{taken} stakes passed a $40 limit");
    assert_eq!(balance(&gw, &bo).await, before - used);
    let limits = gw.call("GET", "/v1/me/limits", Some(&bo.token), None).await;
    let loss = money_limit(&limits.body, "loss", Some("daily"), "player");
    assert_eq!((loss["cents"].as_i64(), loss["used"].as_i64()), (Some(1_000), Some(used)), "{loss}");
    // From now the lower limit binds every stake.
    if used + 300 > 1_000 {
        let after =
            play(&gw, &bo, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [7], "draws": 3})).await;
        assert_eq!(after.body["context"]["limit"], 1_000, "{}", after.body);
    }
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn every_game_refuses_a_stake_past_a_single_stake_limit_and_takes_one_within_it() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 50_000).await;
    set_limit(&gw, &ann, json!({"kind": "single_stake", "amount": 200})).await;
    let table = gw.call("POST", "/v1/blackjack/tables", Some(&ann.token), Some(json!({"decks": 6}))).await;
    assert_eq!(table.status, 201, "{}", table.body);
    let craps = gw.call("POST", "/v1/craps/sessions", Some(&ann.token), Some(json!({}))).await;
    assert_eq!(craps.status, 201, "{}", craps.body);
    let (table, craps) = (table.body["id"].as_str().unwrap(), craps.body["id"].as_str().unwrap());
    let bet = |cents: i64| json!({"changes": [{"change": "place", "bet": "field", "amount_cents": cents}]});
    // (game, path, a stake past $2, a stake within it).
    let plays = [
        (
            "Keno now",
            "/v1/keno/tickets".to_owned(),
            json!({"option": "bet", "spots": [7], "tickets": 3}),
            Some(json!({"option": "bet", "spots": [7]})),
        ),
        (
            "Keno draws",
            "/v1/keno/draw-tickets".to_owned(),
            json!({"option": "bet", "spots": [7], "draws": 3}),
            Some(json!({"option": "bet", "spots": [7], "draws": 2})),
        ),
        (
            "Powerball",
            "/v1/powerball/tickets".to_owned(),
            json!({"quick_picks": 2}),
            Some(json!({"quick_picks": 1})),
        ),
        (
            "blackjack",
            format!("/v1/blackjack/tables/{table}/rounds"),
            json!({"spots": [{"wager": 300}]}),
            None,
        ),
        ("I Luv Suits", "/v1/i-luv-suits/rounds".to_owned(), json!({"ante_cents": 500}), None),
        ("craps", format!("/v1/craps/sessions/{craps}/bets"), bet(300), Some(bet(200))),
    ];
    for (game, path, past, within) in plays {
        let before = balance(&gw, &ann).await;
        let refused = play(&gw, &ann, &path, past).await;
        assert_eq!(refused.status, 422, "{game}: {}", refused.body);
        assert_eq!(refused.body["code"], "limit_reached", "{game}: {}", refused.body);
        assert_eq!(refused.body["context"]["kind"], "single_stake", "{game}: {}", refused.body);
        assert_eq!(refused.body["context"]["limit"], 200, "{game}: {}", refused.body);
        assert_eq!(balance(&gw, &ann).await, before, "{game}: a refused stake moved money");
        if let Some(within) = within {
            let taken = play(&gw, &ann, &path, within).await;
            assert!(taken.status.is_success(), "{game}: {}", taken.body);
            assert!(balance(&gw, &ann).await < before + 100_000, "{game}");
        }
    }
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn a_lowering_binds_at_once_a_raise_waits_and_the_operators_lower_limit_binds() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let operator = gw.staff("olga", Role::Operator).await;
    gw.fund(&ann.token, 10_000).await;
    let ticket = |draws: i64| json!({"option": "bet", "spots": [7], "draws": draws});

    set_limit(&gw, &ann, json!({"kind": "wager", "period": "weekly", "amount": 500})).await;
    // A raise waits 24 hours, shown as pending; the $5 limit still binds.
    let limits = set_limit(&gw, &ann, json!({"kind": "wager", "period": "weekly", "amount": 5_000})).await;
    let wager = money_limit(&limits, "wager", Some("weekly"), "player");
    assert_eq!(
        (wager["cents"].as_i64(), wager["pending_cents"].as_i64()),
        (Some(500), Some(5_000)),
        "{wager}"
    );
    assert!(wager["pending_from"].is_string(), "{wager}");
    let answer = play(&gw, &ann, "/v1/keno/draw-tickets", ticket(6)).await;
    assert_eq!(answer.body["code"], "limit_reached", "{}", answer.body);
    // A removal waits as a raise does.
    let limits = set_limit(&gw, &ann, json!({"kind": "wager", "period": "weekly", "amount": null})).await;
    let wager = money_limit(&limits, "wager", Some("weekly"), "player");
    assert_eq!(
        (wager["cents"].as_i64(), wager["pending_removal"].as_bool()),
        (Some(500), Some(true)),
        "{wager}"
    );
    // A lowering applies at once and cancels what waited.
    let limits = set_limit(&gw, &ann, json!({"kind": "wager", "period": "weekly", "amount": 400})).await;
    let wager = money_limit(&limits, "wager", Some("weekly"), "player");
    assert_eq!((wager["cents"].as_i64(), wager["pending_from"].as_str()), (Some(400), None), "{wager}");
    let answer = play(&gw, &ann, "/v1/keno/draw-tickets", ticket(4)).await;
    assert_eq!(answer.status, 201, "{}", answer.body);

    // The operator imposes $3 a day on loss; it binds below the player's own $4 a week of stakes
    // (both count the $4 already staked: nothing is left of either).
    let path = format!("/v1/players/{}/limits", ann.subject);
    let imposed = gw
        .call(
            "PUT",
            &path,
            Some(&operator.token),
            Some(json!({"kind": "loss", "period": "daily", "amount": 300, "reason": "a call to the help line"})),
        )
        .await;
    assert_eq!(imposed.status, 200, "{}", imposed.body);
    let loss = money_limit(&imposed.body, "loss", Some("daily"), "operator");
    assert_eq!(
        (loss["cents"].as_i64(), loss["used"].as_i64(), loss["left"].as_i64()),
        (Some(300), Some(400), Some(0))
    );
    // An operator only lowers it, and says why: a raise, the same amount, a removal and a change
    // without a reason are refused, and nothing changes.
    for (body, status, code) in [
        (
            json!({"kind": "loss", "period": "daily", "amount": 301, "reason": "she asked"}),
            409,
            "limit_may_only_lower",
        ),
        (
            json!({"kind": "loss", "period": "daily", "amount": 300, "reason": "she asked"}),
            409,
            "limit_may_only_lower",
        ),
        (
            json!({"kind": "loss", "period": "daily", "amount": null, "reason": "she asked"}),
            422,
            "invalid_body",
        ),
        (json!({"kind": "loss", "period": "daily", "amount": 200, "reason": " "}), 422, "invalid_reason"),
    ] {
        let refused = gw.call("PUT", &path, Some(&operator.token), Some(body.clone())).await;
        assert_eq!((refused.status.as_u16(), refused.code()), (status, code), "{body}: {}", refused.body);
    }
    let lowered = gw
        .call(
            "PUT",
            &path,
            Some(&operator.token),
            Some(json!({"kind": "loss", "period": "daily", "amount": 250, "reason": "a second call"})),
        )
        .await;
    assert_eq!(
        money_limit(&lowered.body, "loss", Some("daily"), "operator")["cents"],
        250,
        "{}",
        lowered.body
    );
    let (before, after, reason): (Value, Value, String) = sqlx::query_as(
        "SELECT before, after, reason FROM staff_actions WHERE action = 'limit.impose' ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(&gw.state.pool)
    .await
    .unwrap();
    assert_eq!(
        (before["cents"].as_i64(), after["cents"].as_i64(), reason.as_str()),
        (Some(300), Some(250), "a second call")
    );
    let answer = play(&gw, &ann, "/v1/keno/draw-tickets", ticket(1)).await;
    assert_eq!(answer.body["context"]["kind"], "loss", "{}", answer.body);
    // The player cannot lift the operator's limit: theirs is another row.
    let own = gw
        .call(
            "PUT",
            "/v1/me/limits",
            Some(&ann.token),
            Some(json!({"kind": "loss", "period": "daily", "amount": null})),
        )
        .await;
    assert_eq!(money_limit(&own.body, "loss", Some("daily"), "operator")["cents"], 250, "{}", own.body);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn limits_of_the_wrong_form_are_refused_with_their_code() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let cases = [
        (json!({"kind": "single_stake", "period": "daily", "amount": 100}), 422, "invalid_money_limit"),
        (json!({"kind": "loss", "amount": 100}), 422, "invalid_money_limit"),
        (json!({"kind": "loss", "period": "daily", "amount": 0}), 422, "invalid_amount"),
        (json!({"kind": "loss", "period": "daily", "amount": -5}), 422, "invalid_amount"),
        (json!({"kind": "loss", "period": "hourly", "amount": 100}), 422, "invalid_body"),
        (json!({"kind": "time", "period": "daily", "amount": 100}), 422, "invalid_body"),
        (json!({"kind": "loss", "period": "daily", "amount": 100, "extra": 1}), 422, "invalid_body"),
    ];
    for (body, status, code) in cases {
        let answer = gw.call("PUT", "/v1/me/limits", Some(&ann.token), Some(body.clone())).await;
        assert_eq!(
            (answer.status.as_u16(), answer.body["code"].as_str()),
            (status, Some(code)),
            "{body}: {}",
            answer.body
        );
    }
    // Nothing was set by any of them.
    let limits = gw.call("GET", "/v1/me/limits", Some(&ann.token), None).await;
    assert_eq!(limits.body["money"], json!([]), "{}", limits.body);
}

/// Sends blackjack decisions that add no stake (decline insurance, stand) until the round waits
/// for none; answers the round as it ends.
async fn finish_without_stakes(gw: &TestGateway, player: &Login, mut round: Value) -> Value {
    for _ in 0..10 {
        let allowed = round["allowed_actions"].as_array().unwrap().clone();
        let Some(next) =
            allowed.iter().find(|a| a["action"] == "decline_insurance" || a["action"] == "stand")
        else {
            return round;
        };
        let mut body = json!({"step": round["step"], "action": next["action"]});
        if let Some(spot) = next.get("spot") {
            body["spot"] = spot.clone();
        }
        let path = format!("/v1/blackjack/rounds/{}/actions", round["id"].as_str().unwrap());
        let answer = play(gw, player, &path, body).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        round = answer.body;
    }
    panic!("the round did not end: {round}");
}

#[tokio::test]
async fn a_round_in_play_finishes_when_a_limit_is_reached_and_only_new_stakes_are_refused() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    let operator = gw.staff("olga", Role::Operator).await;
    gw.fund(&ann.token, 50_000).await;
    let limits_path = format!("/v1/players/{}/limits", ann.subject);
    // An operator's daily wager limit, set to what Ann has staked so far and `room` more. It
    // rises as she plays, which an operator may not do (only lower): it is set on the ledger's
    // own route, as a service sets it.
    let wallet =
        gw.call("GET", "/v1/me/wallet", Some(&ann.token), None).await.body["id"].as_str().unwrap().to_owned();
    let service = gw.service_token();
    let leave_room = |room: i64| {
        let (gw, operator, path, wallet, service) = (&gw, &operator, &limits_path, &wallet, &service);
        async move {
            let now = gw.call("GET", path, Some(&operator.token), None).await;
            let used = now.body["money"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["kind"] == "wager")
                .map_or(0, |l| l["used"].as_i64().unwrap());
            let body = json!({"kind": "wager", "period": "daily", "source": "operator", "cents": used + room,
                              "raise_delay_seconds": 86_400});
            let set =
                gw.call("PUT", &format!("/v1/accounts/{wallet}/limits"), Some(service), Some(body)).await;
            assert_eq!(set.status, 200, "{}", set.body);
        }
    };

    // Craps: a $2 pass line bet takes all the room; rolls that add nothing resolve it once a
    // point is set, and a new bet is refused.
    let session = gw.call("POST", "/v1/craps/sessions", Some(&ann.token), Some(json!({}))).await;
    let session = session.body["id"].as_str().unwrap().to_owned();
    let (rolls, bets) =
        (format!("/v1/craps/sessions/{session}/rolls"), format!("/v1/craps/sessions/{session}/bets"));
    let mut rolled_without_stake = 0;
    for _ in 0..20 {
        leave_room(200).await;
        let pass = json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 200}]});
        let first = play(&gw, &ann, &rolls, pass).await;
        assert_eq!(first.status, 201, "{}", first.body);
        let field = json!({"changes": [{"change": "place", "bet": "field", "amount_cents": 100}]});
        let more = play(&gw, &ann, &bets, field).await;
        assert_eq!(more.body["code"], "limit_reached", "{}", more.body);
        // Until the pass line bet is resolved, the shooter rolls on without staking.
        loop {
            let roll = play(&gw, &ann, &rolls, json!({"changes": []})).await;
            if roll.body["code"] == "shooter_needs_line_bet" {
                break;
            }
            assert_eq!(roll.status, 201, "a roll adding no stake: {}", roll.body);
            rolled_without_stake += 1;
        }
        if rolled_without_stake > 0 {
            break;
        }
    }
    assert!(rolled_without_stake > 0, "twenty come-out rolls without a point");

    // Blackjack: a round dealt with all the room left cannot be doubled, yet stands and settles.
    let table = gw.call("POST", "/v1/blackjack/tables", Some(&ann.token), Some(json!({"decks": 6}))).await;
    let rounds = format!("/v1/blackjack/tables/{}/rounds", table.body["id"].as_str().unwrap());
    let mut doubled_refused = false;
    for _ in 0..40 {
        leave_room(500).await;
        let dealt = play(&gw, &ann, &rounds, json!({"spots": [{"wager": 500}]})).await;
        assert_eq!(dealt.status, 201, "{}", dealt.body);
        let can_double =
            dealt.body["allowed_actions"].as_array().unwrap().iter().any(|a| a["action"] == "double");
        if can_double {
            let path = format!("/v1/blackjack/rounds/{}/actions", dealt.body["id"].as_str().unwrap());
            let double =
                play(&gw, &ann, &path, json!({"step": dealt.body["step"], "action": "double"})).await;
            assert_eq!(double.body["code"], "limit_reached", "{}", double.body);
            doubled_refused = true;
        }
        let ended = finish_without_stakes(&gw, &ann, dealt.body).await;
        assert!(matches!(ended["state"].as_str(), Some("settled" | "settling")), "{ended}");
        if doubled_refused {
            break;
        }
    }
    assert!(doubled_refused, "forty rounds without a hand that could double");
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn the_statement_adds_up_what_the_wallet_did_per_day_and_game_and_downloads_as_csv() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 10_000).await;
    let (mut staked, mut won) = (0, 0);
    for tickets in [1, 2, 3] {
        let played = play(
            &gw,
            &ann,
            "/v1/keno/tickets",
            json!({"option": "bet", "spots": [7, 17], "tickets": tickets}),
        )
        .await;
        assert_eq!(played.status, 201, "{}", played.body);
        staked += played.body["stake_cents"].as_i64().unwrap();
        won += played.body["payout_cents"].as_i64().unwrap();
    }
    let bought =
        play(&gw, &ann, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [7], "draws": 2})).await;
    assert_eq!(bought.status, 201, "{}", bought.body);
    staked += 200;

    let statement = gw.call("GET", "/v1/me/statement", Some(&ann.token), None).await;
    assert_eq!(statement.status, 200, "{}", statement.body);
    let s = &statement.body;
    let totals =
        json!({"deposited": 10_000, "withdrawn": 0, "staked": staked, "won": won, "net": won - staked});
    assert_eq!(s["totals"], totals, "{s}");
    assert_eq!((&s["today"], &s["last_7_days"], &s["last_30_days"]), (&totals, &totals, &totals), "{s}");
    assert_eq!(
        s["games"],
        json!([{"game": "castle_keno", "totals": {"deposited": 0, "withdrawn": 0, "staked": staked, "won": won, "net": won - staked}}]),
        "{s}"
    );
    assert_eq!(s["days"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s["time_zone"], "America/Chicago");
    // What the wallet shows agrees: deposited less staked plus won.
    let balance = gw.call("GET", "/v1/me/wallet", Some(&ann.token), None).await;
    assert_eq!(balance.body["balance"]["posted"].as_i64().unwrap(), 10_000 - staked + won);

    // The same as CSV: the keno row's stake is the statement's, in dollars.
    let csv = gw.call("GET", "/v1/me/statement.csv", Some(&ann.token), None).await;
    assert_eq!(csv.status, 200);
    let text = csv.body.as_str().unwrap().to_owned();
    let mut rows = text.lines();
    assert_eq!(rows.next(), Some("date,game,deposited,withdrawn,staked,won,net"));
    let keno: Vec<&str> =
        rows.clone().find(|r| r.split(',').nth(1) == Some("castle_keno")).unwrap().split(',').collect();
    assert_eq!(keno[4], format!("{}.{:02}", staked / 100, staked % 100), "{text}");
    let cash: Vec<&str> = rows.find(|r| r.split(',').nth(1) == Some("")).unwrap().split(',').collect();
    assert_eq!(cash[2], "100.00", "{text}");

    // Days of the wrong order or too many, or not dates, are refused.
    for (query, code) in [
        ("from=2026-03-02&to=2026-03-01", "invalid_window"),
        ("from=2024-01-01&to=2026-01-01", "invalid_window"),
        ("from=yesterday", "invalid_query"),
    ] {
        let refused = gw.call("GET", &format!("/v1/me/statement?{query}"), Some(&ann.token), None).await;
        assert_eq!(refused.body["code"], code, "{query}: {}", refused.body);
    }
    // A day with nothing in it is an empty statement, not an error.
    let quiet =
        gw.call("GET", "/v1/me/statement?from=2020-01-01&to=2020-01-31", Some(&ann.token), None).await;
    assert_eq!(
        (quiet.body["days"].as_array().map(Vec::len), &quiet.body["totals"]["staked"]),
        (Some(0), &json!(0))
    );
}

#[tokio::test]
async fn a_time_out_ends_every_session_and_refuses_stakes_and_deposits_but_not_withdrawals() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 5_000).await;
    let bad = gw.call("POST", "/v1/me/time-out", Some(&ann.token), Some(json!({"period": "2_hours"}))).await;
    assert_eq!(bad.body["code"], "invalid_body", "{}", bad.body);

    let taken =
        gw.call("POST", "/v1/me/time-out", Some(&ann.token), Some(json!({"period": "72_hours"}))).await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let until: chrono::DateTime<chrono::Utc> =
        taken.body["on_break_until"].as_str().unwrap().parse().unwrap();
    assert!((until - chrono::Utc::now() - chrono::Duration::hours(72)).num_seconds().abs() < 60, "{until}");
    assert_eq!(gw.call("GET", "/v1/me/wallet", Some(&ann.token), None).await.body["code"], "session_ended");
    // A shorter break asked for afterwards does not shorten it.
    let again = gw.login(json!({"email": "ann@example.com", "password": common::PASSWORD})).await;
    assert_eq!(again.status, 201, "{}", again.body);
    let back = Login {
        token: again.body["access_token"].as_str().unwrap().to_owned(),
        subject: ann.subject.clone(),
    };
    let shorter =
        gw.call("POST", "/v1/me/time-out", Some(&back.token), Some(json!({"period": "24_hours"}))).await;
    assert_eq!(shorter.body["on_break_until"], taken.body["on_break_until"], "{}", shorter.body);

    // Logged in again: the break shows, every game's stake is refused by the ledger, a deposit
    // here, and a withdrawal goes through.
    let again = gw.login(json!({"email": "ann@example.com", "password": common::PASSWORD})).await;
    let ann = Login { token: again.body["access_token"].as_str().unwrap().to_owned(), subject: ann.subject };
    let me = gw.call("GET", "/v1/me", Some(&ann.token), None).await;
    assert_eq!(me.body["player"]["on_break_until"], taken.body["on_break_until"], "{}", me.body);
    let before = balance(&gw, &ann).await;
    for (path, body) in [
        ("/v1/keno/tickets", json!({"option": "bet", "spots": [7]})),
        ("/v1/keno/draw-tickets", json!({"option": "bet", "spots": [7], "draws": 2})),
        ("/v1/i-luv-suits/rounds", json!({"ante_cents": 500})),
    ] {
        let refused = play(&gw, &ann, path, body).await;
        assert_eq!(
            (refused.status.as_u16(), refused.body["code"].as_str()),
            (422, Some("play_suspended")),
            "{path}: {}",
            refused.body
        );
        assert_eq!(refused.body["context"]["reason"], "time_out", "{}", refused.body);
    }
    let deposit = gw.deposit(&ann.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
    assert_eq!(deposit.body["code"], "on_break", "{}", deposit.body);
    assert_eq!(balance(&gw, &ann).await, before);
    let withdrawal = play(&gw, &ann, "/v1/me/withdrawals", json!({"amount": 1_000, "currency": "USD"})).await;
    assert_eq!(withdrawal.status, 202, "{}", withdrawal.body);
    gw.assert_ledger_balanced().await;
}

/// Makes every game session's reality check due now (its interval is at least 15 minutes).
async fn make_reality_check_due(gw: &TestGateway) {
    sqlx::query(
        "UPDATE game_sessions SET reality_check_at = now() - interval '1 second' WHERE ended_at IS NULL",
    )
    .execute(&gw.state.pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn a_reality_check_stops_the_next_stake_until_the_player_goes_on_or_stops() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 10_000).await;
    // No play yet: the clock has not started.
    let clock = gw.call("GET", "/v1/me/play-session", Some(&ann.token), None).await;
    assert_eq!(
        (clock.body["started_at"].is_null(), clock.body["interval_minutes"].as_i64()),
        (true, Some(60)),
        "{}",
        clock.body
    );
    let interval =
        gw.call("PUT", "/v1/me/reality-check", Some(&ann.token), Some(json!({"interval_minutes": 20}))).await;
    assert_eq!(interval.body["code"], "invalid_interval", "{}", interval.body);
    let interval =
        gw.call("PUT", "/v1/me/reality-check", Some(&ann.token), Some(json!({"interval_minutes": 30}))).await;
    assert_eq!(interval.status, 200, "{}", interval.body);

    let (mut staked, mut won) = (0, 0);
    for _ in 0..3 {
        let played =
            play(&gw, &ann, "/v1/keno/tickets", json!({"option": "bet", "spots": [7, 17], "tickets": 2}))
                .await;
        assert_eq!(played.status, 201, "{}", played.body);
        staked += played.body["stake_cents"].as_i64().unwrap();
        won += played.body["payout_cents"].as_i64().unwrap();
    }
    let clock = gw.call("GET", "/v1/me/play-session", Some(&ann.token), None).await;
    let c = &clock.body;
    assert_eq!(
        (c["staked"].as_i64(), c["won"].as_i64(), c["net"].as_i64()),
        (Some(staked), Some(won), Some(won - staked)),
        "{c}"
    );
    let next: chrono::DateTime<chrono::Utc> = c["next_reality_check_at"].as_str().unwrap().parse().unwrap();
    let started: chrono::DateTime<chrono::Utc> = c["started_at"].as_str().unwrap().parse().unwrap();
    assert_eq!((next - started).num_minutes(), 30, "{c}");

    // Due: the next stake waits, with what the session took and paid; a round in play is not a stake.
    make_reality_check_due(&gw).await;
    let waiting = play(&gw, &ann, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    assert_eq!(
        (waiting.status.as_u16(), waiting.body["code"].as_str()),
        (409, Some("reality_check_due")),
        "{}",
        waiting.body
    );
    assert_eq!(
        (waiting.body["context"]["staked"].as_i64(), waiting.body["context"]["won"].as_i64()),
        (Some(staked), Some(won))
    );
    let bet =
        play(&gw, &ann, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [7], "draws": 1})).await;
    assert_eq!(bet.body["code"], "reality_check_due", "{}", bet.body);
    let wallet = gw.call("GET", "/v1/me/wallet", Some(&ann.token), None).await;
    assert_eq!(wallet.status, 200, "reading is not a stake: {}", wallet.body);

    // Going on: the next check is an interval away and stakes pass.
    let answer = gw
        .call("POST", "/v1/me/reality-check", Some(&ann.token), Some(json!({"decision": "continue"})))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let played = play(&gw, &ann, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    assert_eq!(played.status, 201, "{}", played.body);

    // Stopping ends the session, recorded in the significant-events log with what it staked
    // and won (issue 50).
    let (staked, won) = (
        staked + played.body["stake_cents"].as_i64().unwrap(),
        won + played.body["payout_cents"].as_i64().unwrap(),
    );
    make_reality_check_due(&gw).await;
    let stop =
        gw.call("POST", "/v1/me/reality-check", Some(&ann.token), Some(json!({"decision": "stop"}))).await;
    assert_eq!(stop.status, 200, "{}", stop.body);
    assert_eq!(gw.call("GET", "/v1/me", Some(&ann.token), None).await.body["code"], "session_ended");
    let ends = game_session_ends(&gw, &ann).await;
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(
        (ends[0]["ended_by"].as_str(), ends[0]["staked_cents"].as_i64(), ends[0]["won_cents"].as_i64()),
        (Some("reality_check_stop"), Some(staked), Some(won)),
        "{}",
        ends[0]
    );
    // A new login starts a new game session: its clock waits for its first stake.
    let again = log_in_again(&gw, "ann@example.com").await;
    let clock = gw.call("GET", "/v1/me/play-session", Some(&again.token), None).await;
    assert!(clock.body["started_at"].is_null(), "{}", clock.body);
    // Played, then left alone past the idle timeout (2 s here): the worker ends the game
    // session as idle, once, with the one ticket it staked.
    let played = play(&gw, &again, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    assert_eq!(played.status, 201, "{}", played.body);
    let mut idle = gw.state.clone();
    idle.sessions.idle_timeout = std::time::Duration::from_secs(2);
    assert_eq!(idle.end_idle_game_sessions().await.unwrap(), 0, "not idle yet");
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let (first, second) = tokio::join!(idle.end_idle_game_sessions(), idle.end_idle_game_sessions());
    assert_eq!(first.unwrap() + second.unwrap(), 1, "ended once");
    let ends = game_session_ends(&gw, &ann).await;
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert_eq!(
        (ends[1]["ended_by"].as_str(), ends[1]["staked_cents"].as_i64(), ends[1]["won_cents"].as_i64()),
        (Some("idle"), played.body["stake_cents"].as_i64(), played.body["payout_cents"].as_i64()),
        "{}",
        ends[1]
    );
    gw.assert_ledger_balanced().await;
}

/// The details of `player`'s game sessions' ends in the significant-events log, oldest first.
async fn game_session_ends(gw: &TestGateway, player: &Login) -> Vec<Value> {
    let player: uuid::Uuid = player.subject.parse().unwrap();
    let details: Vec<String> = sqlx::query_scalar(
        "SELECT details::text FROM (SELECT occurred_at, player_id, kind, details FROM events.log
                                    UNION ALL SELECT occurred_at, player_id, kind, details FROM events.pending) e
          WHERE kind = 'game_session_end' AND player_id = $1 ORDER BY occurred_at",
    )
    .bind(player)
    .fetch_all(&gw.state.pool)
    .await
    .unwrap();
    details.iter().map(|d| serde_json::from_str(d).unwrap()).collect()
}

/// Issue 47 §2: a reality check binds the player, not one login. A second login joins the game
/// session going on (its clock and next check); once the check is due every login's stakes
/// wait, a new login (a reload, a second device) meets it too, and an in-round stake (a
/// blackjack double, an I Luv Suits play wager) waits with them while the round can still be
/// finished (stand, fold). An answer from any login releases them all.
#[tokio::test]
async fn a_reality_check_due_binds_every_login_of_the_player_and_in_round_stakes() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 20_000).await;
    let played = play(&gw, &ann, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    assert_eq!(played.status, 201, "{}", played.body);
    let first = gw.call("GET", "/v1/me/play-session", Some(&ann.token), None).await.body;

    // A second login, before the check: the same game session, not a fresh one.
    let phone = log_in_again(&gw, "ann@example.com").await;
    let clock = gw.call("GET", "/v1/me/play-session", Some(&phone.token), None).await.body;
    assert_eq!(
        (&clock["started_at"], &clock["next_reality_check_at"]),
        (&first["started_at"], &first["next_reality_check_at"]),
        "{clock}"
    );

    // A blackjack round at the player's turn and an I Luv Suits round waiting for its decision,
    // both dealt before the check falls due.
    let table = gw.call("POST", "/v1/blackjack/tables", Some(&ann.token), Some(json!({"decks": 6}))).await;
    assert_eq!(table.status, 201, "{}", table.body);
    let table = table.body["id"].as_str().unwrap().to_owned();
    let mut round = Value::Null;
    for _ in 0..30 {
        let dealt = play(
            &gw,
            &ann,
            &format!("/v1/blackjack/tables/{table}/rounds"),
            json!({"spots": [{"wager": 100}]}),
        )
        .await;
        assert_eq!(dealt.status, 201, "{}", dealt.body);
        let actions = dealt.body["allowed_actions"].as_array().unwrap();
        if actions.iter().any(|a| a["action"] == "double") {
            round = dealt.body;
            break;
        }
        // Finish a round that waits on insurance, so the next can be dealt.
        if let Some(spot) = actions.iter().find(|a| a["action"] == "decline_insurance") {
            let id = dealt.body["id"].as_str().unwrap();
            let step = dealt.body["step"].clone();
            let body = json!({"step": step, "action": "decline_insurance", "spot": spot["spot"]});
            let declined = play(&gw, &ann, &format!("/v1/blackjack/rounds/{id}/actions"), body).await;
            assert_eq!(declined.status, 200, "{}", declined.body);
            if declined.body["allowed_actions"].as_array().unwrap().iter().any(|a| a["action"] == "double") {
                round = declined.body;
                break;
            }
            if declined.body["allowed_actions"].as_array().unwrap().iter().any(|a| a["action"] == "stand") {
                let body = json!({"step": declined.body["step"], "action": "stand"});
                play(&gw, &ann, &format!("/v1/blackjack/rounds/{id}/actions"), body).await;
            }
        }
    }
    assert!(!round.is_null(), "no round offered a double in 30 deals");
    let ils = play(&gw, &ann, "/v1/i-luv-suits/rounds", json!({"ante_cents": 500})).await;
    assert_eq!(ils.status, 201, "{}", ils.body);

    make_reality_check_due(&gw).await;
    let due = |reply: &platform::testing::Reply| {
        (reply.status.as_u16(), reply.body["code"].as_str().map(str::to_owned))
    };
    let waits = (409, Some("reality_check_due".to_owned()));
    for login in [&ann, &phone] {
        let stake = play(&gw, login, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
        assert_eq!(due(&stake), waits, "{}", stake.body);
    }
    // A new login (a reload, a third device) meets the check, and cannot stake past it.
    let tablet = log_in_again(&gw, "ann@example.com").await;
    let clock = gw.call("GET", "/v1/me/play-session", Some(&tablet.token), None).await.body;
    assert_eq!(clock["started_at"], first["started_at"], "{clock}");
    let next: chrono::DateTime<chrono::Utc> =
        clock["next_reality_check_at"].as_str().unwrap().parse().unwrap();
    assert!(next <= chrono::Utc::now(), "{clock}");
    let stake = play(&gw, &tablet, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    assert_eq!(due(&stake), waits, "{}", stake.body);

    // In-round stakes wait with them; the rounds can still be finished.
    let before = balance(&gw, &ann).await;
    let id = round["id"].as_str().unwrap().to_owned();
    let actions = format!("/v1/blackjack/rounds/{id}/actions");
    let double = play(&gw, &ann, &actions, json!({"step": round["step"], "action": "double"})).await;
    assert_eq!(due(&double), waits, "{}", double.body);
    let ils_id = ils.body["id"].as_str().unwrap().to_owned();
    let decision = format!("/v1/i-luv-suits/rounds/{ils_id}/decision");
    let play_wager = play(&gw, &phone, &decision, json!({"decision": "play"})).await;
    assert_eq!(due(&play_wager), waits, "{}", play_wager.body);
    assert_eq!(balance(&gw, &ann).await, before, "nothing was staked past the check");
    let stand = play(&gw, &ann, &actions, json!({"step": round["step"], "action": "stand"})).await;
    assert_eq!(stand.status, 200, "{}", stand.body);
    let fold = play(&gw, &ann, &decision, json!({"decision": "fold"})).await;
    assert_eq!(fold.status, 200, "{}", fold.body);

    // Going on from one login releases every login.
    let answer = gw
        .call("POST", "/v1/me/reality-check", Some(&tablet.token), Some(json!({"decision": "continue"})))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    for login in [&ann, &phone, &tablet] {
        let stake = play(&gw, login, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
        assert_eq!(stake.status, 201, "{}", stake.body);
    }
    // Time played is counted once for the game session, not once per login.
    let clock = gw.call("GET", "/v1/me/play-session", Some(&ann.token), None).await.body;
    assert!(clock["played_seconds"].as_i64().unwrap() < 600, "{clock}");
    gw.assert_ledger_balanced().await;
}

/// Another login of a registered player.
async fn log_in_again(gw: &TestGateway, email: &str) -> Login {
    let login = gw.login(json!({"email": email, "password": common::PASSWORD})).await;
    assert_eq!(login.status, 201, "{}", login.body);
    Login {
        token: login.body["access_token"].as_str().unwrap().to_owned(),
        subject: login.body["subject"].as_str().unwrap_or_default().to_owned(),
    }
}

#[tokio::test]
async fn the_wallets_entries_run_newest_first_each_with_the_balance_after_it() {
    let gw = TestGateway::new().await;
    let bo = gw.player("bo@example.com").await;
    gw.fund(&bo.token, 5_000).await;
    for tickets in [1, 2] {
        let played = play(
            &gw,
            &bo,
            "/v1/keno/tickets",
            json!({"option": "bet", "spots": [7, 17], "tickets": tickets}),
        )
        .await;
        assert_eq!(played.status, 201, "{}", played.body);
    }
    // A cash-out: its hold changes the posted balance by nothing, its completion by the amount.
    let out = play(&gw, &bo, "/v1/me/withdrawals", json!({"amount": 1_000, "currency": "USD"})).await;
    assert_eq!(out.status, 202, "{}", out.body);
    let paid = gw.settled_payment(&bo.token, out.body["id"].as_str().unwrap()).await;
    assert_eq!(paid["state"], "succeeded", "{paid}");

    let all = gw.call("GET", "/v1/me/wallet/entries?limit=500", Some(&bo.token), None).await;
    assert_eq!(all.status, 200, "{}", all.body);
    let entries = all.body["items"].as_array().unwrap().clone();
    assert!(
        entries.len() >= 5,
        "a deposit, two stakes (and their prizes, if any), a hold and its completion: {entries:?}"
    );
    let wallet = gw.call("GET", "/v1/me/wallet", Some(&bo.token), None).await;
    assert_eq!(
        entries[0]["balance_after"], wallet.body["balance"]["posted"],
        "the newest line's balance is the wallet's"
    );
    // Each line's balance is the older line's plus what it posted; oldest, the deposit.
    for pair in entries.windows(2) {
        let (newer, older) = (&pair[0], &pair[1]);
        assert!(newer["created_at"].as_str() >= older["created_at"].as_str(), "newest first: {pair:?}");
        let amount = newer["amount"].as_i64().unwrap();
        let posted = match newer["kind"].as_str().unwrap() {
            "posted" | "post_pending" if newer["side"] == "debit" => -amount,
            "posted" | "post_pending" => amount,
            _ => 0,
        };
        assert_eq!(
            newer["balance_after"].as_i64().unwrap() - older["balance_after"].as_i64().unwrap(),
            posted,
            "{pair:?}"
        );
    }
    let oldest = entries.last().unwrap();
    assert_eq!(
        (oldest["side"].as_str(), oldest["balance_after"].as_i64()),
        (Some("credit"), Some(5_000)),
        "{oldest}"
    );
    assert!(entries.iter().any(|e| e["kind"] == "pending"), "the hold is a line: {entries:?}");

    // Page by page (two at a time), the same lines in the same order.
    let mut paged = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let cursor = after.as_ref().map(|a| format!("&after={a}")).unwrap_or_default();
        let page =
            gw.call("GET", &format!("/v1/me/wallet/entries?limit=2{cursor}"), Some(&bo.token), None).await;
        assert_eq!(page.status, 200, "{}", page.body);
        paged.extend(page.body["items"].as_array().unwrap().iter().cloned());
        match page.body["next"].as_str() {
            Some(next) => after = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(paged, entries);
    // Days outside, or of the wrong form, as the statement's.
    let quiet =
        gw.call("GET", "/v1/me/wallet/entries?from=2020-01-01&to=2020-01-31", Some(&bo.token), None).await;
    assert_eq!(quiet.body["items"], json!([]), "{}", quiet.body);
    for (query, code) in [("from=2026-03-02&to=2026-03-01", "invalid_window"), ("after=x", "invalid_cursor")]
    {
        let refused = gw.call("GET", &format!("/v1/me/wallet/entries?{query}"), Some(&bo.token), None).await;
        assert_eq!(refused.body["code"], code, "{query}: {}", refused.body);
    }
}
