//! The places where the rules' text reads two ways and the math depends on the reading: the
//! reading implemented, and every reading's house edge, computed.

use super::*;

/// One place where the rules' text reads two ways: the reading implemented and why, and every
/// reading's figure, flagged where the player would have the edge.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = CrapsAmbiguity))]
pub struct Ambiguity {
    pub rule: String,
    pub question: String,
    pub implemented: String,
    pub readings: Vec<Reading>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = CrapsReading))]
pub struct Reading {
    pub reading: String,
    pub house_edge: Exact,
    pub player_has_the_edge: bool,
}

fn reading(name: &str, edge: &Q) -> Reading {
    Reading { reading: name.to_owned(), house_edge: edge.into(), player_has_the_edge: edge.is_negative() }
}

/// The text's ambiguities that change the math, each with every reading computed.
pub fn ambiguities() -> Vec<Ambiguity> {
    vec![hot_shooter_counting(), whole_dollar_commissions(), power_odds_lighting()]
}

fn ambiguity(rule: &str, question: &str, implemented: &str, readings: Vec<Reading>) -> Ambiguity {
    Ambiguity {
        rule: rule.to_owned(),
        question: question.to_owned(),
        implemented: implemented.to_owned(),
        readings,
    }
}

/// 44(c)(46): how the hot shooter pays, and which rolls it counts.
fn hot_shooter_counting() -> Ambiguity {
    let hot = |count, for_one| hot_shooter(count, for_one).edge();
    let eighth = seven_out_on_roll(8).get(7).map(Exact::from);
    let eighth = eighth.map_or_else(String::new, |e| {
        format!("{}/{} ({:.4}%)", e.numerator, e.denominator, e.decimal * 100.0)
    });
    ambiguity(
        "K.A.R. 111-501-44(c)(46)",
        &format!(
            "The hot shooter pays \"one times the wager\" ... \"one-hundred times the wager\": n to 1, or n for 1 (the \
         wager returned in all)? And are its rolls those \"made prior to a seven out\", or the seven-out's own too? \
         The two readings part on a seven-out on exactly the eighth roll (seven rolls before it): neither the win \
         sentence (eight rolls without a seven-out) nor the lose sentence (a seven-out in seven or fewer) covers it. \
         Read before the seven-out it loses; counted with it, it pays (A). A shooter sevens out on exactly the \
         eighth roll with chance {eighth}."
        ),
        "n for 1, counting the rolls before the seven-out: the wager wins when eight rolls pass without a seven-out \
         (\"the next roll and ... at least seven more rolls thereafter\"). Read as n to 1 the wager gives the player the \
         edge however the rolls are counted, so it could not be offered.",
        vec![
            reading(
                "n for 1, rolls before the seven-out (implemented)",
                &hot(HotShooterCount::BeforeTheSevenOut, true),
            ),
            reading("n for 1, the seven-out's roll counted", &hot(HotShooterCount::WithTheSevenOut, true)),
            reading("n to 1, rolls before the seven-out", &hot(HotShooterCount::BeforeTheSevenOut, false)),
            reading("n to 1, the seven-out's roll counted", &hot(HotShooterCount::WithTheSevenOut, false)),
        ],
    )
}

/// 45(m): which commissions are rounded down to whole dollars.
fn whole_dollar_commissions() -> Ambiguity {
    let buy25 = |c: i64| buy(4, 2_500, c).edge();
    ambiguity(
        "K.A.R. 111-501-45(m)",
        "Commissions \"less than one dollar amounts ... rounded down to the nearest dollar\": every commission to whole \
         dollars, or only a charge under $1 dropped?",
        "Every commission rounded down to whole dollars ($1.25 is $1; $0.95 is nothing): buys under $20 and lays to win \
         under $20 pay none and are fair bets, with no edge either way.",
        vec![
            reading("a $25 buy on the 4, $1 commission (implemented)", &buy25(commission(2_500))),
            reading("a $25 buy on the 4, $1.25 commission", &buy25(commission_other_reading(2_500))),
            reading("a $19 buy on the 4, no commission (both readings)", &buy(4, 1_900, 0).edge()),
        ],
    )
}

/// 44(c)(47): what power odds pay when lit, and how often they light.
fn power_odds_lighting() -> Ambiguity {
    // Read literally, "craps pays ten to one" would pay a lit 2 bet 10 to 1 instead of 30.
    let two_at_ten = Q::one() - q(1, 36) * q(11, 1);
    ambiguity(
        "K.A.R. 111-501-44(c)(47)",
        "Power odds pay \"any craps or craps\" ten (fourteen) to one: are the 2 and 12 bets (30 to 1) and the 3 (15 to 1) \
         paid less when lit? And how often do power odds light?",
        "Power odds never lower a payout: a lit wager is paid the higher of its odds. They light on a house-set share of \
         rolls (LOTTO_CRAPS_POWER_ODDS_PER_THOUSAND), drawn by the CSPRNG after the bets are made; the share at which \
         each wager turns in the player's favour is published beside it.",
        vec![
            reading(
                "the 2 bet when lit, table one, the higher odds (implemented)",
                &one_roll(Bet::Two, Some(PowerTable::One)).edge(),
            ),
            reading("the 2 bet when lit, table one, ten to one", &two_at_ten),
        ],
    )
}
