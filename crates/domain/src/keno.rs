//! Castle Keno: the ticket, the draw, the five betting options and their pay tables, and the
//! exact math of each (architecture §5).
//!
//! Source: `castle-keno-rules.txt` ("Keno Rules ... Game Rules by Casino Lux"). An 80-number
//! ticket, 1-40 on top and 41-80 on the bottom; a draw is 20 distinct numbers. Every pay table is
//! in cents for the $1 ticket, exactly as the rules print it; a ticket bought for a whole multiple
//! of $1 is paid that multiple of the table.

use rand::Rng;
use serde::{Deserialize, Serialize};

/// "place a $1 chip in the circle marked “Place Bets”": the price of one ticket, in cents.
pub const TICKET_PRICE_CENTS: i64 = 100;
/// Numbers on the ticket.
pub const NUMBERS: u8 = 80;
/// Numbers in a draw ("Twenty rocks will be hurled toward the Castle").
pub const DRAWN: usize = 20;
/// "You can mark up to 15 of the 80 possible numbers, but no more than 15."
pub const MAX_SPOTS: usize = 15;
/// "numbers 1-40 on the top and 41-80 on the bottom".
pub const TOP_HALF_LAST: u8 = 40;

/// The five ways to bet on a ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BetOption {
    /// 1 to 15 spots; paid on the number of hits.
    Bet,
    /// 8 to 15 spots; paid only when none is hit.
    BetAgainst,
    /// 2 to 7 spots; paid only when all are hit.
    HitAll,
    /// 1 to 15 spots; its own schedule.
    HighRoller,
    /// No spots; paid on the difference between the halves' hits.
    TopOrBottom,
}

impl BetOption {
    pub const ALL: [BetOption; 5] = [
        BetOption::Bet,
        BetOption::BetAgainst,
        BetOption::HitAll,
        BetOption::HighRoller,
        BetOption::TopOrBottom,
    ];

    /// How many spots the option takes, as the rules enable it.
    pub fn spot_range(self) -> std::ops::RangeInclusive<usize> {
        match self {
            // "The BET option is enabled once you mark at least one spot ... up to 15".
            BetOption::Bet | BetOption::HighRoller => 1..=MAX_SPOTS,
            // "BET AGAINST is enabled once you have marked at least 8 Spots".
            BetOption::BetAgainst => 8..=MAX_SPOTS,
            // "The HIT ALL option can be played with 2 to 7 Spots".
            BetOption::HitAll => 2..=7,
            // "the only option that is enabled before you mark the ticket ... You don’t mark any spots".
            BetOption::TopOrBottom => 0..=0,
        }
    }
}

/// Why a ticket or stake is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum RuleError {
    #[error("spot {spot} is not on the ticket (1 to 80)")]
    SpotOutOfRange { spot: u8 },
    #[error("spot {spot} is marked twice")]
    DuplicateSpot { spot: u8 },
    #[error("{option:?} takes {min} to {max} spots, not {spots}")]
    SpotsNotAllowed { option: BetOption, spots: usize, min: usize, max: usize },
    #[error("the stake must be a whole number of $1 tickets, from 1 to {max}, not {tickets}")]
    StakeOutOfRange { tickets: u32, max: u32 },
}

/// Marked numbers as a bit set: bit `n` is number `n` (1 to 80).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Spots(u128);

impl Spots {
    /// The set of `numbers`, refused if one is off the ticket or repeated.
    pub fn new(numbers: &[u8]) -> Result<Spots, RuleError> {
        let mut bits = 0u128;
        for &spot in numbers {
            if !(1..=NUMBERS).contains(&spot) {
                return Err(RuleError::SpotOutOfRange { spot });
            }
            let bit = 1u128 << spot;
            if bits & bit != 0 {
                return Err(RuleError::DuplicateSpot { spot });
            }
            bits |= bit;
        }
        Ok(Spots(bits))
    }

    pub fn count(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The numbers in ascending order.
    pub fn numbers(self) -> Vec<u8> {
        (1..=NUMBERS).filter(|n| self.0 & (1u128 << n) != 0).collect()
    }
}

/// A valid ticket: an option, its spots, and its stake in $1 tickets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    pub option: BetOption,
    pub spots: Spots,
    /// Whole $1 tickets staked; payouts are this multiple of the table.
    pub tickets: u32,
}

