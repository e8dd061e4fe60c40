//! The wire names of the decisions that stake more, as the gateway reads them from a request's
//! body before it reaches a game (issue 47 §2): each name is in the list exactly when its
//! decision stakes more.

use domain::blackjack::round::{Action, STAKING_ACTIONS};
use domain::i_luv_suits::round::{Choice, STAKING_DECISIONS};

fn wire_name(value: &serde_json::Value, tag: &str) -> String {
    value[tag].as_str().unwrap_or_default().to_owned()
}

#[test]
fn the_blackjack_staking_names_are_the_decisions_that_stake() {
    let every = [
        Action::Hit,
        Action::Stand,
        Action::Double { amount: None },
        Action::Split,
        Action::Insurance { spot: 0, amount: 100 },
        Action::DeclineInsurance { spot: 0 },
        Action::EvenMoney { spot: 0 },
    ];
    for action in every {
        let name = wire_name(&serde_json::to_value(action).unwrap_or_default(), "action");
        assert_eq!(STAKING_ACTIONS.contains(&name.as_str()), action.stakes_more(), "{name}");
    }
}

#[test]
fn the_i_luv_suits_staking_names_are_the_choices_that_stake() {
    for (choice, stakes) in [(Choice::Fold, false), (Choice::Play { play_cents: 500 }, true)] {
        let name = wire_name(&serde_json::to_value(choice).unwrap_or_default(), "decision");
        assert_eq!(STAKING_DECISIONS.contains(&name.as_str()), stakes, "{name}");
    }
}
