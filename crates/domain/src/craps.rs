//! Craps (K.A.R. 111-501-44, -45): the dice, every permissible wager of 44(c) with its pay odds
//! (45(k), (r), (s)-(v), 44(c)(46), (47)), and what each roll does to each wager.
//!
//! [`session`] plays a table session (a shooter's rolls with bets working across them, the
//! making, working and removal rules of -45); [`math`] computes every wager's house edge exactly
//! from these same pay tables.

pub mod math;
pub mod pays;
mod resolve;
pub mod session;

use rand::Rng;
use serde::{Deserialize, Serialize};

/// One throw of the two dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Roll {
    pub die1: u8,
    pub die2: u8,
}

impl Roll {
    /// Two fair dice from `rng` (the service's is a CSPRNG).
    pub fn random(rng: &mut impl Rng) -> Roll {
        Roll { die1: rng.random_range(1..=6), die2: rng.random_range(1..=6) }
    }

    pub fn total(self) -> u8 {
        self.die1.saturating_add(self.die2)
    }

    /// Both dice alike: a hardway (44(c)(18)-(21)) or a hop pair.
    pub fn is_pair(self) -> bool {
        self.die1 == self.die2
    }

    /// The 36 equally likely throws.
    pub fn all() -> impl Iterator<Item = Roll> {
        (1..=6u8).flat_map(|die1| (1..=6u8).map(move |die2| Roll { die1, die2 }))
    }

    /// The throw as an unordered pair, smaller die first (a hop bet names one).
    pub fn pair(self) -> [u8; 2] {
        [self.die1.min(self.die2), self.die1.max(self.die2)]
    }
}

/// How many of the 36 throws make `total`.
pub fn ways(total: u8) -> u32 {
    match total {
        2..=7 => u32::from(total).saturating_sub(1),
        8..=12 => 13u32.saturating_sub(u32::from(total)),
        _ => 0,
    }
}

/// The box numbers: a point, and what come, put, place, buy and lay bets are on.
pub const POINTS: [u8; 6] = [4, 5, 6, 8, 9, 10];

pub fn is_point(total: u8) -> bool {
    POINTS.contains(&total)
}

/// Payout odds "n to d": a winning wager of `d` is paid `n` and keeps its stake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Odds {
    pub to_win: u32,
    pub to: u32,
}

const fn odds(to_win: u32, to: u32) -> Odds {
    Odds { to_win, to }
}

impl Odds {
    /// The winnings on `amount` cents (callers keep amounts in units of `to`).
    pub fn winnings(self, amount: i64) -> i64 {
        amount.saturating_mul(i64::from(self.to_win)).checked_div(i64::from(self.to)).unwrap_or(0)
    }
}

/// True odds on a number against the 7 (the odds bets of 45(s)-(u), and buy bets' payout): 2 to
/// 1 on 4 and 10, 3 to 2 on 5 and 9, 6 to 5 on 6 and 8 (45(k)).
pub fn true_odds(number: u8) -> Odds {
    match number {
        4 | 10 => odds(2, 1),
        5 | 9 => odds(3, 2),
        _ => odds(6, 5),
    }
}

/// Laying against a number: the true odds the other way, 1 to 2, 2 to 3, 5 to 6 (45(r)).
pub fn lay_odds(number: u8) -> Odds {
    let t = true_odds(number);
    odds(t.to, t.to_win)
}

/// Place bets to win (45(k)): 9 to 5 on 4 and 10, 7 to 5 on 5 and 9, 7 to 6 on 6 and 8.
pub fn place_odds(number: u8) -> Odds {
    match number {
        4 | 10 => odds(9, 5),
        5 | 9 => odds(7, 5),
        _ => odds(7, 6),
    }
}

/// The hardways (45(k)): 7 to 1 on four and ten, 9 to 1 on six and eight.
pub fn hardway_odds(number: u8) -> Odds {
    match number {
        4 | 10 => odds(7, 1),
        _ => odds(9, 1),
    }
}

