//! What each area of the layout pays, in a player's words (issue 47 §6), from the same pay
//! tables the rolls are settled on ([`super::unit_odds`], [`super::place_odds`], ...), without
//! power odds (which light only for a roll and say so when they do).

use super::{Bet, Odds, Roll, Unit, bonus_odds, hardway_odds, lay_odds, place_odds, true_odds, unit_odds};

/// Every bet a player places by pressing an area of the layout (odds go behind a line, come or
/// put bet and are offered beside it).
pub fn layout() -> Vec<Bet> {
    let mut bets = vec![Bet::Pass, Bet::DontPass, Bet::Come, Bet::DontCome, Bet::Field, Bet::Big6, Bet::Big8];
    for number in [4, 5, 6, 8, 9, 10] {
        bets.extend([Bet::Place { number }, Bet::Buy { number }, Bet::Lay { number }, Bet::Put { number }]);
    }
    bets.extend([4, 6, 8, 10].map(|number| Bet::Hardway { number }));
    bets.extend([
        Bet::AnySeven,
        Bet::AnyCraps,
        Bet::Two,
        Bet::Three,
        Bet::Eleven,
        Bet::Twelve,
        Bet::Horn,
        Bet::World,
        Bet::ThreeWayCraps,
        Bet::CAndE,
        Bet::HighLow,
        Bet::AceDeuceAnyCraps,
        Bet::AllSmall,
        Bet::AllTall,
        Bet::MakeEmAll,
        Bet::HotShooter,
    ]);
    bets.extend([2, 3, 11, 12].map(|number| Bet::HornHigh { number }));
    bets
}

fn words(o: Odds) -> String {
    format!("{} to {}", o.to_win, o.to)
}

/// What `bet` pays when it wins, as a player reads it on the layout.
pub fn pays(bet: Bet) -> String {
    match bet {
        Bet::Pass | Bet::Come => "1 to 1 (7 or 11 on its first roll; then its point before a 7)".to_owned(),
        Bet::DontPass | Bet::DontCome => {
            "1 to 1 (2 or 3 on its first roll, 12 a push; then a 7 before its point)".to_owned()
        }
        Bet::Put { .. } | Bet::ComePoint { .. } => "1 to 1 (its number before a 7)".to_owned(),
        Bet::DontComePoint { .. } => "1 to 1 (a 7 before its number)".to_owned(),
        Bet::Big6 | Bet::Big8 => "1 to 1 (its number before a 7)".to_owned(),
        Bet::Place { number } => format!("{} (a {number} before a 7)", words(place_odds(number))),
        Bet::Buy { number } => {
            format!("{} (a {number} before a 7), 5% commission on the win", words(true_odds(number)))
        }
        Bet::Lay { number } => {
            format!("{} (a 7 before a {number}), 5% commission on the win", words(lay_odds(number)))
        }
        Bet::PassOdds | Bet::ComeOdds { .. } | Bet::PutOdds { .. } => {
            "true odds: 2 to 1 on 4 and 10, 3 to 2 on 5 and 9, 6 to 5 on 6 and 8".to_owned()
        }
        Bet::DontPassOdds | Bet::DontComeOdds { .. } => {
            "true odds laid: 1 to 2 on 4 and 10, 2 to 3 on 5 and 9, 5 to 6 on 6 and 8".to_owned()
        }
        Bet::Hardway { number } => {
            format!(
                "{} (a {} + {} before a 7 or an easy {number})",
                words(hardway_odds(number)),
                number / 2,
                number / 2
            )
        }
        Bet::AllSmall | Bet::AllTall | Bet::MakeEmAll => {
            format!("{} (every total it names before a 7)", words(bonus_odds(bet)))
        }
        Bet::HotShooter => {
            "1, 3, 5, 7, 12, 30 or 100 for 1 by the rolls before the seven-out (8 or more)".to_owned()
        }
        _ => one_roll(bet),
    }
}

/// A one-roll wager: each unit's odds on the totals it wins on, the wager split evenly over
/// its units.
fn one_roll(bet: Bet) -> String {
    let units: Vec<(u32, Unit)> = bet.units().iter().copied().collect();
    let on_totals = |unit: Unit| -> Vec<(u8, Odds)> {
        let mut seen: Vec<(u8, Odds)> = Vec::new();
        for roll in Roll::all() {
            if let Some(odds) = unit_odds(bet, unit, roll, None)
                && !seen.iter().any(|(t, _)| *t == roll.total())
            {
                seen.push((roll.total(), odds));
            }
        }
        seen.sort_by_key(|(t, _)| *t);
        seen
    };
    let describe = |unit: Unit| -> String {
        let totals = on_totals(unit);
        let mut groups: Vec<(Odds, Vec<u8>)> = Vec::new();
        for (total, odds) in totals {
            match groups.iter_mut().find(|(o, _)| *o == odds) {
                Some((_, list)) => list.push(total),
                None => groups.push((odds, vec![total])),
            }
        }
        let unit_name = match unit {
            Unit::Hop(dice) => format!("{} + {} ", dice[0], dice[1]),
            _ => String::new(),
        };
        groups
            .iter()
            .map(|(odds, totals)| {
                let list = totals.iter().map(u8::to_string).collect::<Vec<_>>().join(", ");
                format!("{unit_name}{} on {list}", words(*odds))
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    match units.as_slice() {
        [(_, unit)] => format!("{} (one roll)", describe(*unit)),
        _ => {
            let count: u32 = units.iter().map(|(n, _)| n).sum();
            let parts: Vec<String> = units
                .iter()
                .map(
                    |(n, unit)| {
                        if *n > 1 { format!("{n} units: {}", describe(*unit)) } else { describe(*unit) }
                    },
                )
                .collect();
            format!("split in {count} units, each paid alone: {} (one roll)", parts.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_area_says_what_it_pays_from_the_pay_tables() {
        assert_eq!(pays(Bet::Field), "2 to 1 on 2, 12; 1 to 1 on 3, 4, 9, 10, 11 (one roll)");
        assert_eq!(pays(Bet::AnySeven), "4 to 1 on 7 (one roll)");
        assert_eq!(pays(Bet::AnyCraps), "7 to 1 on 2, 3, 12 (one roll)");
        assert_eq!(pays(Bet::Place { number: 6 }), "7 to 6 (a 6 before a 7)");
        assert_eq!(pays(Bet::Hardway { number: 8 }), "9 to 1 (a 4 + 4 before a 7 or an easy 8)");
        assert_eq!(
            pays(Bet::Horn),
            "split in 4 units, each paid alone: 30 to 1 on 2; 15 to 1 on 3; 15 to 1 on 11; 30 to 1 on 12 (one roll)"
        );
        assert!(pays(Bet::HornHigh { number: 12 }).contains("2 units: 30 to 1 on 12"));
        for bet in layout() {
            assert!(!pays(bet).is_empty() && !pays(bet).contains("45("), "{bet:?}: {}", pays(bet));
        }
    }
}
