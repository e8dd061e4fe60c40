//! A player's unfinished rounds and sessions, every table game together (issue 32 §2): what the
//! page shows a player who comes back.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;
use common::Casino;
use serde_json::{Value, json};

async fn in_play(casino: &Casino, token: &str) -> Value {
    let listed = casino.call("GET", "/v1/tables/in-play", Some(token), None, None).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    listed.body
}

#[tokio::test]
async fn every_unfinished_round_and_session_is_listed_for_its_player_only_until_it_ends() {
    let casino = Casino::new().await;
    let (token, _) = casino.player(100_000).await;
    let (stranger, _) = casino.player(1_000).await;
    assert_eq!(in_play(&casino, &token).await, json!({"blackjack": [], "i_luv_suits": [], "craps": []}));

    // I Luv Suits: dealt and deciding until folded.
    let dealt = casino
        .call("POST", "/v1/i-luv-suits/rounds", Some(&token), Some("i1"), Some(json!({"ante_cents": 500})))
        .await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.body);
    let round = dealt.body["id"].clone();
    // Craps: a pass bet on the layout.
    let opened = casino.call("POST", "/v1/craps/sessions", Some(&token), None, Some(json!({}))).await;
    let session = opened.body["id"].as_str().unwrap().to_owned();
    let bet = json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}]});
    let placed = casino
        .call("POST", &format!("/v1/craps/sessions/{session}/bets"), Some(&token), Some("c1"), Some(bet))
        .await;
    assert_eq!(placed.status, StatusCode::CREATED, "{}", placed.body);
    // Blackjack: a table and a round, in play unless the deal settled it.
    let table =
        casino.call("POST", "/v1/blackjack/tables", Some(&token), None, Some(json!({"decks": 6}))).await;
    let table_id = table.body["id"].clone();
    let mut bj = Value::Null;
    for key in 0..20 {
        let path = format!("/v1/blackjack/tables/{}/rounds", table_id.as_str().unwrap());
        let spots = json!({"spots": [{"wager": 500}]});
        bj = casino.call("POST", &path, Some(&token), Some(&format!("b{key}")), Some(spots)).await.body;
        if bj["state"] == "playing" {
            break;
        }
    }
    assert_eq!(bj["state"], "playing", "{bj}");

    let listed = in_play(&casino, &token).await;
    assert_eq!(listed["i_luv_suits"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["i_luv_suits"][0]["id"], round);
    assert_eq!(listed["i_luv_suits"][0]["state"], "deciding");
    assert_eq!(listed["craps"][0]["id"], session.as_str());
    assert_eq!(listed["blackjack"][0]["round"]["id"], bj["id"]);
    assert_eq!(
        (listed["blackjack"][0]["table_id"].clone(), listed["blackjack"][0]["decks"].clone()),
        (table_id, json!(6))
    );
    assert_eq!(in_play(&casino, &stranger).await, json!({"blackjack": [], "i_luv_suits": [], "craps": []}));

    // Finished, they are listed no more.
    let folded = casino
        .call(
            "POST",
            &format!("/v1/i-luv-suits/rounds/{}/decision", round.as_str().unwrap()),
            Some(&token),
            None,
            Some(json!({"decision": "fold"})),
        )
        .await;
    assert_eq!(folded.body["state"], "settled", "{}", folded.body);
    let mut round = bj;
    for _ in 0..10 {
        if round["state"] != "playing" {
            break;
        }
        let action = if round["round"]["phase"] == "insurance" {
            json!({"action": "decline_insurance", "spot": 0, "step": round["step"]})
        } else {
            json!({"action": "stand", "step": round["step"]})
        };
        let path = format!("/v1/blackjack/rounds/{}/actions", round["id"].as_str().unwrap());
        round = casino.call("POST", &path, Some(&token), None, Some(action)).await.body;
    }
    assert_eq!(round["state"], "settled", "{round}");
    let listed = in_play(&casino, &token).await;
    assert_eq!(
        (listed["blackjack"].clone(), listed["i_luv_suits"].clone()),
        (json!([]), json!([])),
        "{listed}"
    );
    assert_eq!(listed["craps"].as_array().unwrap().len(), 1, "the pass bet is still on the layout");
    casino.assert_books_balance().await;
}