impl Ticket {
    /// Checks the option's spot count and the stake (1 to `max_tickets` whole tickets).
    pub fn new(
        option: BetOption,
        numbers: &[u8],
        tickets: u32,
        max_tickets: u32,
    ) -> Result<Ticket, RuleError> {
        let spots = Spots::new(numbers)?;
        let range = option.spot_range();
        if !range.contains(&spots.count()) {
            return Err(RuleError::SpotsNotAllowed {
                option,
                spots: spots.count(),
                min: *range.start(),
                max: *range.end(),
            });
        }
        if tickets == 0 || tickets > max_tickets {
            return Err(RuleError::StakeOutOfRange { tickets, max: max_tickets });
        }
        Ok(Ticket { option, spots, tickets })
    }

    /// The stake in cents.
    pub fn stake_cents(&self) -> i64 {
        TICKET_PRICE_CENTS.saturating_mul(i64::from(self.tickets))
    }
}

/// Twenty distinct numbers from 1 to 80, in the order drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    pub numbers: [u8; DRAWN],
}

impl Draw {
    /// Draws with a partial Fisher-Yates shuffle: every one of the C(80,20) sets, and every order,
    /// is equally likely (the generator's bounded integers are unbiased).
    pub fn random(rng: &mut impl Rng) -> Draw {
        let mut pool: [u8; NUMBERS as usize] =
            std::array::from_fn(|i| u8::try_from(i).unwrap_or(0).wrapping_add(1));
        let mut numbers = [0u8; DRAWN];
        for (i, slot) in numbers.iter_mut().enumerate() {
            let j = rng.random_range(i..pool.len());
            pool.swap(i, j);
            *slot = pool.get(i).copied().unwrap_or(0);
        }
        Draw { numbers }
    }

    /// The drawn numbers as a bit set.
    pub fn mask(&self) -> u128 {
        self.numbers.iter().fold(0u128, |m, &n| m | (1u128 << n))
    }

    /// How many drawn numbers are on the top half (1-40).
    pub fn top_hits(&self) -> usize {
        self.numbers.iter().filter(|&&n| n <= TOP_HALF_LAST).count()
    }
}

/// What a ticket won on a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Spots hit (for TOP OR BOTTOM: hits on the half with fewer).
    pub hits: usize,
    pub payout_cents: i64,
}

/// Settles `ticket` against `draw`.
pub fn settle(ticket: &Ticket, draw: &Draw) -> Outcome {
    let hits = match ticket.option {
        BetOption::TopOrBottom => {
            let top = draw.top_hits();
            top.min(DRAWN.saturating_sub(top))
        }
        _ => (ticket.spots.0 & draw.mask()).count_ones() as usize,
    };
    let table = pay_cents(ticket.option, ticket.spots.count(), hits);
    Outcome { hits, payout_cents: table.saturating_mul(i64::from(ticket.tickets)) }
}

/// The largest prize any $1 Castle Keno ticket can win, in cents, over every option, spot count
/// and number of hits.
pub fn top_prize_cents() -> i64 {
    BetOption::ALL
        .iter()
        .flat_map(|&option| {
            (0..=MAX_SPOTS).flat_map(move |spots| (0..=DRAWN).map(move |hits| (option, spots, hits)))
        })
        .map(|(option, spots, hits)| pay_cents(option, spots, hits))
        .max()
        .unwrap_or(0)
}

/// What the $1 ticket pays, in cents, for `hits` of `spots` marked (TOP OR BOTTOM: `hits` is the
/// smaller half's count and `spots` is 0). Anything the rules do not list pays nothing.
pub fn pay_cents(option: BetOption, spots: usize, hits: usize) -> i64 {
    let dollars = |d: i64| d.saturating_mul(100);
    match option {
        BetOption::Bet => bet_table(spots).iter().find(|(h, _)| *h == hits).map_or(0, |(_, d)| dollars(*d)),
        BetOption::HighRoller => {
            high_roller_table(spots).iter().find(|(h, _)| *h == hits).map_or(0, |(_, c)| *c)
        }
        // "You are paid only if none of the marked numbers get hit."
        BetOption::BetAgainst if hits == 0 => match spots {
            15 => dollars(80),
            14 => dollars(56),
            13 => dollars(39),
            12 => dollars(27),
            11 => dollars(20),
            10 => dollars(14),
            9 => dollars(10),
            8 => dollars(6),
            _ => 0,
        },
        // "You will be paid only if all the numbers you marked are among the 20 hits".
        BetOption::HitAll if hits == spots => match spots {
            7 => dollars(28_000),
            6 => dollars(5_600),
            5 => dollars(1_150),
            4 => dollars(240),
            3 => dollars(48),
            2 => dollars(12),
            _ => 0,
        },
        // Hits on the half with fewer: 7 (difference 6) pays $1 ... 0 (difference 20) pays $10,000.
        BetOption::TopOrBottom if spots == 0 => match hits {
            7 => dollars(1),
            6 => dollars(4),
            5 => dollars(10),
            4 => dollars(40),
            3 => dollars(200),
            2 => dollars(600),
            1 => dollars(4_000),
            0 => dollars(10_000),
            _ => 0,
        },
        _ => 0,
    }
}

