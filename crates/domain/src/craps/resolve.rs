//! One roll of a craps session: every working bet it decides, decided at once (44(c)(1)-(46)),
//! the come bets moved to their numbers, the odds decided with their bets, the puck and the
//! shooter moved on.

use super::session::{Outcome, Placed, Result, RollReport, Session, is_odds};
use super::{
    Bet, Odds, PowerTable, Roll, bonus_odds, bonus_totals, hardway_win_odds, hot_shooter_multiple, is_point,
    lay_odds, place_odds, true_odds, unit_odds,
};

impl Session {
    // Long by design (issue 33 §5): one arm per wager, each resolved on a roll as 111-501-45
    // says, side by side so each can be read against its rule.
    /// Throws `roll`: decides every working bet it decides, moves come bets to their numbers,
    /// moves the puck and the shooter on. `power` is whether power odds are lit for this roll.
    pub fn roll(&mut self, roll: Roll, power: bool) -> RollReport {
        let total = roll.total();
        let point_before = self.point;
        let seven_out = point_before.is_some() && total == 7;
        let power_table = if power { self.rules.power_odds.map(|p| p.table) } else { None };
        let mut outcomes = Vec::with_capacity(self.bets.len());
        // At most one come and one don't come bet travel on a roll.
        let mut travelled: [Option<Placed>; 2] = [None, None];
        // The bets this roll decides that odds may sit behind, for their odds' sake.
        let mut decided_bases = 0u32;
        let working = |placed: &Placed| Session::works_at(point_before, placed);
        self.bets.retain_mut(|placed| {
            if is_odds(placed.bet) {
                return true;
            }
            let decision = if working(placed) {
                Session::decide(placed, roll, point_before, seven_out, power_table)
            } else {
                None
            };
            match decision {
                Some(Decision::Resolved(result, odds)) => {
                    decided_bases |= base_bit(placed.bet);
                    outcomes.push(outcome(*placed, result, odds));
                    false
                }
                Some(Decision::Paid(result, returned)) => {
                    outcomes.push(Outcome {
                        bet: placed.bet,
                        amount_cents: placed.amount_cents,
                        result,
                        returned_cents: returned,
                    });
                    false
                }
                Some(Decision::Travel(number)) => {
                    let (to, slot) = if placed.bet == Bet::Come {
                        (Bet::ComePoint { number }, 0)
                    } else {
                        (Bet::DontComePoint { number }, 1)
                    };
                    outcomes.push(Outcome {
                        bet: placed.bet,
                        amount_cents: placed.amount_cents,
                        result: Result::Moved,
                        returned_cents: 0,
                    });
                    if let Some(t) = travelled.get_mut(slot) {
                        *t = Some(Placed { bet: to, ..*placed });
                    }
                    false
                }
                None => true,
            }
        });
        // The odds: decided with their bet when working; returned when their bet is decided
        // while they are off.
        self.bets.retain(|placed| {
            if !is_odds(placed.bet) {
                return true;
            }
            let (base, number) = match placed.bet {
                Bet::PassOdds => (Bet::Pass, point_before.unwrap_or(0)),
                Bet::DontPassOdds => (Bet::DontPass, point_before.unwrap_or(0)),
                Bet::ComeOdds { number } => (Bet::ComePoint { number }, number),
                Bet::DontComeOdds { number } => (Bet::DontComePoint { number }, number),
                Bet::PutOdds { number } => (Bet::Put { number }, number),
                _ => (placed.bet, 0),
            };
            let lay = matches!(placed.bet, Bet::DontPassOdds | Bet::DontComeOdds { .. });
            let result = if decided_bases & base_bit(base) == 0 {
                return true;
            } else if !working(placed) {
                (Result::Push, None)
            } else if (total == number) != lay {
                (Result::Won, Some(if lay { lay_odds(number) } else { true_odds(number) }))
            } else {
                (Result::Lost, None)
            };
            outcomes.push(outcome(*placed, result.0, result.1));
            false
        });
        for moved in travelled.into_iter().flatten() {
            self.put(moved);
        }
        self.shooter_rolls = self.shooter_rolls.saturating_add(1);
        self.point = match point_before {
            None if is_point(total) => {
                self.shooter_has_point = true;
                Some(total)
            }
            Some(p) if total == p || total == 7 => {
                self.dont_locked = false;
                None
            }
            other => other,
        };
        if seven_out {
            self.shooter_rolls = 0;
            self.shooter_has_point = false;
        }
        RollReport {
            roll,
            total,
            point_before,
            point_after: self.point,
            power_odds: power_table.is_some(),
            seven_out,
            outcomes,
        }
    }

