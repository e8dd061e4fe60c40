//! Powerball (K.A.R. 111-5-22 and 111-5-24, with the multi-state prize chart): a play is five
//! different numbers from 1 to 69 and one Powerball from 1 to 26, which may equal one of the five
//! (111-5-24(a)); $2 a play (111-5-24(b)); the multiplier option, Power Play, $1 more per board and
//! chosen for every board of a slip (111-5-24(d)).
//!
//! - [`Board`]: one play's six numbers, checked, or picked by the server's generator;
//! - [`Tier`]: what a board's matches win, the fixed prizes, and Power Play's multiplication
//!   (the match-5 prize is always $2,000,000 with Power Play; the grand prize is pari-mutuel and
//!   never multiplied);
//! - [`PowerPlayBalls`]: the 43 multiplier balls (24 of 2x, 13 of 3x, 3 of 4x, 2 of 5x, 1 of 10x)
//!   drawn when the advertised annuity grand prize is at most $150 million, otherwise the 42
//!   without the 10x;
//! - [`drawing`]: a drawing's results (entered or drawn), a play's prize and the winners' tally;
//! - [`grand_prize`]: equal shares, the annuity's 30 graduated payments, the default election;
//! - [`math`]: every tier's exact probability and the game's returns;
//! - [`schedule`]: when sales close and resume and drawings are held, in central time.

pub mod drawing;
pub mod grand_prize;
pub mod math;
pub mod schedule;

use rand::Rng;
use serde::{Deserialize, Serialize};

/// The white balls: 1 to 69, five drawn (111-5-24(a)).
pub const WHITE_BALLS: u8 = 69;
/// Numbers of a board and of a drawing.
pub const WHITES: usize = 5;
/// The Powerballs: 1 to 26 (111-5-24(a)).
pub const POWERBALLS: u8 = 26;
/// The price of a play (111-5-24(b)).
pub const PLAY_CENTS: i64 = 200;
/// Power Play's price per board (111-5-24(d)).
pub const POWER_PLAY_CENTS: i64 = 100;
/// The match-5 prize with Power Play, whatever the multiplier (the prize chart).
pub const MATCH_FIVE_WITH_POWER_PLAY_CENTS: i64 = 200_000_000;
/// The 10x ball is in the drum only while the advertised annuity grand prize is at most this.
pub const TEN_X_LIMIT_CENTS: i64 = 15_000_000_000;

/// A board broken by the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("a board has five white numbers, not {0}")]
    WhiteCount(usize),
    #[error("white number {0} is not 1 to 69")]
    WhiteOutOfRange(u8),
    #[error("white number {0} is marked twice")]
    DuplicateWhite(u8),
    #[error("the Powerball {0} is not 1 to 26")]
    PowerballOutOfRange(u8),
    #[error("{0}x is not a ball of this drawing's Power Play drum")]
    MultiplierNotInDrum(u8),
}

/// One play: five different white numbers (kept in ascending order) and a Powerball.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Board {
    pub whites: [u8; WHITES],
    pub powerball: u8,
}

impl Board {
    /// The board the player chose (111-5-24(a), (d)(1), (d)(2)).
    pub fn new(whites: &[u8], powerball: u8) -> Result<Board, RuleError> {
        let whites: [u8; WHITES] = whites.try_into().map_err(|_| RuleError::WhiteCount(whites.len()))?;
        let mut sorted = whites;
        sorted.sort_unstable();
        if let Some(&n) = sorted.iter().find(|&&n| n == 0 || n > WHITE_BALLS) {
            return Err(RuleError::WhiteOutOfRange(n));
        }
        if let Some(twice) = sorted.windows(2).find_map(|p| match p {
            [a, b] if a == b => Some(*a),
            _ => None,
        }) {
            return Err(RuleError::DuplicateWhite(twice));
        }
        if powerball == 0 || powerball > POWERBALLS {
            return Err(RuleError::PowerballOutOfRange(powerball));
        }
        Ok(Board { whites: sorted, powerball })
    }

    /// A computer pick (111-5-24(d)(3)), from the server's generator: five whites without
    /// replacement and a Powerball, each number equally likely.
    pub fn quick_pick(rng: &mut impl Rng) -> Board {
        let mut whites: Vec<u8> = Vec::with_capacity(WHITES);
        while whites.len() < WHITES {
            let n = rng.random_range(1..=WHITE_BALLS);
            if !whites.contains(&n) {
                whites.push(n);
            }
        }
        whites.sort_unstable();
        let whites: [u8; WHITES] = whites.try_into().unwrap_or([1, 2, 3, 4, 5]);
        Board { whites, powerball: rng.random_range(1..=POWERBALLS) }
    }

    /// How many of `drawn`'s whites this board holds, and whether its Powerball is `drawn`'s.
    pub fn matches(&self, drawn: &Board) -> (usize, bool) {
        let whites = self.whites.iter().filter(|n| drawn.whites.contains(n)).count();
        (whites, self.powerball == drawn.powerball)
    }
}