/// The one-roll propositions a split bet halves (44(c)(23)-(28)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Proposition {
    AnySeven,
    AnyCraps,
    Two,
    Three,
    Twelve,
    Eleven,
}

/// Every permissible wager of 111-501-44(c). Numbers are box numbers (4, 5, 6, 8, 9, 10) except
/// a horn high's extra unit (2, 3, 11 or 12) and a hop's dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "bet")]
pub enum Bet {
    /// (1)-(3)
    Pass,
    /// (4)-(7): the 12 bars (void on the come-out).
    DontPass,
    /// (8)-(10), until its first roll; then a [`Bet::ComePoint`].
    Come,
    /// (11)-(14), until its first roll; then a [`Bet::DontComePoint`].
    DontCome,
    ComePoint {
        number: u8,
    },
    DontComePoint {
        number: u8,
    },
    /// Odds behind the pass line (45(s)), at true odds.
    PassOdds,
    /// Odds laid behind the don't pass (45(u)).
    DontPassOdds,
    ComeOdds {
        number: u8,
    },
    DontComeOdds {
        number: u8,
    },
    /// (42) and 45(t): straight on a number after the come-out, with odds.
    Put {
        number: u8,
    },
    PutOdds {
        number: u8,
    },
    /// (15)
    Place {
        number: u8,
    },
    /// (16): true odds for a commission paid when the bet is made.
    Buy {
        number: u8,
    },
    /// (17), 45(n)-(r): true odds against a number for a commission on the win.
    Lay {
        number: u8,
    },
    /// (18)-(21)
    Hardway {
        number: u8,
    },
    /// (36), (37)
    Big6,
    Big8,
    /// (22)
    Field,
    /// (23)-(28)
    AnySeven,
    AnyCraps,
    Two,
    Three,
    Twelve,
    Eleven,
    /// (29), 45(l): four units, on 2, 3, 11 and 12.
    Horn,
    /// (30): five units, the horn's four and one more on `number`.
    HornHigh {
        number: u8,
    },
    /// (31): five units, on 2, 3, 7, 11 and 12.
    World,
    /// (32): three units, on 2, 3 and 12.
    ThreeWayCraps,
    /// (33)-(35): one combination of the dice.
    Hop {
        dice: [u8; 2],
    },
    /// (38): half on each of two propositions, paid net.
    Split {
        halves: [Proposition; 2],
    },
    /// (39) any craps and eleven.
    CAndE,
    /// (40) two and twelve.
    HighLow,
    /// (41) three and any craps: a three wins both halves.
    AceDeuceAnyCraps,
    /// (43)-(45)
    AllSmall,
    AllTall,
    MakeEmAll,
    /// (46)
    HotShooter,
}

/// A wager the rules cannot make, or a number it cannot be on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BetError {
    #[error("{0}")]
    Invalid(String),
}

impl Bet {
    /// The box number a bet is on, if any.
    pub fn number(self) -> Option<u8> {
        match self {
            Bet::ComePoint { number }
            | Bet::DontComePoint { number }
            | Bet::ComeOdds { number }
            | Bet::DontComeOdds { number }
            | Bet::Put { number }
            | Bet::PutOdds { number }
            | Bet::Place { number }
            | Bet::Buy { number }
            | Bet::Lay { number }
            | Bet::Hardway { number } => Some(number),
            _ => None,
        }
    }

    /// Whether the bet's numbers are ones it can be on.
    pub fn check(self) -> Result<(), BetError> {
        let bad = |what: &str| Err(BetError::Invalid(what.to_owned()));
        match self {
            Bet::Hardway { number } if ![4, 6, 8, 10].contains(&number) => {
                bad("a hardway is on 4, 6, 8 or 10")
            }
            Bet::HornHigh { number } if ![2, 3, 11, 12].contains(&number) => {
                bad("a horn high's extra unit is on 2, 3, 11 or 12")
            }
            Bet::Hop { dice } if !dice.iter().all(|d| (1..=6).contains(d)) => bad("hop dice are 1 to 6"),
            Bet::Split { halves: [a, b] } if a == b => bad("a split bet is on two different propositions"),
            other => match other.number() {
                Some(n) if !is_point(n) => bad("a number bet is on 4, 5, 6, 8, 9 or 10"),
                _ => Ok(()),
            },
        }
    }