    // Long by design (issue 33 §5): one arm per wager, each decided as 111-501-45 says, side by
    // side so each can be read against its rule.
    /// What `roll` does to one working bet (not odds).
    fn decide(
        placed: &mut Placed,
        roll: Roll,
        point: Option<u8>,
        seven_out: bool,
        power: Option<PowerTable>,
    ) -> Option<Decision> {
        use Decision::{Resolved, Travel};
        let total = roll.total();
        let even = Some(Odds { to_win: 1, to: 1 });
        let win = |odds: Odds| Some(Resolved(Result::Won, Some(odds)));
        let lose = Some(Resolved(Result::Lost, None));
        match placed.bet {
            Bet::Pass => match (point, total) {
                (None, 7 | 11) => Some(Resolved(Result::Won, even)),
                (None, 2 | 3 | 12) => lose,
                (Some(p), t) if t == p => Some(Resolved(Result::Won, even)),
                (Some(_), 7) => lose,
                _ => None,
            },
            Bet::DontPass => match (point, total) {
                (None, 2 | 3) | (Some(_), 7) => Some(Resolved(Result::Won, even)),
                (None, 12) => Some(Resolved(Result::Push, None)),
                (None, 7 | 11) => lose,
                (Some(p), t) if t == p => lose,
                _ => None,
            },
            Bet::Come => match total {
                7 | 11 => Some(Resolved(Result::Won, even)),
                2 | 3 | 12 => lose,
                n => Some(Travel(n)),
            },
            Bet::DontCome => match total {
                2 | 3 => Some(Resolved(Result::Won, even)),
                12 => Some(Resolved(Result::Push, None)),
                7 | 11 => lose,
                n => Some(Travel(n)),
            },
            Bet::Big6 | Bet::Big8 => {
                let number = if placed.bet == Bet::Big6 { 6 } else { 8 };
                match total {
                    7 => lose,
                    t if t == number => Some(Resolved(Result::Won, even)),
                    _ => None,
                }
            }
            Bet::ComePoint { number } | Bet::Put { number } | Bet::Place { number } | Bet::Buy { number } => {
                let odds = match placed.bet {
                    Bet::Place { .. } => place_odds(number),
                    Bet::Buy { .. } => true_odds(number),
                    _ => Odds { to_win: 1, to: 1 },
                };
                match total {
                    7 => lose,
                    t if t == number => win(odds),
                    _ => None,
                }
            }
            Bet::DontComePoint { number } => match total {
                7 => Some(Resolved(Result::Won, even)),
                t if t == number => lose,
                _ => None,
            },
            Bet::Lay { number } => match total {
                7 => win(lay_odds(number)),
                t if t == number => lose,
                _ => None,
            },
            Bet::Hardway { number } => match total {
                7 => lose,
                t if t == number && roll.is_pair() => win(hardway_win_odds(number, power)),
                t if t == number => lose,
                _ => None,
            },
            Bet::AllSmall | Bet::AllTall | Bet::MakeEmAll => {
                if total == 7 {
                    return lose;
                }
                let needed = bonus_totals(placed.bet);
                placed.progress |= needed & (1 << total);
                (placed.progress == needed).then(|| Resolved(Result::Won, Some(bonus_odds(placed.bet))))
            }
            Bet::HotShooter => {
                placed.rolls = placed.rolls.saturating_add(1);
                if seven_out {
                    // "The number of rolls made prior to a seven out": the seven-out's own roll
                    // is not counted; n times the wager is returned in all (n for 1).
                    return Some(match hot_shooter_multiple(placed.rolls.saturating_sub(1)) {
                        Some(n) => Resolved(Result::Won, Some(Odds { to_win: n.saturating_sub(1), to: 1 })),
                        None => Resolved(Result::Lost, None),
                    });
                }
                // Fifty rolls without a seven-out: the top prize is certain, so it is paid now.
                (placed.rolls >= 50).then_some(Resolved(Result::Won, Some(Odds { to_win: 99, to: 1 })))
            }
            one_roll => {
                let units = one_roll.units();
                let count = units.count();
                let per_unit = placed.amount_cents.checked_div(i64::from(count.max(1))).unwrap_or(0);
                let returned = units
                    .iter()
                    .filter_map(|&(n, unit)| {
                        let odds = unit_odds(one_roll, unit, roll, power)?;
                        let stake = per_unit.saturating_mul(i64::from(n));
                        Some(stake.saturating_add(odds.winnings(stake)))
                    })
                    .fold(0i64, i64::saturating_add);
                Some(Decision::Paid(if returned > 0 { Result::Won } else { Result::Lost }, returned))
            }
        }
    }
}

/// A bit for each bet odds can sit behind (the pass, the don't pass, and a come, don't come or
/// put bet on each number), so a roll can note which it decided without allocating.
fn base_bit(bet: Bet) -> u32 {
    let on = |number: u8, first: u32| {
        super::POINTS
            .iter()
            .position(|&n| n == number)
            .map_or(0, |i| 1u32 << first.saturating_add(u32::try_from(i).unwrap_or(0)))
    };
    match bet {
        Bet::Pass => 1,
        Bet::DontPass => 2,
        Bet::ComePoint { number } => on(number, 2),
        Bet::DontComePoint { number } => on(number, 8),
        Bet::Put { number } => on(number, 14),
        _ => 0,
    }
}

/// What a roll does to a bet, before it is written as an [`Outcome`].
enum Decision {
    Resolved(Result, Option<Odds>),
    /// A one-roll bet's result with what it returns (its units paid apart).
    Paid(Result, i64),
    Travel(u8),
}

fn outcome(placed: Placed, result: Result, odds: Option<Odds>) -> Outcome {
    let stake = placed.amount_cents;
    let returned = match result {
        Result::Won => stake.saturating_add(odds.map_or(0, |o| o.winnings(stake))),
        Result::Push => stake,
        Result::Lost | Result::Moved => 0,
    };
    Outcome { bet: placed.bet, amount_cents: stake, result, returned_cents: returned }
}