/// A prize tier, from the grand prize down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// 5 + Powerball: the grand prize, pari-mutuel, shared equally by its winners.
    GrandPrize,
    Five,
    FourPowerball,
    Four,
    ThreePowerball,
    Three,
    TwoPowerball,
    OnePowerball,
    Powerball,
}

impl Tier {
    pub const ALL: [Tier; 9] = [
        Tier::GrandPrize,
        Tier::Five,
        Tier::FourPowerball,
        Tier::Four,
        Tier::ThreePowerball,
        Tier::Three,
        Tier::TwoPowerball,
        Tier::OnePowerball,
        Tier::Powerball,
    ];

    /// The tier `whites` matched whites, and the Powerball when `powerball`, win; none below.
    pub fn of(whites: usize, powerball: bool) -> Option<Tier> {
        Some(match (whites, powerball) {
            (5, true) => Tier::GrandPrize,
            (5, false) => Tier::Five,
            (4, true) => Tier::FourPowerball,
            (4, false) => Tier::Four,
            (3, true) => Tier::ThreePowerball,
            (3, false) => Tier::Three,
            (2, true) => Tier::TwoPowerball,
            (1, true) => Tier::OnePowerball,
            (0, true) => Tier::Powerball,
            _ => return None,
        })
    }

    /// The whites and Powerball the tier matches.
    pub fn matches(self) -> (usize, bool) {
        match self {
            Tier::GrandPrize => (5, true),
            Tier::Five => (5, false),
            Tier::FourPowerball => (4, true),
            Tier::Four => (4, false),
            Tier::ThreePowerball => (3, true),
            Tier::Three => (3, false),
            Tier::TwoPowerball => (2, true),
            Tier::OnePowerball => (1, true),
            Tier::Powerball => (0, true),
        }
    }

    /// The fixed prize for $2 without Power Play; none for the pari-mutuel grand prize.
    pub fn base_cents(self) -> Option<i64> {
        Some(match self {
            Tier::GrandPrize => return None,
            Tier::Five => 100_000_000,
            Tier::FourPowerball => 5_000_000,
            Tier::Four | Tier::ThreePowerball => 10_000,
            Tier::Three | Tier::TwoPowerball => 700,
            Tier::OnePowerball | Tier::Powerball => 400,
        })
    }

    /// The prize with Power Play's drawn `multiplier` (None: Power Play not played): the fixed
    /// prizes multiplied, except match 5, which is $2,000,000 with Power Play whatever the
    /// multiplier; none for the grand prize, which Power Play does not touch.
    pub fn prize_cents(self, multiplier: Option<u8>) -> Option<i64> {
        let base = self.base_cents()?;
        Some(match (self, multiplier) {
            (_, None) => base,
            (Tier::Five, Some(_)) => MATCH_FIVE_WITH_POWER_PLAY_CENTS,
            (_, Some(m)) => base.saturating_mul(i64::from(m)),
        })
    }
}

/// The Power Play drum of a drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PowerPlayBalls {
    /// 43 balls: 24 of 2x, 13 of 3x, 3 of 4x, 2 of 5x, 1 of 10x.
    WithTenX,
    /// 42 balls: the same without the 10x.
    WithoutTenX,
}

impl PowerPlayBalls {
    /// The drum for a drawing whose advertised annuity grand prize is `advertised_cents`.
    pub fn for_grand_prize(advertised_cents: i64) -> PowerPlayBalls {
        if advertised_cents <= TEN_X_LIMIT_CENTS {
            PowerPlayBalls::WithTenX
        } else {
            PowerPlayBalls::WithoutTenX
        }
    }

    /// (multiplier, balls) in the drum.
    pub fn balls(self) -> &'static [(u8, u32)] {
        match self {
            PowerPlayBalls::WithTenX => &[(2, 24), (3, 13), (4, 3), (5, 2), (10, 1)],
            PowerPlayBalls::WithoutTenX => &[(2, 24), (3, 13), (4, 3), (5, 2)],
        }
    }

    /// A multiplier drawn from the drum, each ball equally likely.
    pub fn draw(self, rng: &mut impl Rng) -> u8 {
        let total: u32 = self.balls().iter().map(|&(_, n)| n).sum();
        let mut ball = rng.random_range(0..total);
        for &(multiplier, n) in self.balls() {
            if ball < n {
                return multiplier;
            }
            ball = ball.saturating_sub(n);
        }
        2
    }
}

/// The cost of a slip of `boards` boards for one drawing: $2 a board (111-5-24(b)) and $1 more
/// a board with Power Play (111-5-24(d)).
pub fn slip_cents(boards: usize, power_play: bool) -> i64 {
    let per_board = if power_play { PLAY_CENTS.saturating_add(POWER_PLAY_CENTS) } else { PLAY_CENTS };
    per_board.saturating_mul(i64::try_from(boards).unwrap_or(i64::MAX))
}