    /// A wager decided by the very next roll (its stake never waits beyond it).
    pub fn is_one_roll(self) -> bool {
        matches!(
            self,
            Bet::Field
                | Bet::AnySeven
                | Bet::AnyCraps
                | Bet::Two
                | Bet::Three
                | Bet::Twelve
                | Bet::Eleven
                | Bet::Horn
                | Bet::HornHigh { .. }
                | Bet::World
                | Bet::ThreeWayCraps
                | Bet::Hop { .. }
                | Bet::Split { .. }
                | Bet::CAndE
                | Bet::HighLow
                | Bet::AceDeuceAnyCraps
        )
    }

    /// The one-roll wagers as units on single outcomes: (units, what the unit is on). A wager's
    /// amount divides evenly among its units, and each unit is paid as a wager of its own
    /// (45(l); a split's "net payoff", (38)). Empty for every other wager.
    pub fn units(self) -> Units {
        let p = |prop: Proposition| match prop {
            Proposition::AnySeven => Unit::AnySeven,
            Proposition::AnyCraps => Unit::AnyCraps,
            Proposition::Two => Unit::Total(2),
            Proposition::Three => Unit::Total(3),
            Proposition::Twelve => Unit::Total(12),
            Proposition::Eleven => Unit::Total(11),
        };
        let one = |unit: Unit| Units::of(&[(1, unit)]);
        match self {
            Bet::Field => one(Unit::Field),
            Bet::AnySeven => one(Unit::AnySeven),
            Bet::AnyCraps => one(Unit::AnyCraps),
            Bet::Two => one(Unit::Total(2)),
            Bet::Three => one(Unit::Total(3)),
            Bet::Twelve => one(Unit::Total(12)),
            Bet::Eleven => one(Unit::Total(11)),
            Bet::Horn => Units::of(&[2, 3, 11, 12].map(|t| (1, Unit::Total(t)))),
            Bet::HornHigh { number } => {
                Units::of(&[2, 3, 11, 12].map(|t| (if t == number { 2 } else { 1 }, Unit::Total(t))))
            }
            Bet::World => Units::of(&[
                (1, Unit::Total(2)),
                (1, Unit::Total(3)),
                (1, Unit::AnySeven),
                (1, Unit::Total(11)),
                (1, Unit::Total(12)),
            ]),
            Bet::ThreeWayCraps => Units::of(&[2, 3, 12].map(|t| (1, Unit::Total(t)))),
            Bet::Hop { dice } => one(Unit::Hop([dice[0].min(dice[1]), dice[0].max(dice[1])])),
            Bet::Split { halves: [a, b] } => Units::of(&[(1, p(a)), (1, p(b))]),
            Bet::CAndE => Units::of(&[(1, Unit::AnyCraps), (1, Unit::Total(11))]),
            Bet::HighLow => Units::of(&[(1, Unit::Total(2)), (1, Unit::Total(12))]),
            Bet::AceDeuceAnyCraps => Units::of(&[(1, Unit::Total(3)), (1, Unit::AnyCraps)]),
            _ => Units::of(&[]),
        }
    }
}

/// A one-roll wager's units (at most five, the world's), kept on the stack: a roll reads them
/// for every proposition on the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Units {
    items: [(u32, Unit); 5],
    len: usize,
}

impl Units {
    fn of(units: &[(u32, Unit)]) -> Units {
        let mut items = [(0, Unit::Field); 5];
        for (slot, unit) in items.iter_mut().zip(units) {
            *slot = *unit;
        }
        Units { items, len: units.len().min(5) }
    }

    pub fn iter(&self) -> impl Iterator<Item = &(u32, Unit)> {
        self.items.iter().take(self.len)
    }

