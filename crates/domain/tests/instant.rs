//! The instant and pull-tab game definitions in `games/instant/`, loaded and checked against the
//! figures their rules print, and malformed definitions refused.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use domain::instant::{DefinitionError, GameDefinition, Report};
use serde_json::{Value, json};

fn text(file: &str) -> String {
    std::fs::read_to_string(format!("{}/../../games/instant/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn load(file: &str) -> (GameDefinition, Report) {
    GameDefinition::load(&text(file)).unwrap()
}

#[test]
fn the_pull_tab_games_add_up_to_what_their_rules_print() {
    // (file, number, winners, prize cost in cents, odds "one in", pools) as K.A.R. 111-9-226..228
    // print them in subsections (i) and (j).
    let games = [
        ("283-hit-10.json", 283, 562_561, 148_788_000, 4.27, 8),
        ("284-hit-20.json", 284, 490_594, 234_008_000, 3.67, 6),
        ("282-liquid-gold.json", 282, 499_176, 234_000_000, 3.61, 6),
    ];
    for (file, number, winners, cost, odds, pools) in games {
        let (game, report) = load(file);
        assert_eq!(game.number, number);
        assert_eq!((report.winners, report.prize_cost_cents, report.pools), (winners, cost, pools), "{file}");
        assert!((report.odds_one_in - odds).abs() < 0.005, "{file}: {}", report.odds_one_in);
        assert_eq!(report.source_notes.len(), 2, "the header and loyalty-row notes travel with the game");
        assert!(
            report.mismatches.iter().all(|m| m.what.ends_with("per pool")),
            "{file}: {:?}",
            report.mismatches
        );
    }
}

#[test]
fn top_prizes_that_do_not_divide_into_pools_are_reported() {
    // Hit $10: 25 prizes of $1,000 over 8 pools of 300,000 cannot be "the same number per pool".
    let (_, report) = load("283-hit-10.json");
    let whats: Vec<&str> = report.mismatches.iter().map(|m| m.what.as_str()).collect();
    assert_eq!(whats, ["winners of $1000.00 per pool"]);
    assert!(report.mismatches[0].assumed.contains("as evenly as whole numbers allow"));
    let (_, report) = load("284-hit-20.json");
    let whats: Vec<&str> = report.mismatches.iter().map(|m| m.what.as_str()).collect();
    assert_eq!(whats, ["winners of $2000.00 per pool"]);
    let (_, report) = load("282-liquid-gold.json");
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
}

#[test]
fn printed_figures_that_disagree_are_reported_not_refused() {
    let mut game: Value = serde_json::from_str(&text("283-hit-10.json")).unwrap();
    game["stated"]["winners"] = json!(562_000);
    game["stated"]["odds_one_in"] = json!(4.5);
    game["prizes"][0]["stated_cost_cents"] = json!(1);
    let (_, report) = GameDefinition::load(&game.to_string()).unwrap();
    let whats: Vec<&str> = report.mismatches.iter().map(|m| m.what.as_str()).collect();
    assert!(whats.contains(&"total winners"), "{whats:?}");
    assert!(whats.contains(&"overall odds"), "{whats:?}");
    assert!(whats.iter().any(|w| w.starts_with("prize cost of $1.00")), "{whats:?}");
    assert_eq!(report.winners, 562_561, "the rows are what counts");
}

/// A change made to a good definition.
type Edit = Box<dyn Fn(&mut Value)>;

#[test]
fn a_malformed_definition_is_refused_with_a_clear_error() {
    let base: Value = serde_json::from_str(&text("283-hit-10.json")).unwrap();
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|g| g["price_cents"] = json!(0)), "price"),
        (Box::new(|g| g["prizes"][3]["composition"] = json!([500, 400])), "adds up to"),
        (Box::new(|g| g["prizes"][2]["composition"] = json!([300, 700])), "no legend line pays"),
        (Box::new(|g| g["prizes"][0]["count"] = json!(0)), "no winners"),
        (Box::new(|g| g["max_wins"] = json!(2)), "wins at most 2"),
        (Box::new(|g| g["symbols"][1]["name"] = json!("stack of cash")), "appears twice"),
        (Box::new(|g| g["legend"][0]["symbol"] = json!("unicorn")), "unknown symbol"),
        (Box::new(|g| g["tickets_ordered"] = json!(2_400_001)), "whole pools"),
        (Box::new(|g| g["ticket_numbers"]["last"] = json!(298)), "whole books"),
        (Box::new(|g| g["prizes"] = json!([])), "no prizes"),
    ];
    for (edit, expected) in cases {
        let mut game = base.clone();
        edit(&mut game);
        match GameDefinition::load(&game.to_string()) {
            Err(DefinitionError::Invalid(message)) => assert!(message.contains(expected), "{message}"),
            other => panic!("expected a refusal mentioning {expected:?}, got {other:?}"),
        }
    }
    for broken in ["{", "{}", &base.to_string().replace("\"rule\"", "\"rules\"")] {
        assert!(matches!(GameDefinition::load(broken), Err(DefinitionError::Malformed(_))), "{broken:.40}");
    }
}
