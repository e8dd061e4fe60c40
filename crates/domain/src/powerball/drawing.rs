//! A drawing's results and what they pay: five whites, the Powerball and the Power Play
//! multiplier, entered from the official drawing or drawn by the service; the prize of one play;
//! and a [`Tally`] of winners per tier, which the service's set-based settlement and the
//! independent `lotto verify-draw` both end in, so the two can be compared figure by figure.

use serde::{Deserialize, Serialize};

use super::{Board, PowerPlayBalls, RuleError, Tier, grand_prize};

/// The results of a drawing: the winning numbers and the Power Play multiplier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Results {
    pub numbers: Board,
    pub multiplier: u8,
}

impl Results {
    /// Results as entered: the numbers checked like a board's, the multiplier one of `drum`'s.
    pub fn new(
        whites: &[u8],
        powerball: u8,
        multiplier: u8,
        drum: PowerPlayBalls,
    ) -> Result<Results, RuleError> {
        let numbers = Board::new(whites, powerball)?;
        if !drum.balls().iter().any(|&(m, _)| m == multiplier) {
            return Err(RuleError::MultiplierNotInDrum(multiplier));
        }
        Ok(Results { numbers, multiplier })
    }

    /// Results drawn by `rng`: five whites without replacement from 69, a Powerball from 26 and a
    /// ball from the Power Play `drum`, each equally likely.
    pub fn draw(rng: &mut impl rand::Rng, drum: PowerPlayBalls) -> Results {
        Results { numbers: Board::quick_pick(rng), multiplier: drum.draw(rng) }
    }

    /// The tier a board with `numbers` wins, if any.
    pub fn tier_of(&self, board: &Board) -> Option<Tier> {
        let (whites, powerball) = board.matches(&self.numbers);
        Tier::of(whites, powerball)
    }
}

/// What one play of `tier` wins: the grand prize's `grand_share`, or the fixed prize, with Power
/// Play's `multiplier` when the play has it (match 5 then $2,000,000).
pub fn play_prize_cents(tier: Tier, power_play: bool, multiplier: u8, grand_share: i64) -> i64 {
    tier.prize_cents(power_play.then_some(multiplier)).unwrap_or(grand_share)
}

/// One line of a drawing's prize table: a tier, with or without Power Play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierResult {
    pub tier: Tier,
    pub power_play: bool,
    pub winners: u64,
    /// Each winner's prize.
    pub prize_cents: i64,
    /// Every winner's prize together.
    pub total_cents: i64,
}

/// Winners counted per tier, with and without Power Play.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    winners: [[u64; 2]; Tier::ALL.len()],
    plays: u64,
}

impl Tally {
    /// Counts one play of `board` against `results`.
    pub fn add(&mut self, board: &Board, power_play: bool, results: &Results) {
        self.plays = self.plays.saturating_add(1);
        if let Some(tier) = results.tier_of(board) {
            self.add_winners(tier, power_play, 1);
        }
    }

    /// Counts `n` winners of `tier` (as a set-based count reports them).
    pub fn add_winners(&mut self, tier: Tier, power_play: bool, n: u64) {
        let index = Tier::ALL.iter().position(|&t| t == tier).unwrap_or(0);
        if let Some(count) = self.winners.get_mut(index).and_then(|row| row.get_mut(usize::from(power_play)))
        {
            *count = count.saturating_add(n);
        }
    }

    /// Plays counted with [`Tally::add`].
    pub fn plays(&self) -> u64 {
        self.plays
    }

    /// Grand prize winners, with and without Power Play: they share the pool equally.
    pub fn grand_prize_winners(&self) -> u64 {
        self.winners.first().map_or(0, |row| row.iter().sum())
    }

    /// The prize table: every tier with and without Power Play, in the chart's order, for
    /// `results` and a grand prize pool of `grand_pool_cents`.
    pub fn prize_table(&self, results: &Results, grand_pool_cents: i64) -> Vec<TierResult> {
        let grand_winners = u32::try_from(self.grand_prize_winners()).unwrap_or(u32::MAX);
        let share = grand_prize::share_cents(grand_pool_cents, grand_winners);
        let mut table = Vec::with_capacity(Tier::ALL.len().saturating_mul(2));
        for (&tier, row) in Tier::ALL.iter().zip(&self.winners) {
            for power_play in [false, true] {
                let winners = row.get(usize::from(power_play)).copied().unwrap_or(0);
                let prize_cents = play_prize_cents(tier, power_play, results.multiplier, share);
                let total_cents = prize_cents.saturating_mul(i64::try_from(winners).unwrap_or(i64::MAX));
                table.push(TierResult { tier, power_play, winners, prize_cents, total_cents });
            }
        }
        table
    }
}