    /// How many units the wager is made of (0 for a wager that is not one-roll).
    pub fn count(&self) -> u32 {
        self.iter().map(|(n, _)| n).sum()
    }
}

/// What one unit of a one-roll wager is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    Field,
    AnySeven,
    AnyCraps,
    /// A single total: 2, 3, 11 or 12.
    Total(u8),
    Hop([u8; 2]),
}

/// Which power odds pay table the house pre-selected (44(c)(47)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum PowerTable {
    One,
    Two,
}

impl PowerTable {
    /// (47)(A), (B) for the wagers it names: any craps and the craps numbers, any seven, eleven,
    /// hop bets, horn units, and the hardways.
    fn odds(self, unit: PowerUnit) -> Odds {
        let one = self == PowerTable::One;
        match unit {
            PowerUnit::Craps => odds(if one { 10 } else { 14 }, 1),
            PowerUnit::AnySeven => odds(if one { 13 } else { 18 }, 2),
            PowerUnit::ElevenOrHopOther => odds(if one { 22 } else { 30 }, 1),
            PowerUnit::TwoTwelveOrHopPair => odds(if one { 46 } else { 62 }, 1),
            PowerUnit::Hard(4 | 10) => odds(if one { 10 } else { 14 }, 1),
            PowerUnit::Hard(_) => odds(if one { 13 } else { 18 }, 1),
        }
    }
}

#[derive(Clone, Copy)]
enum PowerUnit {
    Craps,
    AnySeven,
    ElevenOrHopOther,
    TwoTwelveOrHopPair,
    Hard(u8),
}

/// The odds a winning one-roll unit of `bet` is paid on `roll`; `power` when power odds are lit
/// for this roll. Power odds apply only to the wagers (47) names (not the field, the world, or
/// split bets), and never lower a payout: "any craps or craps pays ten to one" would otherwise
/// cut the 2's and 12's 30 to 1 (the other reading is published in [`math`]).
pub fn unit_odds(bet: Bet, unit: Unit, roll: Roll, power: Option<PowerTable>) -> Option<Odds> {
    let total = roll.total();
    let base = match unit {
        Unit::Field => match total {
            2 | 12 => odds(2, 1),
            3 | 4 | 9 | 10 | 11 => odds(1, 1),
            _ => return None,
        },
        Unit::AnySeven if total == 7 => odds(4, 1),
        Unit::AnyCraps if matches!(total, 2 | 3 | 12) => odds(7, 1),
        Unit::Total(t) if t == total => match t {
            2 | 12 => odds(30, 1),
            7 => odds(4, 1),
            _ => odds(15, 1),
        },
        Unit::Hop(dice) if dice == roll.pair() => {
            if roll.is_pair() {
                odds(30, 1)
            } else {
                odds(15, 1)
            }
        }
        _ => return None,
    };
    let named = matches!(
        bet,
        Bet::AnySeven
            | Bet::AnyCraps
            | Bet::Two
            | Bet::Three
            | Bet::Twelve
            | Bet::Eleven
            | Bet::Horn
            | Bet::HornHigh { .. }
            | Bet::ThreeWayCraps
            | Bet::Hop { .. }
    );
    let powered = match (power, named, unit) {
        (Some(table), true, Unit::AnySeven) => Some(table.odds(PowerUnit::AnySeven)),
        (Some(table), true, Unit::AnyCraps) => Some(table.odds(PowerUnit::Craps)),
        (Some(table), true, Unit::Total(t)) => Some(match (bet, t) {
            (Bet::Horn | Bet::HornHigh { .. }, 2 | 12) => table.odds(PowerUnit::TwoTwelveOrHopPair),
            (Bet::Horn | Bet::HornHigh { .. }, _) | (_, 11) => table.odds(PowerUnit::ElevenOrHopOther),
            _ => table.odds(PowerUnit::Craps),
        }),
        (Some(table), true, Unit::Hop(_)) => Some(if roll.is_pair() {
            table.odds(PowerUnit::TwoTwelveOrHopPair)
        } else {
            table.odds(PowerUnit::ElevenOrHopOther)
        }),
        _ => None,
    };
    Some(match powered {
        Some(p)
            if u64::from(p.to_win).saturating_mul(u64::from(base.to))
                > u64::from(base.to_win).saturating_mul(u64::from(p.to)) =>
        {
            p
        }
        _ => base,
    })
}