/// The BET table for the $1 ticket: (hits, dollars), as printed.
fn bet_table(spots: usize) -> &'static [(usize, i64)] {
    match spots {
        1 => &[(1, 3)],
        2 => &[(2, 6), (1, 1)],
        3 => &[(3, 30), (2, 3)],
        4 => &[(4, 90), (3, 8), (2, 1)],
        5 => &[(5, 300), (4, 11), (3, 3), (2, 1)],
        6 => &[(6, 500), (5, 60), (4, 5), (3, 1), (2, 1)],
        7 => &[(7, 2_000), (6, 250), (5, 20), (4, 5)],
        8 => &[(8, 3_000), (7, 350), (6, 50), (5, 6), (4, 4), (3, 1)],
        9 => &[(9, 5_000), (8, 1_000), (7, 80), (6, 15), (5, 6), (4, 2), (3, 1)],
        10 => &[(10, 8_000), (9, 1_000), (8, 300), (7, 50), (6, 12), (5, 3), (4, 1), (3, 1)],
        11 => &[(11, 10_000), (10, 3_000), (9, 800), (8, 80), (7, 20), (6, 8), (5, 5), (4, 1)],
        12 => &[(12, 12_000), (11, 5_000), (10, 2_500), (9, 250), (8, 90), (7, 30), (6, 3), (5, 2), (4, 1)],
        13 => &[
            (13, 15_000),
            (12, 8_000),
            (11, 2_500),
            (10, 1_000),
            (9, 200),
            (8, 40),
            (7, 5),
            (6, 3),
            (5, 2),
            (4, 1),
        ],
        14 => &[
            (14, 18_000),
            (13, 8_000),
            (12, 4_000),
            (11, 1_500),
            (10, 800),
            (9, 150),
            (8, 20),
            (7, 10),
            (6, 4),
            (5, 1),
        ],
        15 => &[
            (15, 20_000),
            (14, 10_000),
            (13, 5_000),
            (12, 2_000),
            (11, 1_000),
            (10, 300),
            (9, 100),
            (8, 20),
            (7, 5),
            (6, 2),
            (5, 1),
        ],
        _ => &[],
    }
}

/// The HIGH ROLLER table for the $1 ticket: (hits, cents), as printed — including Mark 12's
/// "5 0 4 1", where 5 hits pay nothing and 4 hits pay $1 (implemented as written).
fn high_roller_table(spots: usize) -> &'static [(usize, i64)] {
    match spots {
        1 => &[(1, 280)],
        2 => &[(2, 1_120)],
        3 => &[(3, 4_000), (2, 80)],
        4 => &[(4, 16_000), (3, 400)],
        5 => &[(5, 68_000), (4, 1_000), (3, 100)],
        6 => &[(6, 200_000), (5, 7_200), (4, 640)],
        7 => &[(7, 600_000), (6, 28_000), (5, 2_400), (4, 160)],
        8 => &[(8, 1_200_000), (7, 72_000), (6, 8_000), (5, 1_200), (4, 100)],
        9 => &[(9, 2_000_000), (8, 320_000), (7, 24_000), (6, 3_200), (5, 720)],
        10 => &[(10, 2_400_000), (9, 320_000), (8, 60_000), (7, 10_400), (6, 3_200), (5, 80)],
        11 => &[(11, 2_400_000), (10, 1_200_000), (9, 100_000), (8, 10_000), (7, 6_000), (6, 1_760)],
        12 => &[
            (12, 2_800_000),
            (11, 1_600_000),
            (10, 400_000),
            (9, 80_000),
            (8, 12_000),
            (7, 3_200),
            (6, 640),
            (5, 0),
            (4, 100),
        ],
        13 => &[
            (13, 2_800_000),
            (12, 2_000_000),
            (11, 1_200_000),
            (10, 200_000),
            (9, 60_000),
            (8, 8_000),
            (7, 1_600),
            (6, 160),
        ],
        14 => &[
            (14, 2_800_000),
            (13, 2_000_000),
            (12, 1_200_000),
            (11, 320_000),
            (10, 96_000),
            (9, 40_000),
            (8, 4_000),
            (7, 960),
        ],
        15 => &[
            (15, 3_200_000),
            (14, 2_800_000),
            (13, 2_400_000),
            (12, 2_000_000),
            (11, 240_000),
            (10, 44_000),
            (9, 12_000),
            (8, 2_800),
            (7, 720),
        ],
        _ => &[],
    }
}

pub mod math;