/// A hardway's odds on a winning roll, with power odds when lit (47)(A)(6)-(9), (B)(6)-(9).
pub fn hardway_win_odds(number: u8, power: Option<PowerTable>) -> Odds {
    let base = hardway_odds(number);
    match power.map(|t| t.odds(PowerUnit::Hard(number))) {
        Some(p) if p.to_win > base.to_win => p,
        _ => base,
    }
}

/// The totals each bonus wager needs before a 7 (44(c)(43)-(45)), as a bit set of totals.
pub fn bonus_totals(bet: Bet) -> u16 {
    let set = |totals: &[u8]| totals.iter().fold(0u16, |s, &t| s | 1 << t);
    match bet {
        Bet::AllSmall => set(&[2, 3, 4, 5, 6]),
        Bet::AllTall => set(&[8, 9, 10, 11, 12]),
        Bet::MakeEmAll => set(&[2, 3, 4, 5, 6, 8, 9, 10, 11, 12]),
        _ => 0,
    }
}

/// The bonus wagers' odds (45(v)): all small and all tall 34 to 1, make 'em all 175 to 1.
pub fn bonus_odds(bet: Bet) -> Odds {
    if bet == Bet::MakeEmAll { odds(175, 1) } else { odds(34, 1) }
}

/// The hot shooter jackpot's pay table (44(c)(46)(A)-(G)): "n times the wager" by the number of
/// rolls made before the seven-out; below eight it loses. These tables read "pays n times the
/// wager" as n for 1 (what the wager returns in all), so (A) returns the wager: under every other
/// reading the player has the edge (see [`math::hot_shooter`]).
pub fn hot_shooter_multiple(rolls_before_seven_out: u32) -> Option<u32> {
    match rolls_before_seven_out {
        0..=7 => None,
        8..=15 => Some(1),
        16..=23 => Some(3),
        24..=31 => Some(5),
        32..=39 => Some(7),
        40..=44 => Some(12),
        45..=49 => Some(30),
        _ => Some(100),
    }
}

/// The smallest amount a wager may be a multiple of, in cents, so that every payout is whole
/// cents: the odds' "to" times the number of units (a place 6 pays 7 to 6, so six cents at a
/// time). `point` is the number the pass line's or don't pass's odds work on.
pub fn amount_unit(bet: Bet, point: Option<u8>, power: Option<PowerTable>) -> i64 {
    let units = if bet.is_one_roll() { bet.units().count() } else { 1 };
    let to = match (bet, bet.number().or(point)) {
        (Bet::Place { .. }, Some(n)) => place_odds(n).to,
        (Bet::Buy { .. } | Bet::PassOdds | Bet::ComeOdds { .. } | Bet::PutOdds { .. }, Some(n)) => {
            true_odds(n).to
        }
        (Bet::Lay { .. } | Bet::DontPassOdds | Bet::DontComeOdds { .. }, Some(n)) => lay_odds(n).to,
        (Bet::AnySeven, _) if power.is_some() => 2,
        _ => 1,
    };
    i64::from(units.max(1)).saturating_mul(i64::from(to))
}

/// 45(m): the commission ("vigorish") on a buy or lay bet, 5% (16), (17), rounded down to whole
/// dollars — so a charge under a dollar is nothing (the other reading is published in [`math`]).
pub fn commission(cents: i64) -> i64 {
    let five_percent = cents.saturating_mul(5).checked_div(100).unwrap_or(0);
    five_percent.checked_div(100).unwrap_or(0).saturating_mul(100)
}
